"""A crash in the window leaves a log the reviewer can find and send."""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox

from sabre_desk.app_log import log_path
from sabre_desk.gui.crash_report import install_excepthook
from sabre_desk.gui.main_window import MainWindow


def test_an_uncaught_error_is_logged_and_the_dialog_names_the_log(
    qtbot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    monkeypatch.setattr(threading, "excepthook", threading.excepthook)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "critical", lambda parent, title, text: shown.append(text))
    install_excepthook(lambda: None)
    try:
        raise ValueError("a box with no width")
    except ValueError as exc:
        error = exc
    with caplog.at_level(logging.INFO, logger="sabre_desk"):
        sys.excepthook(ValueError, error, error.__traceback__)
        thread = threading.Thread(target=lambda: 1 / 0, name="decoder")
        thread.start()
        thread.join()
    (text,) = shown
    assert "ValueError: a box with no width" in text and str(log_path()) in text
    records = [r for r in caplog.records if r.levelno == logging.CRITICAL]
    assert records[0].exc_info and records[0].exc_info[1] is error  # the traceback is kept
    assert "decoder" in records[1].getMessage() and records[1].exc_info  # other threads too


def test_help_open_log_folder_opens_the_log_folder(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch, _isolated_settings: Path
) -> None:
    opened: list[QUrl] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    (action,) = [a for a in window.actions_.groups["Help"] if a.text() == "Open &Log Folder"]
    action.trigger()
    (url,) = opened
    folder = Path(url.toLocalFile())
    assert folder == _isolated_settings / "logs" and folder.is_dir()
