"""File > Export from the window: off the GUI thread, with progress, cancellable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QDialog, QMessageBox

from sabre_desk.core.case.review import Decision
from sabre_desk.core.release.release import verify
from sabre_desk.gui.evaluation.export_dialog import export_release
from sabre_desk.gui.evaluation.export_options import ExportOptionsDialog
from sabre_desk.gui.main_window import MainWindow


def test_export_from_the_window(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """File > Export Release…: the reviewer says what the release is (a new folder, its
    name, its licence, the reviews a case needs: the command's options); it runs behind."""
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    asked: list[str] = []

    def choose(dialog: ExportOptionsDialog) -> int:
        asked.append(dialog.folder.text())
        assert dialog.name.placeholderText() == "sabre_desk_demo"  # the command's default
        assert dialog.license.currentText() == "(none chosen yet)"
        assert [d for d, box in dialog.decisions.items() if box.isChecked()] == [Decision.KEEP]
        dialog.folder.setText(str(demo_project))  # a folder that exists is refused
        assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
        dialog.folder.setText(str(tmp_path / "release"))
        dialog.name.setText("desk_bench")
        dialog.license.setCurrentIndex(dialog.license.findData("cc-by-4.0"))
        dialog.min_reviews.setValue(1)
        assert dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
        return QDialog.DialogCode.Accepted.value

    monkeypatch.setattr(ExportOptionsDialog, "exec", choose)
    open_case(window, demo_project, "ctx01_tape_bagel")
    window.controller.set_decision(Decision.KEEP)  # not yet saved: the export saves first
    (action,) = [a for a in window.actions_.groups["File"] if a.text() == "&Export Release…"]
    assert action.shortcut().toString() == "Ctrl+Shift+E"
    action.trigger()
    qtbot.waitUntil(lambda: bool(told), timeout=30000)
    assert asked == [str(demo_project.parent / "demo-release")]
    assert verify(tmp_path / "release").ok
    assert "Exported 1 cases" in window.statusBar().currentMessage()
    # the report says why the other twelve cases are not in the release
    assert "Not exported: 12 case(s) (12 not decided):" in told[0]
    assert told and "1 cases" in told[0]
    rows = (tmp_path / "release" / "benchmark.jsonl").read_text().splitlines()
    assert [json.loads(r)["case_id"] for r in rows] == ["ctx01_tape_bagel"] * 4
    release = json.loads((tmp_path / "release" / "release.json").read_text())
    assert release["name"] == "desk_bench"
    assert "license: cc-by-4.0" in (tmp_path / "release" / "README.md").read_text()


def test_a_cancelled_export_writes_nothing(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    tmp_path: Path,
) -> None:
    open_case(window, demo_project)
    run = export_release(window.session, window.pool, window, tmp_path / "release")
    assert run is not None
    run.cancel.set()  # as the Cancel button does
    with qtbot.waitSignal(run.finished, timeout=30000) as done:
        pass
    assert done.args[0] is None
    assert not (tmp_path / "release").exists()
    assert "cancelled" in window.statusBar().currentMessage()


def test_the_report_names_each_case_left_out_and_why() -> None:
    from sabre_desk.gui.evaluation.export_dialog import LEFT_OUT_SHOWN, left_out_text

    skipped = [f"case{i}: reviewers disagree (alice: keep; bob: unsure)" for i in range(20)]
    text = left_out_text(skipped, "20 disputed")
    assert "Not exported: 20 case(s) (20 disputed):" in text
    assert text.count("• ") == LEFT_OUT_SHOWN and "case0: reviewers disagree" in text
    assert "… and 5 more, all listed in release.json" in text
    assert left_out_text([], "") == ""
