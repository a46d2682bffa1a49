"""The case panel on a 1366×768 laptop: what the change map and the team found is seen at
once, nothing scrolls inside the scrolling pane, and each case opens at its top."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from factories import write_review
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QDialog, QDialogButtonBox, QWidget

from sabre_desk.gui.desk.fit_rows import rows_height
from sabre_desk.gui.main_window import MainWindow

CASE = "tex01_mug_brick"


def seen_in_pane(window: MainWindow, widget: QWidget) -> bool:
    """*widget*'s top is inside the case panel's scrolling pane as it is scrolled now."""
    pane = window.case_panel.top_scroll.viewport()
    top = widget.mapTo(pane, QPoint(0, 0)).y()
    return widget.isVisible() and top >= 0 and top + 12 <= pane.height()


@pytest.fixture
def laptop(window: MainWindow, open_case: Callable, demo_project: Path, qtbot) -> MainWindow:
    write_review(demo_project / "cases" / CASE, "bob", "keep", notes="fine")
    window.resize(1366, 730)
    open_case(window, demo_project, CASE)
    qtbot.keyClick(window.compare.canvases[window.compare.visible_roles[-1]], Qt.Key.Key_D)
    section = window.changes_ui.section
    qtbot.waitUntil(lambda: "changed region" in section.summary.text(), timeout=15000)
    qtbot.wait(50)
    return window


def test_the_change_map_and_the_team_are_seen_without_scrolling(laptop: MainWindow) -> None:
    window = laptop
    panel = window.case_panel
    assert seen_in_pane(window, panel.summary)  # the case id, at the top
    assert seen_in_pane(window, window.changes_ui.section.summary)
    assert seen_in_pane(window, window.team_ui.section)
    # No empty band under the probe table's rows: the pane above has that room.
    assert panel.probes.height() - rows_height(panel.probes) <= 2


def test_nothing_scrolls_inside_the_case_panels_pane(laptop: MainWindow) -> None:
    pane = laptop.case_panel.top_scroll
    inner = pane.widget().findChildren(QAbstractScrollArea)
    assert inner  # the change regions and the team table at least
    for view in inner:
        if view.isVisible():
            assert not view.verticalScrollBar().isVisible(), view.objectName()
            assert view.height() >= rows_height(view) - 2, view.objectName()


def test_each_case_opens_at_its_top(qtbot, laptop: MainWindow) -> None:
    window = laptop
    bar = window.case_panel.top_scroll.verticalScrollBar()
    assert bar.maximum() > 0  # the pane scrolls at this size
    bar.setValue(bar.maximum())
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        qtbot.keyClick(window.compare.active_canvas(), Qt.Key.Key_N)
    assert bar.value() == 0
    assert seen_in_pane(window, window.case_panel.summary)


def test_no_text_of_the_case_panel_is_cut_at_its_right_edge(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A primer with a long title and checklist items longer than the pane is wide: the
    text wraps inside the pane, never runs past its edge (the pane cannot scroll sideways)."""
    window.resize(1366, 730)
    open_case(window, demo_project, "attr01_red_triangles")
    qtbot.wait(50)
    panel = window.case_panel
    pane = panel.top_scroll.viewport()
    assert panel.top_scroll.widget().width() <= pane.width()
    labels = [panel.summary, panel.details, panel.primer_label]
    labels += [box.parentWidget() for box in panel.checklist.values()]
    assert len(labels) > 5
    for widget in labels:
        right = widget.mapTo(pane, QPoint(widget.width(), 0)).x()
        assert right <= pane.width(), widget


def test_task_design_opens_one_window_with_a_close_button(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """Task design… twice gives one window (brought to the front), closed by its button."""
    window.resize(1366, 730)
    open_case(window, demo_project, "attr01_red_triangles")
    panel = window.case_panel
    qtbot.mouseClick(panel.design_button, Qt.MouseButton.LeftButton)
    first = panel.design_dialog
    assert first is not None and first.isVisible()
    qtbot.mouseClick(panel.design_button, Qt.MouseButton.LeftButton)
    shown = [d for d in window.findChildren(QDialog) if d.isVisible()]
    assert shown == [first]
    close = first.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert not first.isVisible()


@pytest.mark.parametrize("height", [768, 900, 1080])
def test_the_checklist_ends_whole_and_no_empty_band_is_left_under_it(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path, height: int
) -> None:
    """Scrolled to its end, the pane shows the checklist's last item and the box's edge; on a
    taller screen the pane is no taller than what it holds: the notes field takes the rest."""
    window.resize(1366, height)
    for case_id in ("count02_bottles", "ctx01_tape_bagel", "lang01_mug_back"):
        open_case(window, demo_project, case_id)
        panel = window.case_panel
        pane = panel.top_scroll.viewport()
        box = panel.checklist_box
        needed = panel.top_scroll.widget().heightForWidth(pane.width())
        qtbot.waitUntil(lambda: pane.height() <= needed + 2, timeout=3000)  # noqa: B023
        bar = panel.top_scroll.verticalScrollBar()
        bar.setValue(bar.maximum())
        qtbot.wait(20)
        rows = [box for box in panel.checklist.values() if box.isVisible()]
        last = rows[-1].parentWidget()
        assert last.mapTo(pane, QPoint(0, last.height())).y() <= pane.height(), case_id
        assert box.mapTo(pane, QPoint(0, box.height())).y() <= pane.height(), case_id
        if bar.maximum() == 0:  # all of it fits: nothing empty under the checklist
            assert pane.height() - box.mapTo(pane, QPoint(0, box.height())).y() <= 16, case_id
        assert panel.notes.height() >= 64
