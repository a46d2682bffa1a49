"""Screening from the window: the open case screened again in a child process, its result
in the probe table and the case list, a solved case out of the review queue."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from fakes.gemini_server import serving
from fakes.oracle import Oracle
from PySide6.QtCore import Qt

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.desk.workbench import Show
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.probe_model import RESULT

CTX = "ctx03_wrench_banana"


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_ctrl_alt_s_screens_the_open_case_and_a_solved_case_leaves_the_queue(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = demo_project / "cases" / CTX
    with serving(monkeypatch, "gui-screen-key-" + "q" * 20) as fake:
        oracle = Oracle()
        fake.answer = oracle.rule
        base, edited = sha(folder / "base.png"), sha(folder / "edited.png")
        oracle.says[(base, "Is a wrench visible?")] = "Yes."
        oracle.says[(base, "Is a banana visible?")] = "No."
        oracle.says[(edited, "Is a wrench visible?")] = "No."
        oracle.says[(edited, "Is a banana visible?")] = "Yes."
        open_case(window, demo_project, CTX)
        ui = window.screening_ui
        assert ui.case_action.shortcut().toString() == "Ctrl+Alt+S"
        with qtbot.waitSignal(ui.finished, timeout=90000) as done:
            window.compare.canvases[ui.session.case.spec.image_roles[-1]].setFocus()
            qtbot.keyClick(
                window.compare.canvases[ui.session.case.spec.image_roles[-1]],
                Qt.Key.Key_S,
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier,
            )
            # the progress and its Cancel in the status bar, while it runs
            assert window.status.job_strip.isVisible() and window.status.job_strip.views
        report = done.args[0]
        assert report is not None and report.cases_written == [CTX]
        assert len(fake.requests) == 4
    assert not window.status.job_strip.isVisible()
    assert window.project.entry(CTX).screening is ScreenStatus.SOLVED
    model = window.case_panel.probe_model
    assert [model.index(r, RESULT).data() for r in range(model.rowCount())] == ["Correct"] * 4
    window.workbench.set_filter(show=Show.SOLVED)
    assert window.workbench.visible_ids() == [CTX]
    window.workbench.set_filter(show=Show.ALL)
    before = window.workbench.step(CTX, -1)
    assert window.workbench.next_unreviewed(before) != CTX  # out of the review queue


def test_the_probe_table_judges_the_filter_against_the_questions_as_edited(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, CTX)
    model = window.case_panel.probe_model
    results = [model.index(r, RESULT).data() for r in range(model.rowCount())]
    assert set(results) <= {"Correct", "Incorrect"}
    first = results[0]
    # the reference answer edited: the filter's answer is graded against the new one
    old = model.question(0).answer
    assert model.setData(model.index(0, 3), "no" if old == "yes" else "yes")
    flipped = "Incorrect" if first == "Correct" else "Correct"
    assert model.index(0, RESULT).data() == flipped
    assert "graded against the edited answer" in model.index(0, RESULT).data(
        Qt.ItemDataRole.ToolTipRole
    )
    # the question edited: the filter was asked another question, so its result is stale
    assert model.setData(model.index(1, 2), "Is there anything unusual on the bench?")
    assert model.index(1, RESULT).data() == "Question edited"
    tip = model.index(1, RESULT).data(Qt.ItemDataRole.ToolTipRole)
    assert "the question was edited after the run asked it" in tip and "Ctrl+Alt+S" in tip
