"""File > Export from the window: off the GUI thread, with progress, cancellable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from sabre_desk.core.release import verify
from sabre_desk.core.review import Decision
from sabre_desk.gui.dialogs.export_dialog import export_release
from sabre_desk.gui.main_window import MainWindow


def test_export_from_the_window(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    told: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda *a, **k: told.append(a[2]))
    open_case(window, demo_project, "ctx01_tape_bagel")
    window.controller.set_decision(Decision.KEEP)  # not yet saved: the export saves first
    run = export_release(window, tmp_path / "release")
    assert run is not None
    with qtbot.waitSignal(run.finished, timeout=30000) as done:
        pass
    summary = done.args[0]
    assert summary is not None and summary.cases == 1
    assert verify(tmp_path / "release").ok
    assert told and "1 cases" in told[0]
    rows = (tmp_path / "release" / "benchmark.jsonl").read_text().splitlines()
    assert [json.loads(r)["case_id"] for r in rows] == ["ctx01_tape_bagel"] * 4


def test_a_cancelled_export_writes_nothing(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    tmp_path: Path,
) -> None:
    open_case(window, demo_project)
    run = export_release(window, tmp_path / "release")
    assert run is not None
    run.cancel.set()  # as the Cancel button does
    with qtbot.waitSignal(run.finished, timeout=30000) as done:
        pass
    assert done.args[0] is None
    assert not (tmp_path / "release").exists()
    assert "cancelled" in window.statusBar().currentMessage()
