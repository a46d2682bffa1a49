"""The Notes field: commits after a pause in typing, and never holds more than the reader
of the review accepts (``ground.limits.NOTES``).

A text past the limit — typed or pasted — is not taken: the field goes back to what it
held, and the line under it says by how much it was over (the pasted text is still on the
clipboard, nothing is lost). Otherwise that line says how much room is left.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, QTimer
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget

from sabre_desk.ground import limits

NOTES_COMMIT_MS = 250  # a pause in typing commits the notes (then autosave follows)
#: The notes field is never shorter than this; the room the pane above does not need goes
#: to it (a large screen writes notes in a large field, never in an empty band).
NOTES_LEAST_PX = 64
ROOM_STYLE = "color: palette(mid)"
REFUSED_STYLE = "color: #c62828"


class NotesEdit(QPlainTextEdit):
    """Commits after a pause in typing and when it loses focus; ``room`` (a label the panel
    places under it) shows how much more fits, or why the last change was not taken."""

    def __init__(self, commit: Callable[[str], object], parent: QWidget | None = None):
        super().__init__(parent)
        self._commit = commit
        self.limit = limits.NOTES
        self.room = QLabel()
        self.room.setObjectName("notes_room")
        self._held = ""  # the text last within the limit
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(NOTES_COMMIT_MS)
        self._timer.timeout.connect(self.commit)
        self.textChanged.connect(self._hold_to_limit)
        self.textChanged.connect(self._timer.start)
        self._loading = False
        self._show_room(0)

    def _show_room(self, size: int, refused: str | None = None) -> None:
        if refused is not None:
            self.room.setText(f"Not taken: {refused}.")
            self.room.setStyleSheet(REFUSED_STYLE)
            return
        self.room.setText(f"{self.limit.room(size):,} of {self.limit.words()} left")
        self.room.setStyleSheet(ROOM_STYLE)

    def _hold_to_limit(self) -> None:
        text = self.toPlainText()
        problem = self.limit.problem(len(text))
        if problem is None:
            self._held = text
            self._show_room(len(text))
            return
        at = min(self.textCursor().position(), len(self._held))
        loading, self._loading = self._loading, True
        self.setPlainText(self._held)  # back to what it held: the change is not taken
        self._loading = loading
        cursor = self.textCursor()
        cursor.setPosition(at)
        self.setTextCursor(cursor)
        self._show_room(len(self._held), refused=problem)

    def set_text_quietly(self, text: str) -> None:
        if text != self.toPlainText():
            self._loading = True
            self.setPlainText(text)
            self._loading = False
        self._timer.stop()

    def commit(self) -> None:
        self._timer.stop()
        if not self._loading:
            self._commit(self.toPlainText())

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.commit()
        super().focusOutEvent(event)

    def sizeHint(self) -> QSize:
        """As short as it may be: the pane above is laid out first, the notes take what
        it leaves."""
        return QSize(super().sizeHint().width(), NOTES_LEAST_PX)
