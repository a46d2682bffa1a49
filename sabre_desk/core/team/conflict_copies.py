"""Conflict copies: the second version of a file that a synced drive (or ``merge``) keeps
beside the first when two laptops changed it at once. This module is the one definition.

A project kept in Dropbox, Nextcloud/ownCloud, Syncthing, OneDrive or Google Drive gets
files such as ``reviews/alice (conflicted copy 2026-11-29).json`` beside ``alice.json``.
Read as a review they would be a reviewer with a strange name that makes the case
invalid; they are neither a reviewer nor garbage but a second version of alice's work.
So wherever the app reads JSON it writes (``reviews/``, ``assignments.json``,
``sabre-project.json``) a conflict copy is recognised by name, never counts and never
makes a case invalid; ``validate``, ``stats`` and the window list them to be settled, and
settling keeps one version in place and archives the other (never deletes it) under
``.archive/`` beside it.

The names recognised (``<stem>`` is the original's name without ``.json``):

- Dropbox: ``<stem> (conflicted copy YYYY-MM-DD).json``,
  ``<stem> (Someone's conflicted copy YYYY-MM-DD).json``
- Nextcloud/ownCloud: ``<stem> (conflicted copy YYYY-MM-DD HHMMSS).json``,
  ``<stem>_conflict-YYYYMMDD-HHMMSS.json``
- Syncthing: ``<stem>.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.json``
- Google Drive: ``<stem> (N).json``
- sabre-desk's ``merge``: ``<stem>.merge-conflict-YYYYmmddTHHMMSS.json``
- OneDrive: ``<stem>-COMPUTER.json`` or ``<stem>-COMPUTER-N.json``, only when ``<stem>.json``
  lies beside it and, in ``reviews/``, the file's own ``reviewer`` is not its own name
  (``alice-bob.json`` written by a reviewer alice-bob stays her review; a copy of
  ``alice.json`` says ``"reviewer": "alice"`` inside). A file that cannot be read is not
  taken for a copy: it stays a broken review that ``validate`` names.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.conflict_names import (
    MERGE_CONFLICT_INFIX,
    REVIEWS_DIR,
    copy_of,
    is_conflict_copy,
)
from sabre_desk.ground.storage import atomic_write_bytes

__all__ = [
    "ARCHIVE_DIR",
    "HEADING",
    "MERGE_CONFLICT_INFIX",
    "ROOT_FILES",
    "ConflictCopy",
    "SettleReport",
    "copies_in",
    "copy_of",
    "find_conflict_copies",
    "is_conflict_copy",
    "listing",
    "settle",
    "settle_newest_first",
]

#: Where a version set aside when a conflict is settled is kept, inside the folder of the
#: file it was a version of (``reviews/.archive/``, ``.archive/`` at the project's root).
ARCHIVE_DIR = ".archive"
#: The files at a project's root the app writes and a synced drive may copy.
ROOT_FILES = ("sabre-project.json", "assignments.json")


@dataclass(frozen=True)
class ConflictCopy:
    """One conflict copy: where it lies, the file it is a version of, the tool's name."""

    path: Path
    original: Path
    tool: str

    def line(self, root: Path) -> str:
        """``cases/c1/reviews/alice (1).json: a Google Drive copy of alice.json``."""
        return f"{_rel(self.path, root)}: a {self.tool} copy of {self.original.name}"

    def to_json(self, root: Path) -> dict[str, str]:
        return {
            "file": _rel(self.path, root),
            "copy_of": _rel(self.original, root),
            "tool": self.tool,
        }


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def copies_in(folder: Path, only: tuple[str, ...] | None = None) -> list[ConflictCopy]:
    """The conflict copies lying in *folder* (of the files named *only*, when given)."""
    try:
        names = {p.name for p in folder.iterdir() if p.is_file() and not p.is_symlink()}
    except OSError:
        return []
    found = []
    for name in sorted(names):
        hit = copy_of(name, names, folder)
        if hit and (only is None or hit[0] in only):
            found.append(ConflictCopy(folder / name, folder / hit[0], hit[1]))
    return found


