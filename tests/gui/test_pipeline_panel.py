"""The Pipeline panel: the funnel of a project made by the (fake) pipeline models, its
failures and cost, and Make Images / Write Specifications run from the window in a child
process against the fake Gemini, with progress and Cancel."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from factories import run_cli, write_review
from fakes.gemini_server import FakeGemini, blocked_reply, error_reply
from fakes.pipeline import PipelineModels, context_spec
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListWidget

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.jobs.job_board import JobKind
from sabre_desk.core.jobs.ledger import summarize
from sabre_desk.core.making.image_maker import make_images
from sabre_desk.core.making.incoming import StagedState, stage_spec, staged_cases
from sabre_desk.core.making.spec_writer import write_specs
from sabre_desk.engines.gemini_make import GeminiImageMaker, GeminiWriter
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.making.pipeline_ui import PipelineUi
from sabre_desk.gui.making.write_specs_dialog import WriteSpecsDialog
from sabre_desk.gui.shortcuts import shortcuts_html

JOB_TIMEOUT_MS = 120_000


def _write_specs(root: Path, n: int) -> list[str]:
    primer = PrimerLibrary.for_project(root).primers["context"]
    with GeminiWriter() as writer:
        return write_specs(root, primer, n, writer, threading.Event()).written


def _make_images(root: Path, cases: list[str]) -> None:
    with GeminiImageMaker() as maker:
        make_images(root, maker, threading.Event(), cases=cases, concurrency=1)


def _show_panel(qtbot, window: MainWindow, root: Path) -> PipelineUi:
    """Open *root* and the panel (Ctrl+Shift+P), once its funnel has been read."""
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=10_000)
    ui = window.pipeline_ui
    assert not ui.dock.isVisible()  # hidden until asked for
    with qtbot.waitSignal(ui.refreshed, timeout=10_000):
        qtbot.keyClick(
            window.case_list.view,
            Qt.Key.Key_P,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    assert ui.dock.isVisible()
    return ui


def _counts(ui: PipelineUi) -> dict[str, str]:
    rows = ui.panel.stages
    return {
        label.text(): count.text() for label, count in zip(rows.names, rows.counts, strict=True)
    }


def _failure_item(failures: QListWidget, what: str) -> object:
    for row in range(failures.count()):
        item = failures.item(row)
        if item.text().startswith(f"{what}: "):
            return item
    raise AssertionError(
        f"{what} is not listed: {[failures.item(r).text() for r in range(failures.count())]}"
    )


def _double_click(qtbot, failures: QListWidget, item: object) -> None:
    """As a hand does it: a press and release, then the second press that makes it double."""
    at = failures.visualItemRect(item).center()  # type: ignore[arg-type]
    qtbot.mouseClick(failures.viewport(), Qt.MouseButton.LeftButton, pos=at)
    qtbot.mouseDClick(failures.viewport(), Qt.MouseButton.LeftButton, pos=at)


def test_the_panel_shows_the_funnel_its_failures_and_cost_and_opens_a_failed_case(
    qtbot,
    window: MainWindow,
    tmp_path: Path,
    context_project: Path,
    pipeline_models: tuple[FakeGemini, PipelineModels],
) -> None:
    server, answer = pipeline_models
    first, second, blocked, _waiting = _write_specs(context_project, 4)
    _make_images(context_project, [first, second])
    answer.image_script = [blocked_reply("PROHIBITED_CONTENT")]
    _make_images(context_project, [blocked])
    done = run_cli("screen", str(context_project), "--cases", first, home=tmp_path)
    assert done.returncode == 0, done.stderr
    server.script = [error_reply(400, "bad request")] * 4  # every probe of the second fails
    run_cli("screen", str(context_project), "--cases", second, home=tmp_path)
    write_review(context_project / "cases" / first, "alice", "keep")

    ui = _show_panel(qtbot, window, context_project)
    assert _counts(ui) == {
        "Specified": "4",
        "Imaged": "2",
        "Valid": "2",
        "Screened": "1",
        "Kept by the filter": "1",
        "Decided by anyone": "1",
        "Final Keep": "1",
    }
    bars = ui.panel.stages.bars
    assert bars[0].value() == 4 and bars[1].value() == 2 and bars[0].maximum() == 4
    assert "Waiting for images: 1 · failed: 1" in ui.panel.waiting.text()
    calls = len((context_project / "ledger.jsonl").read_text().splitlines())
    assert ui.panel.cost.text() == (
        f"Model calls: {calls} · cost so far: unknown "
        "(no price for gemini-3.1-flash-image, gemini-3.5-flash)"
    )
    failures = ui.panel.failures
    assert failures.count() == 2

    # a case still waiting: its reason, and where it is
    _double_click(qtbot, failures, _failure_item(failures, blocked))
    assert "PROHIBITED_CONTENT" in ui.panel.detail.text()
    assert f"{blocked} is not a case yet" in ui.panel.detail.text()
    # a case in the project whose screening failed: it opens
    _double_click(qtbot, failures, _failure_item(failures, second))
    qtbot.waitUntil(
        lambda: window.session.case is not None and window.session.case.case_id == second
    )

    # priced models: F5 reads the funnel again, and the cost is in dollars
    window.settings.prices = {
        "gemini-3.5-flash": {"input": 1.0, "output": 2.0},
        "gemini-3.1-flash-image": {"input": 1.0, "output": 30.0},
    }
    with qtbot.waitSignal(ui.refreshed, timeout=10_000):
        qtbot.keyClick(window.case_list.view, Qt.Key.Key_F5)
    total = summarize(context_project / "ledger.jsonl", window.settings.prices).total_usd
    assert total and ui.panel.cost.text().endswith(f"cost so far: ${total:.2f}")

    pipeline = window.actions_.groups["View"]
    assert ui.action in pipeline and ui.action.shortcut().toString() == "Ctrl+Shift+P"
    assert "Pipeline Panel" in shortcuts_html(window.actions_.groups)  # F1 lists it


def test_make_images_from_the_panel_turns_waiting_specs_into_cases(
    qtbot,
    window: MainWindow,
    context_project: Path,
    pipeline_models: tuple[FakeGemini, PipelineModels],
) -> None:
    written = _write_specs(context_project, 2)
    ui = _show_panel(qtbot, window, context_project)
    assert _counts(ui)["Imaged"] == "0"
    button = ui.panel.make_images
    assert button.isEnabled() and "2 specifications waiting" in button.toolTip()
    with qtbot.waitSignal(ui.job_done, timeout=JOB_TIMEOUT_MS) as done:
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        assert [v.job.kind for v in ui.panel.jobs.views.values()] == [JobKind.IMAGES]
        assert not button.isEnabled()  # one run at a time
    kind, report = done.args
    assert kind is JobKind.IMAGES and sorted(report.imaged) == sorted(written)
    qtbot.waitUntil(lambda: _counts(ui)["Imaged"] == "2", timeout=10_000)
    assert sorted(window.workbench.visible_ids()) == sorted(written)  # in the case list
    assert staged_cases(context_project) == []
    assert not ui.panel.jobs.views  # the job is gone from the panel
    assert validate_project(Project.open(context_project, "alice")).valid
    assert not ui.panel.make_images.isEnabled()  # nothing waits for images any more


def test_cancel_stops_making_images_and_nothing_is_half_written(
    qtbot,
    window: MainWindow,
    context_project: Path,
    pipeline_models: tuple[FakeGemini, PipelineModels],
) -> None:
    server, _ = pipeline_models
    written = _write_specs(context_project, 2)
    server.latency_s = 60.0  # every image is still on its way when Cancel is pressed
    ui = _show_panel(qtbot, window, context_project)
    with qtbot.waitSignal(ui.job_done, timeout=JOB_TIMEOUT_MS) as done:
        qtbot.mouseClick(ui.panel.make_images, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: server.in_flight >= 1, timeout=60_000)
        (view,) = ui.panel.jobs.views.values()
        qtbot.mouseClick(view.cancel, Qt.MouseButton.LeftButton)
        assert "cancelling" in view.label.text()
    _, report = done.args
    assert report.cancelled and report.imaged == []
    assert "client hung up" in server.wait_for_outcomes(1)
    assert not list((context_project / "cases").iterdir())  # no case, whole or in part
    staged = staged_cases(context_project)
    assert [s.case_id for s in staged] == sorted(written)
    assert all(s.state is StagedState.SPECIFIED and not s.made for s in staged)
    assert not [
        p
        for p in context_project.rglob("*")
        if "sabre-tmp" in p.name or p.name.startswith(".import-")
    ]
    qtbot.waitUntil(lambda: not ui.panel.jobs.views, timeout=5_000)
    assert _counts(ui)["Imaged"] == "0" and ui.panel.make_images.isEnabled()


def test_write_specifications_asks_for_a_primer_and_a_number(
    qtbot,
    window: MainWindow,
    context_project: Path,
    pipeline_models: tuple[FakeGemini, PipelineModels],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ui = _show_panel(qtbot, window, context_project)
    assert not ui.panel.make_images.isEnabled()
    assert "Write Specifications" in ui.panel.make_images.toolTip()
    asked: list[WriteSpecsDialog] = []

    def choose(dialog: WriteSpecsDialog) -> int:
        asked.append(dialog)
        assert dialog.primer.currentData() == "context"  # the project's primer
        dialog.n.setValue(3)
        return 1

    monkeypatch.setattr(WriteSpecsDialog, "exec", choose)
    with qtbot.waitSignal(ui.job_done, timeout=JOB_TIMEOUT_MS) as done:
        qtbot.mouseClick(ui.panel.write_specs, Qt.MouseButton.LeftButton)
    kind, report = done.args
    assert asked and kind is JobKind.SPECS and len(report.written) == 3
    qtbot.waitUntil(lambda: _counts(ui)["Specified"] == "3", timeout=10_000)
    assert "Waiting for images: 3" in ui.panel.waiting.text()
    assert ui.panel.make_images.isEnabled()
    assert len(staged_cases(context_project)) == 3


def test_without_a_key_the_buttons_are_disabled_and_say_why(
    qtbot, window: MainWindow, context_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    spec = context_spec(1, ("kitchen counter", "whisk", "screwdriver"))
    stage_spec(context_project, spec["concept_id"], spec)
    ui = _show_panel(qtbot, window, context_project)
    assert _counts(ui)["Specified"] == "1"
    for button in (ui.panel.make_images, ui.panel.write_specs):
        assert not button.isEnabled()
        assert "GEMINI_API_KEY" in button.toolTip()
    assert not ui.make_images()  # the action refuses too, and says why
    assert list((context_project / "generation").iterdir())


def test_a_screening_run_shows_in_the_panel_and_its_cancel_stops_it(
    qtbot,
    window: MainWindow,
    context_project: Path,
    pipeline_models: tuple[FakeGemini, PipelineModels],
) -> None:
    server, _ = pipeline_models
    _make_images(context_project, _write_specs(context_project, 1))
    ui = _show_panel(qtbot, window, context_project)
    server.latency_s = 60.0
    status = window.status.job_strip
    with qtbot.waitSignal(window.screening_ui.finished, timeout=JOB_TIMEOUT_MS) as done:
        assert window.screening_ui.screen_project()
        (view,) = ui.panel.jobs.views.values()
        assert view.job.kind is JobKind.SCREENING and view.job.title == "Screening the project"
        assert status.isVisible() and status.views  # and in the status bar
        qtbot.waitUntil(lambda: server.in_flight >= 1, timeout=60_000)
        qtbot.mouseClick(view.cancel, Qt.MouseButton.LeftButton)
    assert done.args[0] is not None and done.args[0].cancelled
    qtbot.waitUntil(lambda: not ui.panel.jobs.views, timeout=5_000)
    assert not status.isVisible()
    assert _counts(ui)["Screened"] == "0"
