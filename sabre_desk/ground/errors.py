"""Typed errors that carry the file and a reason a person can act on.

Every error raised by the core names *where* (a file or a case) and *why*, so the CLI can
print it on one line and the GUI can show it next to the case without losing the rest of
the project.
"""

from __future__ import annotations

from pathlib import Path


class ProjectError(Exception):
    """Base of every problem with a project, a case or one of their files."""

    def __init__(self, reason: str, path: Path | str | None = None, case_id: str | None = None):
        self.reason = reason
        self.path = Path(path) if path is not None else None
        self.case_id = case_id
        super().__init__(self.message)

    def __reduce__(self) -> tuple[type[ProjectError], tuple[str, Path | None, str | None]]:
        # Comes back from a worker process whole: the file and the reason, not one string.
        return (type(self), (self.reason, self.path, self.case_id))

    @property
    def message(self) -> str:
        where = str(self.path) if self.path is not None else (self.case_id or "")
        return f"{where}: {self.reason}" if where else self.reason


class NotAProjectError(ProjectError):
    """The folder is not a sabre-desk project at all (no or unreadable manifest)."""


class CaseLoadError(ProjectError):
    """One case cannot be loaded; the rest of the project is unaffected."""


class SpecError(CaseLoadError):
    """spec.json is unreadable or breaks the Sample Specification rules."""


class ScreeningError(CaseLoadError):
    """screening.json is unreadable or malformed."""


class ReviewError(CaseLoadError):
    """A review file is unreadable or malformed."""


class ImageError(CaseLoadError):
    """An image is missing, truncated, undecodable, too large or outside the project."""


class StorageError(ProjectError):
    """A write could not be completed; the previous file is still in place."""


class ReadOnlyProjectError(StorageError):
    """The project folder cannot be written to; it is open for reading only."""


class LockBusyError(StorageError):
    """Another window (or process) holds the lock on this file; nothing was done."""


class ReviewConflictError(StorageError):
    """The review file changed on disk since it was read (another window or person)."""


class RepairError(ProjectError):
    """A repair could not be made (bad input, an engine failure, an unusable reply)."""


class EngineUnavailableError(RepairError):
    """An engine cannot run here (no API key, no network, an operation it cannot do)."""
