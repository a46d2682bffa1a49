"""The probe table on a 1366×768 laptop: each question shows whole, whatever the pane's
width was when the case opened (another tab in front, the dock dragged wider or narrower)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QTableView

from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.probe_columns import QUESTION_LEAST_PX
from sabre_desk.gui.review.probe_model import PROBE, QUESTION

CASE = "spatial01_desk"  # long questions: several lines each in a laptop-sized panel


def cut_rows(table: QTableView) -> list[int]:
    """The rows shorter than their text needs at the columns' widths now."""
    return [
        row
        for row in range(table.model().rowCount())
        if table.rowHeight(row) < table.sizeHintForRow(row)
    ]


def test_each_question_shows_whole_after_the_panel_changes_width(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    window.resize(1366, 730)
    open_case(window, demo_project, CASE)
    qtbot.wait(50)
    table = window.case_panel.probes
    assert table.model().rowCount() >= 2
    assert not cut_rows(table)
    dock = window.case_panel.parentWidget()
    assert isinstance(dock, QDockWidget)
    for width in (360, 620, 420):  # the dock dragged narrower, wider, narrower
        window.resizeDocks([dock], [width], Qt.Orientation.Horizontal)
        # the rows are fitted on a later turn of the event loop: waited for, not read
        # after a fixed pause (which a loaded machine outlasts)
        qtbot.waitUntil(lambda: not cut_rows(table), timeout=3000)


def test_each_probe_id_shows_whole_where_the_question_keeps_its_room(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A primer's probe id (component_count) is not cut to "component_…" while the
    columns beside it have room they do not use; the Question column keeps its room."""
    window.resize(1366, 730)
    open_case(window, demo_project, "attr02_traffic_light")
    qtbot.wait(50)
    table = window.case_panel.probes
    model = table.model()
    assert model.index(0, PROBE).data(Qt.ItemDataRole.ToolTipRole) == "component_count"
    qtbot.waitUntil(lambda: table.sizeHintForColumn(PROBE) <= table.columnWidth(PROBE))
    assert table.columnWidth(QUESTION) >= QUESTION_LEAST_PX
    dock = window.case_panel.parentWidget()
    assert isinstance(dock, QDockWidget)
    window.resizeDocks([dock], [640], Qt.Orientation.Horizontal)  # a wider panel
    qtbot.wait(50)
    for case_id in ("attr01_red_triangles", "attr02_traffic_light"):  # away and back
        with qtbot.waitSignal(window.images_shown, timeout=10000):
            window.case_list.select(case_id)
    qtbot.wait(50)
    assert table.sizeHintForColumn(PROBE) <= table.columnWidth(PROBE)
    assert table.columnWidth(QUESTION) >= QUESTION_LEAST_PX
    assert not cut_rows(table)
