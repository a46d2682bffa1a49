"""`sabre-desk open` acts as the reviewer the command line names, with ``--reviewer``
before or after the command (or before the project alone, `open` left out): the window's
status bar says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from sabre_desk.cli import main
from sabre_desk.gui.main_window import MainWindow


@pytest.mark.parametrize("where", ["before", "after", "before the project alone"])
def test_open_shows_the_flag_s_reviewer_in_the_status_bar(
    where: str, qtbot, demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[str] = []

    def look() -> None:
        windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
        if not windows or not windows[-1].statusBar().currentMessage():
            QTimer.singleShot(50, look)
            return
        seen.append(windows[-1].statusBar().currentMessage())

    QTimer.singleShot(0, look)
    shot = tmp_path / "shot.png"
    command = ["open", str(demo_project), "--screenshot", str(shot)]
    argv = {
        "before": ["--reviewer", "alice", *command],
        "after": [*command, "--reviewer", "alice"],
        # `sabre-desk --reviewer alice PROJECT`: short for `open PROJECT`, flag first
        "before the project alone": ["--reviewer", "alice", *command[1:]],
    }[where]
    assert main(argv) == 0, capsys.readouterr().err
    assert seen and "reviewer alice" in seen[0], seen
    for window in QApplication.topLevelWidgets():
        if isinstance(window, MainWindow):
            window.close()
