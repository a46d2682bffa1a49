"""The keyboard's home is the image: a reviewer working from the keys never has to click to
get the decision, box and swipe keys back.

Three leaks are closed here. Tab bars (the docks' Case / Repair / Pipeline tabs) never take
the keyboard: Tab would land on them and Left/Right would switch tabs instead of moving a
box or the swipe divider. When the window is active again after one of its dialogs closed,
the keyboard goes back to the image unless a text field has it (a note being typed keeps
it); coming back from another program, a click may be putting it somewhere on purpose.
A panel closed hands the keyboard to the image, not to whichever tab was behind it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QChildEvent, QEvent, QObject
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QTabBar,
    QWidget,
)

from sabre_desk.gui.desk.focus import tabs_take_no_focus, typing_in
from sabre_desk.gui.machinery.soon import soon_timer


class KeyboardHome(QObject):
    """Watches *window*: its dock tab bars take no focus; when it is active again after a
    dialog the image gets the keyboard (``to_image``) unless a text field has it; a dock
    closed does too (``to_case``: the image and the Case tab)."""

    def __init__(
        self, window: QWidget, to_image: Callable[[], None], to_case: Callable[[], None]
    ) -> None:
        super().__init__(window)
        self._window = window
        self._to_image = to_image
        self._to_case = to_case
        self._in_dialog = False  # the window was left for one of its dialogs
        # Timers of this object (the window's child): they never fire once the window is
        # deleted, and a burst of children added makes one sweep.
        self._sweep_soon = soon_timer(self, self.sweep)
        self._home_soon = soon_timer(self, self._back_home)
        window.installEventFilter(self)
        self.sweep()

    def sweep(self) -> None:
        """No tab bar of the window's docks takes the keyboard."""
        for bar in self._window.findChildren(QTabBar):
            tabs_take_no_focus(bar)

    def watch_dock(self, dock: QDockWidget) -> None:
        dock.toggleViewAction().toggled.connect(lambda shown: shown or self._to_case())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.ChildAdded and isinstance(event, QChildEvent):
            # The docks' tab bars are made as docks are tabbed (a bar is not yet one when
            # it is added): look once it is built.
            self._sweep_soon.start()
        elif kind == QEvent.Type.WindowDeactivate:
            # Left for a dialog (not for another program: coming back from one, a click may
            # be putting the keyboard somewhere on purpose).
            self._in_dialog = any(
                isinstance(w, QDialog) and w.isVisible() for w in QApplication.topLevelWidgets()
            )
        elif kind == QEvent.Type.WindowActivate and self._in_dialog:
            self._in_dialog = False
            # After the dialog's own focus handling: the widget it gives back is known then.
            self._home_soon.start()
        return False

    def _back_home(self) -> None:
        focused = QApplication.focusWidget()
        if not self._window.isActiveWindow() or typing_in(focused):
            return
        self._to_image()
