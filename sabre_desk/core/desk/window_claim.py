"""One writable window per reviewer and project on a computer.

Two windows of one reviewer on one project each save that reviewer's review: the second
save is refused as a conflict, and the reviewer is left to wonder which window holds the
work. So the window that opens a project first claims it (an OS lock: released by the
kernel when the window's process dies, so a killed window never blocks the next), and a
second window is told who holds it and offered the project read-only.

The claim lives in this user's cache folder for the project (``windows/<reviewer>.lock`` and
a ``.json`` beside it saying who and since when), never in the project: a synced drive or
git clone carries nothing of it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from sabre_desk.core.case.locks import LockOwner, this_host
from sabre_desk.core.case.preview_cache import user_cache_folder
from sabre_desk.core.case.review import utc_now
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.storage import atomic_write_json, read_json

WINDOWS_DIR = "windows"


@dataclass
class WindowClaim:
    """Held while the window has the project open; ``release`` when it closes or moves on."""

    lock: FileLock
    record: Path

    def release(self) -> None:
        with contextlib.suppress(OSError):
            self.record.unlink()
        self.lock.release()


@dataclass(frozen=True)
class ClaimedElsewhere:
    """Another window holds the project for this reviewer: who, where, since when."""

    owner: LockOwner | None

    def describe(self) -> str:
        if self.owner is None:
            return "another window (it did not say which)"
        owner = self.owner
        return f"a window on {owner.host} (process {owner.pid}, open since {owner.since})"


def _paths(root: Path, reviewer: str) -> tuple[Path, Path]:
    folder = user_cache_folder(root) / WINDOWS_DIR
    return folder / f"{reviewer}.lock", folder / f"{reviewer}.json"  # a checked reviewer name


def claim_project(root: Path, reviewer: str) -> WindowClaim | ClaimedElsewhere | None:
    """Claim *root* for *reviewer*'s window. None when no claim can be made here (the cache
    folder cannot be written): the project opens as before, unguarded."""
    lock_path, record = _paths(root, reviewer)
    try:
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(lock_path, timeout=0, is_singleton=False)
        lock.acquire()
    except Timeout:
        try:
            data, _ = read_json(record, "lock", ProjectError, follow_links=False)
            return ClaimedElsewhere(LockOwner.model_validate(data))
        except (ProjectError, ValueError):
            return ClaimedElsewhere(None)
    except OSError:
        return None
    owner = LockOwner(
        reviewer=reviewer, host=this_host(), pid=os.getpid(), since=utc_now(), action="window"
    )
    # if this fails, the lock alone still guards; a second window then cannot say who
    with contextlib.suppress(OSError, ProjectError):
        atomic_write_json(record, owner.model_dump(mode="json"))
    return WindowClaim(lock, record)
