"""A window that fits the screen it opens on, title bar included (a 1366×768 laptop has
about 1366×730 of free area; the window manager's frame is known only once shown)."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

FRAME_ALLOWANCE = 32  # pixels kept for a title bar before the real one is known


def open_within_screen(window: QWidget, width: int, height: int) -> None:
    """The preferred size, never larger than the screen's free area, centred on it."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    window.resize(QSize(min(width, area.width()), min(height, area.height() - FRAME_ALLOWANCE)))
    window.move(area.center() - window.rect().center())


def keep_frame_on_screen(window: QWidget) -> None:
    """Once shown: shrink the window if its frame (title bar, borders) leaves the screen.
    An offscreen render has no screen to fit."""
    screen = window.screen()
    if screen is None or QGuiApplication.platformName() == "offscreen":
        return
    area, frame = screen.availableGeometry(), window.frameGeometry()
    if frame.height() > area.height() or frame.width() > area.width():
        window.resize(
            min(window.width(), area.width() - (frame.width() - window.width())),
            min(window.height(), area.height() - (frame.height() - window.height())),
        )
        window.move(area.topLeft())
