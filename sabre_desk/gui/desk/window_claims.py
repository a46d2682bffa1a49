"""A second window of the same reviewer on the same project is told who has it open and
offered it read-only (the claim itself is Qt-free: ``core.desk.window_claim``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QMessageBox, QWidget

from sabre_desk.core.case.manifest import project_folder
from sabre_desk.core.desk.window_claim import ClaimedElsewhere, WindowClaim, claim_project
from sabre_desk.gui.desk.session import OpenAs

READ_ONLY = "Open read-only"


def second_window_text(reviewer: str, elsewhere: ClaimedElsewhere) -> str:
    return (
        f"{reviewer} already has this project open in {elsewhere.describe()}. Two windows "
        f"would each save {reviewer}'s review, and the second save would be refused. "
        "Open it read-only here, or go to that window."
    )


class WindowClaims:
    """The claim of the project this window has open; a new one is taken before a project
    opens and the old one let go only once the new project is open."""

    def __init__(self, parent: QWidget, unattended: Callable[[], bool]) -> None:
        self.parent, self.unattended = parent, unattended
        self.held: tuple[Path, str, WindowClaim] | None = None
        self._pending: tuple[Path, str, WindowClaim] | None = None

    def before_open(self, path: Path, reviewer: str) -> OpenAs:
        """Writable (claimed, or no claim can be made here), read-only, or not at all."""
        root = project_folder(Path(path)).expanduser().absolute()
        self.not_opened()
        if self.held is not None and self.held[:2] == (root, reviewer):
            self._pending = self.held  # this window has it already
            return OpenAs.WRITABLE
        outcome = claim_project(root, reviewer)
        if isinstance(outcome, WindowClaim):
            self._pending = (root, reviewer, outcome)
            return OpenAs.WRITABLE
        if outcome is None:
            return OpenAs.WRITABLE
        text = second_window_text(reviewer, outcome)
        if self.unattended():
            print(f"sabre-desk: {text} Opened read-only.", file=sys.stderr)
            return OpenAs.READ_ONLY
        box = QMessageBox(QMessageBox.Icon.Information, "Open in another window", text)
        box.setObjectName("secondWindow")
        read_only = box.addButton(READ_ONLY, QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(read_only)
        box.exec()
        chosen = box.clickedButton() is read_only
        box.deleteLater()
        return OpenAs.READ_ONLY if chosen else OpenAs.NOT_AT_ALL

    def opened(self) -> None:
        """The project asked for is open: its claim (none, when read-only) is the one held
        now, and the last project's is let go."""
        if self._pending is not self.held:
            self.release()
        self.held, self._pending = self._pending, None

    def not_opened(self) -> None:
        """The project asked for did not open: a claim taken for it is let go."""
        if self._pending is not None and self._pending is not self.held:
            self._pending[2].release()
        self._pending = None

    def release(self) -> None:
        if self.held is not None:
            self.held[2].release()
            self.held = None
