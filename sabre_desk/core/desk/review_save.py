"""One save of a review, taken from the case editor and written elsewhere.

The window must not wait for the disk: a write and its ``fsync`` can take tens of
milliseconds (far more on a network drive or a failing disk). So the editor hands out a
``ReviewSave`` — a copy of the review and the history events it owes — that a save thread
writes; the editor learns the outcome when the window acknowledges it
(``CaseEditor.end_save``), and only then says "saved". The case itself is never touched
off the window's thread: the copy is written, the new fingerprint comes back.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sabre_desk.core.case.project import Case, Project, write_review_file
from sabre_desk.core.case.review import Review
from sabre_desk.ground.errors import ProjectError, StorageError


@dataclass
class ReviewSave:
    case: Case
    review: Review  # a copy: the reviewer goes on changing the case's own
    events: list[tuple[str, dict[str, Any]]]
    expected: str | None  # the fingerprint of the file this window last read or wrote
    force: bool
    version: int  # the editor's change count when the copy was taken
    #: after ``write``: the new file's fingerprint, or why it was not written
    fingerprint: str | None = None
    error: ProjectError | None = None
    history_error: StorageError | None = None

    @property
    def path(self) -> Path:
        return self.case.review_path

    def write(self, project: Project) -> None:
        """Write the review, then its history events (on any thread; raises nothing)."""
        try:
            self.fingerprint = write_review_file(
                self.path,
                self.review,
                self.expected,
                self.force,
                project.read_only,
                self.case.case_id,
            )
        except ProjectError as exc:
            self.error = exc
            return
        try:
            for event, data in self.events:
                project.record(self.case, event, data)
        except StorageError as exc:
            self.history_error = exc
