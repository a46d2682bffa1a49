"""Noticing what other windows and other people wrote, by polling the file system.

Polling, not a change-notification API: inotify (and Qt's QFileSystemWatcher on top of it)
hears only of writes made through this computer's kernel, so on a network drive (NFS, SMB)
or a synced folder another reviewer's save would go unnoticed. A stat is the same on every
file system, and every write sabre-desk makes is a rename into place, which gives the file a
new inode and its folder a new modification time.

Two cadences: the open case is compared often (a few ``stat`` calls), the rest of the
project rarely (one ``stat`` of each case's ``reviews/`` folder and of the case folder).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.locks import OWNER_NAME
from sabre_desk.core.case.project import REVIEWS_DIR, CaseEntry

FileStamp = tuple[int, int, int]  # size, mtime in ns, inode
#: how many cases a loop over the project goes between calls of its ``pause``
PAUSE_EVERY = 256
IMAGE_PREFIXES = ("base.", "edited.", "image.")


def _stamp(path: str) -> FileStamp | None:
    try:
        st = os.stat(path, follow_symlinks=False)  # noqa: PTH116 - polled often, kept cheap
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def _listing(folder: str, keep: tuple[str, ...] | None, suffix: str = "") -> dict[str, FileStamp]:
    out: dict[str, FileStamp] = {}
    try:
        with os.scandir(folder) as items:
            for item in items:
                name = item.name
                if name.startswith(".") or not name.endswith(suffix):
                    continue
                if keep is not None and not name.startswith(keep):
                    continue
                try:
                    st = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                out[name] = (st.st_size, st.st_mtime_ns, st.st_ino)
    except OSError:
        pass
    return out


@dataclass(frozen=True)
class CaseStamp:
    """What other windows may change in one case, as the file system describes it."""

    reviews: dict[str, FileStamp] = field(default_factory=dict)
    images: dict[str, FileStamp] = field(default_factory=dict)
    lock: FileStamp | None = None


def case_stamp(folder: Path) -> CaseStamp:
    where = str(folder)
    return CaseStamp(
        reviews=_listing(os.path.join(where, REVIEWS_DIR), None, ".json"),  # noqa: PTH118
        images=_listing(where, IMAGE_PREFIXES),
        lock=_stamp(os.path.join(where, OWNER_NAME)),  # noqa: PTH118
    )


@dataclass(frozen=True)
class CaseChanges:
    """What changed in a case between two stamps."""

    reviewers: frozenset[str]  # whose review file changed (appeared, went, rewritten)
    images: bool
    lock: bool

    def __bool__(self) -> bool:
        return bool(self.reviewers) or self.images or self.lock


def compare(before: CaseStamp, after: CaseStamp) -> CaseChanges:
    names = set(before.reviews) | set(after.reviews)
    changed = frozenset(
        name.removesuffix(".json")
        for name in names
        if before.reviews.get(name) != after.reviews.get(name)
    )
    return CaseChanges(changed, before.images != after.images, before.lock != after.lock)


class ProjectWatch:
    """The cases whose reviews or images changed since the last look.

    The first look only takes note; later looks return the case ids whose ``reviews/``
    folder or case folder changed (a rename into either changes its modification time).
    """

    def __init__(self) -> None:
        self._seen: dict[str, tuple[int, int]] = {}
        #: each case's two paths as strings, made once (a Path per case per look was most
        #: of a look's cost at 10,000 cases)
        self._paths: dict[str, tuple[str, str]] = {}

    @property
    def noted(self) -> int:
        """How many cases the watch has looked at (0: not yet)."""
        return len(self._seen)

    def look(self, entries: list[CaseEntry], pause: Callable[[], None] | None = None) -> list[str]:
        """The ids of the cases changed since the last look; *pause* (if given) is called
        every PAUSE_EVERY cases, for a caller that wants the loop to wait at times."""
        changed = []
        first = not self._seen
        seen, paths = self._seen, self._paths
        for index, entry in enumerate(entries):
            if pause is not None and index % PAUSE_EVERY == 0:
                pause()
            if entry.problem and entry.problem_file is None:
                continue  # not a case folder one can read (a link, a bad name)
            both = paths.get(entry.case_id)
            if both is None:
                folder = str(entry.folder)
                both = paths[entry.case_id] = folder, os.path.join(folder, REVIEWS_DIR)  # noqa: PTH118
            reviews = _stamp(both[1])
            own = _stamp(both[0])
            now = (reviews[1] if reviews else 0, own[1] if own else 0)
            if seen.get(entry.case_id) != now:
                if not first and entry.case_id in seen:
                    changed.append(entry.case_id)
                seen[entry.case_id] = now
        return changed
