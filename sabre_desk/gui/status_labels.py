"""The status bar's two lasting labels: where the pointer is on which image at what zoom,
and whether the open case's review is saved."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.controller import SaveState

SAVE_STATE_TEXT = {
    SaveState.SAVED: ("✓ Saved", "#2e7d32"),
    SaveState.PENDING: ("● Saving…", "#e8a33d"),
    SaveState.ERROR: ("✗ Not saved", "#c62828"),
    SaveState.CONFLICT: ("✗ Changed on disk", "#c62828"),
    SaveState.READ_ONLY: ("Read-only", "#757575"),
}


class PositionLabel(QLabel):
    def show_position(self, role: ImageRole, zoom: float, xy: tuple[int, int] | None) -> None:
        """*xy*: the image pixel under the pointer (None: off the image)."""
        where = f"  x {xy[0]}  y {xy[1]}" if xy is not None else ""
        self.setText(f"{role.value}{where}  ·  {zoom * 100:.0f}%")


class SaveLabel(QLabel):
    def show_state(self, state: SaveState, detail: str) -> None:
        text, color = SAVE_STATE_TEXT[state]
        self.setText(text)
        self.setStyleSheet(f"color: {color}; font-weight: 600; padding: 0 6px")
        self.setToolTip(detail or text)
        self.setProperty("state", state)
