"""The audit queue in the real window: the case list's "Answers the models dispute" shows
the cases with a flagged question to settle, the probe table shows the models' answer
under the reference, and settling one (editing the answer, deciding the case again) takes
its case off the list and off `stats --json`'s count alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from sabre_desk.cli import main
from sabre_desk.core.desk.workbench import Show
from sabre_desk.core.release.audit import Dispute, Evaluation, write_flags
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.probe_model import ANSWER, DISPUTED

APPLES, ABOVE = "count01_apples", "spatial02_above_red"


def flag_demo(root: Path) -> None:
    """Two questions flagged the day before (as `audit --flag` records them)."""
    answers = {"openai_gpt-5.4": "8 apples", "local_qwen": "Eight."}
    disputes = [
        Dispute(f"{APPLES}:apples", APPLES, "apples", "counting", "How many apples?", "7", "8",
                answers),
        Dispute(f"{ABOVE}:above_red_circle", ABOVE, "above_red_circle", "spatial_relations",
                "Which shape is above the red circle?", "B", "C",
                {"openai_gpt-5.4": "C", "local_qwen": "c"}),
    ]  # fmt: skip
    path = write_flags(root, Evaluation(root, [], {}, "f" * 64), disputes)
    data = json.loads(path.read_text())
    for f in data["flags"]:
        f["flagged_at"] = "2026-01-01T00:00:00Z"
    path.write_text(json.dumps(data))


def stats_audit(root: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    capsys.readouterr()
    assert main(["--reviewer", "alice", "stats", str(root), "--json"]) == 0
    audit: dict[str, object] = json.loads(capsys.readouterr().out)["audit"]
    return audit


def show_audit(window: MainWindow) -> None:
    combo = window.case_list.decision_filter
    combo.setCurrentIndex(combo.findText("Answers the models dispute"))
    assert window.workbench.filter.show == Show.AUDIT


def test_settling_in_the_window_takes_the_case_off_the_list_and_off_stats(
    qtbot,
    window: MainWindow,
    open_case: Callable[..., None],
    demo_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    flag_demo(demo_project)
    open_case(window, demo_project, "attr01_red_triangles")
    qtbot.waitUntil(lambda: window.workbench.audit == {APPLES, ABOVE}, timeout=10000)
    show_audit(window)
    assert window.case_list.model.rowCount() == 2
    assert window.workbench.visible_ids() == [APPLES, ABOVE]
    assert stats_audit(demo_project, capsys) == window.audit_ui.queue.standing.to_json()

    # the models' answer under the reference, amber, each model's words in the tooltip
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(APPLES)
    model, table = window.case_panel.probe_model, window.case_panel.probes
    cell = model.index(0, ANSWER)
    assert cell.data() == "7\nmodels: 8"
    assert cell.data(Qt.ItemDataRole.EditRole) == "7"  # an edit starts from the reference
    assert cell.data(Qt.ItemDataRole.BackgroundRole) == DISPUTED
    tip = cell.data(Qt.ItemDataRole.ToolTipRole)
    assert "'8 apples'" in tip and "'Eight.'" in tip and "openai_gpt-5.4" in tip
    assert table.visualRect(cell).height() >= 2 * table.fontMetrics().height()  # both lines

    # the reviewer agrees with the models: the answer is edited in the table
    table.setCurrentIndex(cell)
    table.edit(cell)
    editor = table.viewport().findChild(QLineEdit)
    assert editor is not None and editor.text() == "7"
    editor.selectAll()
    qtbot.keyClicks(editor, "8")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the delegate commits on the next turn
    qtbot.waitUntil(lambda: cell.data(Qt.ItemDataRole.EditRole) == "8", timeout=2000)
    assert window.workbench.visible_ids() == [ABOVE]  # gone from the list at once
    assert window.audit_ui.queue.unsettled_cases == {ABOVE}
    assert cell.data(Qt.ItemDataRole.BackgroundRole) is None  # settled: no amber
    assert window.controller is not None and window.controller.flush()
    expected = {"flagged": 2, "settled": 1, "unsettled": [f"{ABOVE}:above_red_circle"]}
    assert stats_audit(demo_project, capsys) == expected
    assert window.audit_ui.queue.standing.to_json() == expected

    # the other: the reviewer decides the case again (Keep, key 1)
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(ABOVE)
    assert window.case_panel.probe_model.index(0, ANSWER).data() == "B\nmodels: C"
    window.settings.auto_advance = False
    qtbot.keyClick(window.compare.active_canvas(), Qt.Key.Key_1)
    assert window.workbench.visible_ids() == []
    assert window.controller.flush()
    assert stats_audit(demo_project, capsys) == {"flagged": 2, "settled": 2, "unsettled": []}

    # opened again, the project's audit reads the same from its files
    assert window.open_project(demo_project, APPLES)
    qtbot.waitUntil(lambda: window.audit_ui.queue.standing.flagged != (), timeout=10000)
    assert window.audit_ui.queue.standing.to_json() == {
        "flagged": 2,
        "settled": 2,
        "unsettled": [],
    }
    assert window.workbench.audit == frozenset()


def test_a_project_without_an_audit_shows_nothing_flagged(
    qtbot, window: MainWindow, open_case: Callable[..., None], demo_project: Path
) -> None:
    open_case(window, demo_project, APPLES)
    window.wait_for_background(10000)
    show_audit(window)
    assert window.workbench.visible_ids() == []
    assert window.case_panel.probe_model.index(0, ANSWER).data() == "7"


def test_the_models_answer_fits_the_probe_table_on_a_laptop(
    qtbot, window: MainWindow, open_case: Callable[..., None], demo_project: Path
) -> None:
    """At 1366×768 both lines of a flagged answer are whole and the table needs no
    sideways scrolling."""
    flag_demo(demo_project)
    window.resize(1366, 768)
    open_case(window, demo_project, APPLES)
    qtbot.waitUntil(lambda: window.workbench.audit == {APPLES, ABOVE}, timeout=10000)
    table = window.case_panel.probes
    cell = window.case_panel.probe_model.index(0, ANSWER)
    qtbot.waitUntil(lambda: cell.data() == "7\nmodels: 8", timeout=2000)
    window.case_panel.probe_columns.fit()
    table.resizeRowsToContents()
    qtbot.wait(50)
    rect = table.visualRect(cell)
    metrics = table.fontMetrics()
    assert rect.height() >= 2 * metrics.height()
    assert rect.width() >= metrics.horizontalAdvance("models: 8")
    assert not table.horizontalScrollBar().isVisible()
