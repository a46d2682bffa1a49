"""Esc in a text field hands the keyboard back to the image.

Without it, a reviewer who typed a note had to click to leave the field (and the next N
was typed into the note); a click on the image no longer makes a box, but a key is quicker.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent


class EscapeToImage(QObject):
    """An event filter: Esc in the watched widgets calls *back* (focus the image)."""

    def __init__(self, back: Callable[[], object], parent: QObject | None = None):
        super().__init__(parent)
        self._back = back

    def watch(self, widget: QObject) -> None:
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
        ):
            self._back()
            return True
        return False
