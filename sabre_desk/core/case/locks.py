"""The lock on a case's images while a repair is accepted or reverted, and who holds it.

The lock itself is the OS's (``filelock``: released by the kernel when its holder dies, so
a killed window never blocks the others): ``cases/<id>/.repairs.lock``. Beside it the
holder writes ``.repairs.lock.json`` — reviewer, computer, process and since when — so that
another window can say who is busy, and so that a lock whose holder is evidently gone can
be broken with the reviewer's confirmation: its process no longer runs on this computer,
or it has held the lock far longer than any accept takes (a hung program, or a computer
cut off from a network drive whose server still holds its lock). Breaking removes both
files; the next accept makes a new lock file, so even a holder that never lets go of the
old one no longer stands in the way.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock, Timeout
from pydantic import BaseModel, ConfigDict, ValidationError

from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.errors import LockBusyError, ProjectError
from sabre_desk.ground.storage import (
    LOCK_TIMEOUT_S,
    TEMP_SUFFIX,
    atomic_write_json,
    file_lock,
    read_json,
)
from sabre_desk.imaging.io import IMAGE_EXTENSIONS

#: The folder whose lock guards a case's images (``file_lock`` names it ``.repairs.lock``).
GUARDED = "repairs"
LOCK_NAME = ".repairs.lock"
OWNER_NAME = ".repairs.lock.json"
#: The names a case's images have, less their extension (``ROLE.EXT``).
IMAGE_ROLES = frozenset(role.value for role in ImageRole)
#: An accept copies at most a few hundred MB; a lock held for this long is presumed stuck.
STALE_AFTER_S = 600.0


class LockOwner(BaseModel):
    """.repairs.lock.json: who holds the lock, for what, since when."""

    model_config = ConfigDict(extra="allow")

    reviewer: str
    host: str
    pid: int
    since: str
    action: str = "accept"

    def describe(self) -> str:
        return (
            f"{self.reviewer} on {self.host} ({self.action} since {self.since}, process {self.pid})"
        )

    def age_s(self, now: datetime | None = None) -> float | None:
        try:
            since = datetime.strptime(self.since, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
        except ValueError:
            return None
        return ((now or datetime.now(UTC)) - since).total_seconds()


class CaseLockedError(LockBusyError):
    """Another window holds the lock on this case's images; *owner* says who (if known)."""

    def __init__(self, reason: str, path: Path, owner: LockOwner | None):
        super().__init__(reason, path)
        self.owner = owner


def this_host() -> str:
    return socket.gethostname() or "this computer"


def read_owner(folder: Path) -> LockOwner | None:
    """The owner record as written (None when absent or unreadable)."""
    path = folder / OWNER_NAME
    if not path.is_file():
        return None
    try:
        data, _ = read_json(path, "lock", ProjectError, follow_links=False)
        return LockOwner.model_validate(data)
    except (ProjectError, ValidationError):
        return None


@contextlib.contextmanager
def case_lock(
    folder: Path, reviewer: str, action: str, timeout_s: float = LOCK_TIMEOUT_S
) -> Iterator[None]:
    """Hold the case's image lock for *action* ("accept", "revert", "recover"), saying so."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(file_lock(folder / GUARDED, timeout_s))
        except LockBusyError as exc:
            owner = read_owner(folder)
            who = f": {owner.describe()}" if owner else " (it did not say who)"
            raise CaseLockedError(
                f"another window holds the lock on this case's images{who}; nothing was done",
                folder / LOCK_NAME,
                owner,
            ) from exc
        remove_orphans(folder)
        owner_path = folder / OWNER_NAME
        record = LockOwner(
            reviewer=reviewer, host=this_host(), pid=os.getpid(), since=utc_now(), action=action
        )
        atomic_write_json(owner_path, record.model_dump(mode="json"))
        stack.callback(_remove, owner_path)
        yield


def _orphan_of(name: str, image_names: bool) -> bool:
    """Whether *name* is the temp file (``.NAME.XXXX.sabre-tmp``, ``ground.storage``) of a
    file only a holder of the case lock writes: the lock's owner record, a case image
    (``ROLE.EXT``), or (*image_names* False: any name, in ``repairs/backups/``) a backup."""
    if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
        return False
    written = name[1 : -len(TEMP_SUFFIX)].rpartition(".")[0]
    if not image_names:
        return True
    stem, _, ext = written.rpartition(".")
    return written == OWNER_NAME or (stem in IMAGE_ROLES and f".{ext.lower()}" in IMAGE_EXTENSIONS)


def clear_orphans(folder: Path, timeout_s: float = 1.0) -> list[Path]:
    """`validate --fix`: take the case's image lock (CaseLockedError when a window holds it:
    its temps may be a write under way) and remove what killed writers left; returns them."""
    try:
        with file_lock(folder / GUARDED, timeout_s):
            return remove_orphans_listed(folder)
    except LockBusyError as exc:
        owner = read_owner(folder)
        who = f": {owner.describe()}" if owner else ""
        raise CaseLockedError(
            f"another window holds the lock on this case's images{who}; not cleaned",
            folder / LOCK_NAME,
            owner,
        ) from exc


def remove_orphans(folder: Path) -> int:
    """Remove what killed accepts, reverts and recoveries of this case left half-written:
    temp copies of its images and backups, and of the lock's owner record; returns how many.
    Called only with the case lock held, so none of them can belong to a write under way
    (reviews and other files, written under their own locks, are never touched)."""
    return len(remove_orphans_listed(folder))


def remove_orphans_listed(folder: Path) -> list[Path]:
    """remove_orphans, returning the files removed."""
    removed: list[Path] = []
    for where, image_names in ((folder, True), (folder / GUARDED / "backups", False)):
        try:
            entries = list(os.scandir(where))
        except OSError:
            continue
        for entry in entries:
            if _orphan_of(entry.name, image_names) and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    Path(entry.path).unlink()
                    removed.append(Path(entry.path))
    return removed


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


def holder(folder: Path) -> LockOwner | None:
    """Who holds the lock now; None when nobody does.

    Only a folder with an owner record is probed (so merely looking creates no file): the
    record outlives a holder that was killed, so the OS lock is tried once, and a record
    left behind is removed while the lock is held."""
    owner = read_owner(folder)
    if owner is None:
        return None
    probe = FileLock(folder / LOCK_NAME, timeout=0)
    try:
        probe.acquire()
    except Timeout:
        return owner
    except OSError:
        return owner  # cannot even try (a read-only folder): believe the record
    try:
        _remove(folder / OWNER_NAME)
    finally:
        probe.release()
    return None


def _process_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def is_stale(owner: LockOwner, now: datetime | None = None) -> bool:
    """Whether the holder is evidently gone: its process is not running on this computer,
    or it has held the lock longer than STALE_AFTER_S."""
    if owner.host == this_host() and not _process_running(owner.pid):
        return True
    age = owner.age_s(now)
    return age is not None and age > STALE_AFTER_S


def break_lock(folder: Path) -> LockOwner | None:
    """Remove the lock file and its owner record (after the reviewer confirmed); returns
    whose lock it was."""
    owner = read_owner(folder)
    for name in (LOCK_NAME, OWNER_NAME):
        _remove(folder / name)
    return owner
