"""File > Evaluate a Release… in the window: two providers' models asked in a child process
(their stand-ins found through the clients' own variables), progress on the job board, and
Table 7 naming both at the end."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropic
from fakes.openai_server import FakeOpenAI
from PySide6.QtWidgets import QDialogButtonBox

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.gui.evaluation.evaluate_dialog import EvaluateDialog
from sabre_desk.gui.main_window import MainWindow

GPT, CLAUDE = "openai:gpt-5.4", "anthropic:claude-opus-4-6"


def test_file_evaluate_a_release_writes_table_7_in_the_background(
    qtbot, window: MainWindow, demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("count01_apples")
    case.review.decision = Decision.KEEP
    project.save_review(case)
    release = tmp_path / "release"
    assert main(["--reviewer", "alice", "export", str(demo_project), str(release)]) == 0
    openai_fake, anthropic_fake = FakeOpenAI(), FakeAnthropic()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-gui-" + "k" * 30)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-gui-" + "k" * 30)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_fake.url)
    ui = window.evaluate_ui
    file_menu = window.actions_.file
    assert "Evaluate a Release…" in [a.text().replace("&", "") for a in file_menu.actions()]
    try:
        with qtbot.waitSignal(ui.finished, timeout=120000) as done:
            assert ui.start(release, [GPT, CLAUDE], tmp_path / "eval")
            assert window.status.job_strip.isVisible() and window.status.job_strip.views
            assert not ui.start(release, [GPT])  # one evaluation at a time
    finally:
        openai_fake.close()
        anthropic_fake.close()
    result = done.args[0]
    assert result is not None and not result.cancelled and result.failures == 0
    header = (tmp_path / "eval" / "table7.md").read_text().splitlines()[0]
    assert GPT in header and CLAUDE in header
    assert not window.status.job_strip.isVisible()


def test_cancel_stops_an_evaluation_and_keeps_what_came_back(
    qtbot, window: MainWindow, demo_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("count01_apples")
    case.review.decision = Decision.KEEP
    project.save_review(case)
    release = tmp_path / "release"
    assert main(["--reviewer", "alice", "export", str(demo_project), str(release)]) == 0
    openai_fake = FakeOpenAI(delay_s=1.0)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-gui-" + "k" * 30)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.url)
    ui = window.evaluate_ui
    try:
        with qtbot.waitSignal(ui.finished, timeout=120000) as done:
            assert ui.start(release, [GPT], tmp_path / "eval")
            qtbot.waitUntil(lambda: bool(openai_fake.requests), timeout=60000)
            ui.run.job.cancel()  # the Cancel of the status bar and the Pipeline panel
    finally:
        openai_fake.close()
    result = done.args[0]
    assert result is not None and result.cancelled
    kept = (tmp_path / "eval" / "predictions-openai_gpt-5.4.jsonl").read_text().splitlines()
    rows = (release / "benchmark.jsonl").read_text().splitlines()
    assert len(kept) < len(rows)  # stopped before every question was asked
    assert not window.status.job_strip.isVisible()


def test_the_evaluate_dialog_names_what_its_button_does(qtbot) -> None:
    """Its button says Evaluate (not a bare OK), and the release field's hint is words, not
    Markdown backticks."""
    dialog = EvaluateDialog("gemini:gemini-3.5-flash")
    qtbot.addWidget(dialog)
    buttons = dialog.findChild(QDialogButtonBox)
    ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert ok.text().replace("&", "") == "Evaluate"
    assert "`" not in dialog.release.placeholderText()
