"""The change map in the window: D shows it, regions zoom, the case list flags cases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.main_window import MainWindow

CASE = "ctx02_apple_tennis_ball"  # the edit also moved the glass of water


def test_d_shows_two_regions_one_outside_the_edit(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project, CASE)
    window.compare.canvases[ImageRole.EDITED].setFocus()
    with qtbot.waitSignal(window.changes_ui.shown, timeout=15000):
        qtbot.keyClick(window.compare.canvases[ImageRole.EDITED], Qt.Key.Key_D)
    edited, base = (
        window.compare.canvases[ImageRole.EDITED],
        window.compare.canvases[ImageRole.BASE],
    )
    assert edited.overlay_regions == 2 and base.overlay_regions == 2
    regions = window.changes_ui.section.regions
    texts = [regions.item(i).text() for i in range(regions.count())]
    assert len(texts) == 2
    assert sum("outside the edit" in t for t in texts) == 1
    summary = window.changes_ui.section.summary.text()
    assert "outside the edit" in summary and "Scene changed" in summary

    outside = next(
        regions.item(i) for i in range(regions.count()) if "outside" in regions.item(i).text()
    )
    fit = edited.zoom
    regions.itemClicked.emit(outside)
    assert edited.zoom > 2 * fit
    assert base.view_state() == pytest.approx(edited.view_state(), abs=0.01)

    qtbot.keyClick(edited, Qt.Key.Key_D)  # and off again
    assert edited.overlay_regions == 0 and not window.changes_ui.section.isVisible()


def test_the_case_list_flags_cases_with_changes_outside_the_edit(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project, "attr01_red_triangles")
    paired = [e.case_id for e in window.project.entries if e.generation_mode == "paired_edit"]
    qtbot.waitUntil(
        lambda: all(window.project.entry(c).changes_outside is not None for c in paired),
        timeout=30000,
    )
    combo = window.case_list.decision_filter
    combo.setCurrentIndex(combo.findData("outside"))
    assert window.workbench.visible_ids() == [CASE]
    row = window.workbench.row_of(CASE)
    assert "changes outside the edit" in window.case_list.model.index(row).data(
        Qt.ItemDataRole.ToolTipRole
    )
