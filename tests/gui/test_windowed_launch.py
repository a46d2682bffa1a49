"""The windowed launcher (`sabre-desk-gui`: the bundle's program with no console on Windows,
the one inside the macOS .app) says why a start failed in a message box; and a project
opened from Finder arrives as a file-open event that opens it."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtGui import QFileOpenEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from sabre_desk import gui_main
from sabre_desk.gui.app import FileOpenRequests
from sabre_desk.gui.main_window import MainWindow


@pytest.fixture
def boxes_shown(qtbot) -> Iterator[list[str]]:
    """The texts of the message boxes that open during the test (each closed once read)."""
    shown: list[str] = []
    watching = [True]

    def read() -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            shown.append(box.text())
            box.close()
        if watching[0]:
            QTimer.singleShot(20, read)

    QTimer.singleShot(0, read)
    yield shown
    watching[0] = False
    qtbot.wait(50)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["open", "no-such-project"], "no-such-project: does not exist"),
        (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
def test_a_windowed_start_that_fails_says_why_in_a_message_box(
    boxes_shown: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    args: list[str],
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdout", None)  # what Windows gives a windowed program
    monkeypatch.setattr(sys, "stderr", None)
    assert gui_main.main(args) == 2
    assert len(boxes_shown) == 1 and said in boxes_shown[0]
    assert sys.stdout is None and sys.stderr is None


def test_with_a_console_the_windowed_launcher_prints_like_the_cli(
    qtbot,
    boxes_shown: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert gui_main.main(["open", "no-such-project"]) == 2
    qtbot.wait(100)
    assert "no-such-project: does not exist" in capsys.readouterr().err
    assert boxes_shown == []


def test_a_project_opened_from_finder_opens_in_the_window(
    make_window: Callable[..., MainWindow], demo_project: Path
) -> None:
    window = make_window()
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    requests = FileOpenRequests(app, window.open_project)
    try:
        QApplication.sendEvent(app, QFileOpenEvent(str(demo_project / "sabre-project.json")))
        assert window.controller is not None
        assert window.controller.project.root == demo_project.resolve()
        assert "sabre-desk demo" in window.windowTitle()
    finally:
        app.removeEventFilter(requests)
