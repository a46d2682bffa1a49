"""The window's smaller promises: its frame on the screen, one Enter to go to a case, a
status bar that keeps its height, the log folder's path where no file manager opens it, and
the docks where the reviewer left them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QComboBox, QDockWidget, QInputDialog, QWidget

from sabre_desk.core.jobs.job_board import JobKind
from sabre_desk.gui.crash_report import FolderPathDialog
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.screen_fit import FRAME_ALLOWANCE, open_within_screen
from sabre_desk.settings import load_settings, save_settings


def when_shown(kind: type[QWidget], act: Callable[[Any], object]) -> None:
    """Once a modal dialog of *kind* is up, *act* on it (the dialog runs its own loop)."""

    def look() -> None:
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, kind):
            act(dialog)
        else:
            QTimer.singleShot(20, look)

    QTimer.singleShot(20, look)


def test_a_window_as_tall_as_the_screen_allows_opens_with_its_frame_on_it(qtbot) -> None:
    window = QWidget()
    qtbot.addWidget(window)
    open_within_screen(window, 5000, 5000)
    area = window.screen().availableGeometry()
    assert window.y() >= area.top()
    assert window.y() + FRAME_ALLOWANCE + window.height() <= area.bottom() + 1
    assert area.left() <= window.x() and window.x() + window.width() <= area.right() + 1


def test_go_to_case_goes_there_with_one_enter(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "attr01_red_triangles")
    enters: list[int] = []

    def type_and_enter(dialog: QWidget) -> None:
        field = dialog.findChild(QComboBox).lineEdit()  # where the dialog's focus is
        QTest.keyClicks(field, "ctx02")
        QTest.keyClick(field, Qt.Key.Key_Return)
        enters.append(1)
        # no 2nd Enter; the timer goes with the dialog (the window may be gone by then)
        QTimer.singleShot(200, dialog, lambda: dialog.isVisible() and dialog.reject())

    when_shown(QInputDialog, type_and_enter)
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.go_to_case()
    assert enters == [1]
    assert window.controller.case.case_id == "ctx02_apple_tennis_ball"


def test_the_status_bar_keeps_its_height_with_a_message_or_a_job(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "ctx01_tape_bagel")
    bar = window.statusBar()
    bar.clearMessage()
    height, images = bar.height(), window.compare.height()
    bar.showMessage("⚠ Repair r1 of ctx01_tape_bagel failed: the engine gave up ▸ see the log")
    job = window.job_board.start(JobKind.SCREENING, "Screening 13 cases", lambda: None)
    QApplication.processEvents()  # its row shows, with a Cancel button
    assert window.status.job_strip.isVisible()
    assert bar.height() == height and window.compare.height() == images
    window.job_board.end(job)


def test_open_log_folder_without_a_file_manager_shows_the_path_to_copy(
    qtbot, window: MainWindow, monkeypatch: pytest.MonkeyPatch, _isolated_settings: Path
) -> None:
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)  # none installed
    shown: list[str] = []

    def copy_and_close(dialog: FolderPathDialog) -> None:
        shown.append(dialog.path.text())
        dialog.copy.click()
        dialog.reject()

    when_shown(FolderPathDialog, copy_and_close)
    (action,) = [a for a in window.actions_.groups["Help"] if a.text() == "Open &Log Folder"]
    action.trigger()
    folder = str(_isolated_settings / "logs")
    assert shown == [folder]
    assert QGuiApplication.clipboard().text() == folder


def test_the_docks_come_back_where_they_were_and_a_damaged_layout_is_ignored(
    make_window: Callable[..., MainWindow],
) -> None:
    first = make_window()
    first.findChild(QDockWidget, "dock_cases").hide()
    first.close()  # the layout is saved with the settings
    assert load_settings()[0].window_state
    second = make_window()
    assert second.findChild(QDockWidget, "dock_cases").isHidden()
    second.close()

    settings, _ = load_settings()
    settings.window_state = "not a layout!"
    save_settings(settings)
    third = make_window()  # opens all the same, every dock where it is by default
    assert third.isVisible()
    assert not third.findChild(QDockWidget, "dock_cases").isHidden()
