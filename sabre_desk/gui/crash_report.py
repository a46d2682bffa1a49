"""What the window does with an error nobody caught: log it, and tell the reviewer where.

An exception escaping a slot or an event handler would otherwise be printed to a terminal
the reviewer does not have. The hook writes the traceback to the app's log and shows a
dialog naming the log file, so there is something to send; the reviews are saved as the
reviewer works, which the dialog says too. Errors in other threads are logged as well.

A windowed launch that fails before there is a window (``sabre-desk-gui`` on Windows has no
console to print to) shows what the command would have printed (``show_startup_error``).
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.app_log import log_dir, log_path

log = logging.getLogger("sabre_desk.gui")


def crash_message(exc: BaseException) -> str:
    return (
        f"Something went wrong that sabre-desk did not expect:\n\n{type(exc).__name__}: {exc}"
        f"\n\nThe details are in the log file:\n{log_path()}\n\nPlease send that file with a "
        "description of what you were doing. Your decisions and notes are saved as you work; "
        "you can go on, or restart sabre-desk if the window misbehaves."
    )


def install_excepthook(parent: Callable[[], QWidget | None]) -> None:
    """Log every uncaught exception (GUI thread and others); on the GUI thread also show
    the dialog, in front of *parent* (the main window, when there is one)."""

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        log.critical("uncaught error", exc_info=(kind, exc, tb))
        QMessageBox.critical(parent(), "sabre-desk: unexpected error", crash_message(exc))

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            exc_info = (args.exc_type, args.exc_value, args.exc_traceback)
            log.critical("uncaught error in thread %s", args.thread, exc_info=exc_info)

    sys.excepthook = hook
    threading.excepthook = thread_hook


def show_startup_error(text: str) -> None:
    """Show why sabre-desk could not start, in a message box, and wait until it is closed."""
    _app = QApplication.instance() or QApplication(sys.argv[:1])
    box = QMessageBox(QMessageBox.Icon.Critical, "sabre-desk could not start", text)
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.exec()


class FolderPathDialog(QDialog):
    """Where a folder is, when no file manager could show it: its path, to copy."""

    def __init__(self, folder: Path, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Log Folder")
        note = QLabel("No file manager opened the log folder. It is here:")
        self.path = QLineEdit(str(folder))
        self.path.setReadOnly(True)
        self.path.setMinimumWidth(self.path.fontMetrics().horizontalAdvance(str(folder)) + 24)
        self.copy = QPushButton("Copy Path")
        self.copy.clicked.connect(self._copy)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.copy, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(note)
        layout.addWidget(self.path)
        layout.addWidget(buttons)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.path.text())
        self.copy.setText("Copied")


def open_log_folder(parent: QWidget | None = None) -> QUrl:
    """Help > Open Log Folder: the folder in the desktop's file manager (made if missing);
    where none opens it, a dialog says where it is and copies its path."""
    folder = log_dir()
    folder.mkdir(parents=True, exist_ok=True)
    url = QUrl.fromLocalFile(str(folder))
    if not QDesktopServices.openUrl(url):
        FolderPathDialog(folder, parent).exec()
    return url
