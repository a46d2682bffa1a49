"""The status bar: where the pointer is on which image at what zoom, whether the open case's
review is saved, the jobs running, and the messages of the window, each for as long as it is
true."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QLabel, QStatusBar

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.jobs.job_board import JobBoard
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import SaveState
from sabre_desk.gui.machinery.job_views import JobStrip

SAVE_STATE_TEXT = {
    SaveState.SAVED: ("✓ Saved", "#2e7d32"),
    SaveState.PENDING: ("● Saving…", "#e8a33d"),
    SaveState.ERROR: ("✗ Not saved", "#c62828"),
    SaveState.CONFLICT: ("✗ Changed on disk", "#c62828"),
    SaveState.READ_ONLY: ("Read-only", "#757575"),
}


def pane_name(caption: str) -> str:
    """What a pane shows, for the status bar: its caption up to the first " · " ("Repair r3
    · patchmatch · preview" is "repair r3", "Edited (current)" is "edited (current)"). In a
    repair comparison the two canvases show the repaired image and the preview whatever
    their roles: named by role, the bar said "base" over the Edited image."""
    name = caption.split(" · ", 1)[0].strip()
    return name[:1].lower() + name[1:]


class PositionLabel(QLabel):
    def show_position(self, name: str, zoom: float, xy: tuple[int, int] | None) -> None:
        """*xy*: the image pixel under the pointer (None: off the image)."""
        where = f"  x {xy[0]}  y {xy[1]}" if xy is not None else ""
        self.setText(f"{name}{where}  ·  {zoom * 100:.0f}%")


class SaveLabel(QLabel):
    def show_state(self, state: SaveState, detail: str) -> None:
        text, color = SAVE_STATE_TEXT[state]
        self.setText(text)
        self.setStyleSheet(f"color: {color}; font-weight: 600; padding: 0 6px")
        self.setToolTip(detail or text)
        self.setProperty("state", state)


class WindowStatus(QObject):
    """The status bar: its lasting labels, the jobs running, and messages.

    A message about the case on screen belongs to it: it is cleared when the reviewer opens
    another case, so "No repair preview to accept is shown" never reads as a fact of the
    next one. Messages about the project (or naming their case) stay for their time.
    """

    def __init__(self, bar: QStatusBar, compare: CompareView, board: JobBoard):
        super().__init__(bar)
        self.bar, self.compare = bar, compare
        self.position_label = PositionLabel()
        self.save_label = SaveLabel()
        self.job_strip = JobStrip(board, parent=bar)
        for widget in (self.position_label, self.save_label, self.job_strip):
            bar.addPermanentWidget(widget)
        # As tall as a running job's row from the start: a message or a job appearing never
        # changes its height and shifts the images above it.
        bar.setFixedHeight(max(bar.sizeHint().height(), self.job_strip.row_height() + 4))
        for role, canvas in compare.canvases.items():
            canvas.cursor_moved.connect(lambda xy, r=role: self.show_position(r, xy))
            canvas.view_changed.connect(lambda r=role: self.show_position(r, None))
        #: the message shown that belongs to a case, and that case
        self._case_message: tuple[str, str] | None = None
        #: what the bar says when no message is shown: the project, the reviewer, the count
        self._resting = ""
        bar.messageChanged.connect(self._back_to_rest)

    def rest(self, text: str) -> None:
        """Show *text* now and again whenever a passing message ends."""
        self._resting = text
        self.bar.showMessage(text)

    def _back_to_rest(self, text: str) -> None:
        if not text and self._resting:
            self.bar.showMessage(self._resting)

    def say(self, text: str, ms: int = 8000, case_id: str = "") -> None:
        """Show *text* for *ms*; with *case_id*, only while that case is open."""
        self._case_message = (text, case_id) if case_id else None
        self.bar.showMessage(text, ms)

    def case_opened(self, case_id: str) -> None:
        """Another case is on screen: a message about the last one goes with it."""
        held = self._case_message
        if held is not None and held[1] != case_id:
            self._case_message = None
            if self.bar.currentMessage() == held[0]:
                self.bar.clearMessage()

    def show_zoom(self) -> None:
        """The label names an image of this case at its zoom now, never the last's."""
        canvas = self.compare.active_canvas()
        role = next((r for r, c in self.compare.canvases.items() if c is canvas), None)
        if role is not None:
            self.show_position(role, None)

    def show_position(self, role: ImageRole, xy: tuple[int, int] | None) -> None:
        """The pane under the pointer named by what it shows (its caption), else its role."""
        name = pane_name(self.compare.captions[role].text()) or role.value
        self.position_label.show_position(name, self.compare.canvases[role].screen_zoom, xy)
