"""A window that fits the screen it opens on, title bar included (a 1366×768 laptop has
about 1366×730 of free area; the window manager's frame is known only once shown), and that
remembers its place per screen: a laptop used with and without a large monitor gets back the
layout of the screen it is on, never a 2560-pixel window on a 1366-pixel screen."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

from PySide6.QtCore import QByteArray, QEvent, QObject, QSize
from PySide6.QtGui import QGuiApplication, QScreen
from PySide6.QtWidgets import QMainWindow, QWidget

FRAME_ALLOWANCE = 32  # pixels kept for a title bar before the real one is known


def open_within_screen(window: QWidget, width: int, height: int) -> None:
    """The preferred size, never larger than the screen's free area, centred on it."""
    screen = window.screen() or QGuiApplication.primaryScreen()
    if screen is None:
        window.resize(width, height)
        return
    area = screen.availableGeometry()
    window.resize(QSize(min(width, area.width()), min(height, area.height() - FRAME_ALLOWANCE)))
    # Centred with its frame: the title bar above it counts, or a window as tall as the
    # screen allows ends below the screen's edge by half of it.
    left = area.left() + (area.width() - window.width()) // 2
    top = area.top() + (area.height() - window.height() - FRAME_ALLOWANCE) // 2
    window.move(left, max(area.top(), top))


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
    elif not area.contains(frame):  # it fits, but hangs over an edge: moved onto the screen
        x = min(max(frame.left(), area.left()), area.right() + 1 - frame.width())
        y = min(max(frame.top(), area.top()), area.bottom() + 1 - frame.height())
        window.move(x, y)


class FrameOnScreen(QObject):
    """Keeps *window*'s frame on the screen: checked when first shown, and once more when
    first active (the window manager has framed it by then; its frame was not known when
    shown). Not while *unattended* (a screenshot rendered offscreen has no screen)."""

    def __init__(self, window: QWidget, unattended: Callable[[], bool]) -> None:
        super().__init__(window)
        self._window, self._unattended = window, unattended
        self._left = {QEvent.Type.Show, QEvent.Type.WindowActivate}  # checks still to make
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in self._left:
            self._left.discard(kind)
            if not self._unattended():
                keep_frame_on_screen(self._window)
            if not self._left:
                self._window.removeEventFilter(self)
        return False


def screen_key(screen: QScreen) -> str:
    size = screen.geometry().size()
    return f"{screen.name()} {size.width()}x{size.height()}"


def remember_geometry(window: QWidget, store: dict[str, str]) -> dict[str, str]:
    """*store* with the window's geometry for the screen it is on, most recent last."""
    screen = window.screen()
    if screen is None:
        return store
    key = screen_key(screen)
    kept = {k: v for k, v in store.items() if k != key}
    kept[key] = base64.b64encode(window.saveGeometry().data()).decode()
    return kept


def restore_geometry(window: QWidget, store: dict[str, str]) -> bool:
    """The geometry last used on a screen that is connected now; False when there is none
    (or it is damaged), and the window keeps the size it fits the screen with."""
    connected = {screen_key(s) for s in QGuiApplication.screens()}
    for key in reversed(list(store)):
        if key in connected:
            try:
                return window.restoreGeometry(QByteArray(base64.b64decode(store[key])))
            except (binascii.Error, ValueError):
                return False
    return False


def dock_state(window: QMainWindow) -> str:
    """Where the docks are, as text for the settings file."""
    return base64.b64encode(window.saveState().data()).decode()


def restore_docks(window: QMainWindow, state: str | None) -> bool:
    """The docks put back where *state* says; False when there is none or it is damaged
    (the docks stay where they are)."""
    if not state:
        return False
    try:
        return window.restoreState(QByteArray(base64.b64decode(state)))
    except (binascii.Error, ValueError):
        return False