def find_conflict_copies(root: Path) -> list[ConflictCopy]:
    """Every conflict copy in the project at *root*: of its root files and of the reviews
    in each case, in path order."""
    found = copies_in(root, ROOT_FILES)
    cases = root / "cases"
    try:
        folders = sorted(p for p in cases.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        folders = []
    for folder in folders:
        reviews = folder / REVIEWS_DIR
        if reviews.is_dir() and not reviews.is_symlink():
            found.extend(copies_in(reviews))
    return found


def _archive(path: Path, stamp: str) -> Path:
    """Move *path* into ``.archive/`` beside it, under a name that says when (never over
    another archived file); returns where it now lies."""
    archive = path.parent / ARCHIVE_DIR
    archive.mkdir(exist_ok=True)
    target = archive / f"{path.stem}.settled-{stamp}{path.suffix}"
    n = 1
    while target.exists():
        n += 1
        target = archive / f"{path.stem}.settled-{stamp}-{n}{path.suffix}"
    shutil.move(str(path), str(target))
    return target


@dataclass
class SettleReport:
    """What settling did (or, on a dry run, would do): one line per copy."""

    dry_run: bool
    lines: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"dry_run": self.dry_run, "settled": self.lines}


def settle(copy: ConflictCopy, keep_copy: bool, stamp: str) -> Path | None:
    """Settle one conflict: keep the copy's version in place of the original (the
    original archived) or keep the original (the copy archived). Returns where the
    version set aside now lies (None when the original was already gone and the copy
    simply takes its place)."""
    if not keep_copy:
        return _archive(copy.path, stamp)
    archived = _archive(copy.original, stamp) if copy.original.exists() else None
    atomic_write_bytes(copy.original, copy.path.read_bytes())
    _archive(copy.path, stamp)
    return archived


def settle_newest_first(root: Path, dry_run: bool, stamp: str | None = None) -> SettleReport:
    """Settle every conflict copy in the project at *root* by keeping the newest version
    (by the time it was last written): of each original and its copies, the newest stays
    in place and every other is archived. With *dry_run*, only say what would be done."""
    from datetime import UTC, datetime

    stamp = stamp or datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    report = SettleReport(dry_run)
    groups: dict[Path, list[ConflictCopy]] = {}
    for copy in find_conflict_copies(root):
        groups.setdefault(copy.original, []).append(copy)
    for original, copies in groups.items():
        versions = [c.path for c in copies] + ([original] if original.exists() else [])
        newest = max(versions, key=lambda p: (p.stat().st_mtime_ns, p == original))
        verb = "would keep" if dry_run else "kept"
        kept = "the original" if newest == original else newest.name
        report.lines.append(
            f"{_rel(original, root)}: {verb} {kept}"
            f", {'would archive' if dry_run else 'archived'} {len(versions) - 1} other version(s) "
            f"under {_rel(original.parent / ARCHIVE_DIR, root)}/"
        )
        if dry_run:
            continue
        winner = next((c for c in copies if c.path == newest), None)
        if winner is not None:
            settle(winner, keep_copy=True, stamp=stamp)
        for copy in copies:
            if copy is not winner:
                settle(copy, keep_copy=False, stamp=stamp)
    return report


#: The heading ``validate``, ``stats`` and the window list conflict copies under.
HEADING = "conflict copies to settle"


def listing(copies: list[ConflictCopy], root: Path) -> list[str]:
    """The lines that list *copies* under their heading (none when there are none), with
    how to settle them: the same words in ``validate`` and ``stats``."""
    if not copies:
        return []
    return [
        f"{HEADING} ({len(copies)}; pick one version in the window, File > Settle Conflict "
        f"Copies…, or keep the newest of each: sabre-desk merge PROJECT PROJECT "
        f"--conflict-copies):",
        *(f"  {copy.line(root)}" for copy in copies),
    ]
