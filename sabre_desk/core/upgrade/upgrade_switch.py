"""Putting an upgrade's new files in place so that the project is old or new, never mixed.

Several files cannot be replaced in one step, so the switch is journalled:

1. **Prepare aside.** The old bytes of every file go to the run's backup folder
   (``.sabre-desk/upgrade-backup-<stamp>/<path>``), the new bytes to ``<that>/.staged/<path>``,
   each written whole and synced. The project is untouched: a kill here leaves the old
   project, and the next run removes the half-made folder.
2. **Journal.** ``.sabre-desk/upgrade-journal.json`` (core/case/upgrade_journal.py) names
   the folder and each file's old and new SHA-256. From here on the project is refused by
   every command and the window until the journal is gone.
3. **Switch.** Each staged file is renamed over its target (the manifest last). A failure
   puts back the files already switched and removes the journal: the old project again.
4. **Done.** The run's ``upgrade.json`` is written finished, then the journal is removed:
   the new project.

A run killed in step 3 or 4 leaves the journal; the next run completes it from the staged
files before it plans anything (a file whose staged copy is gone is left as it is, and the
same run's plan upgrades it afresh).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk import __version__
from sabre_desk.core.case.git_files import GIT_FILES
from sabre_desk.core.case.manifest import MANIFEST_NAME
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.upgrade_journal import (
    JOURNAL_NAME,
    JOURNAL_REL,
    RECORDS_DIR,
    journal_path,
)
from sabre_desk.core.upgrade.upgrade_plan import (
    BACKUP_PREFIX,
    REPORT_NAME,
    case_folder_problem,
)
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.reading import LIMITS, quick_json, read_limited
from sabre_desk.ground.storage import (
    _fsync_dir,
    atomic_write_bytes,
    atomic_write_json,
    remove_orphan_temps,
)

#: the folder in a run's backup folder holding the new bytes until they are switched in
STAGED_DIR = ".staged"
JOURNAL_FORMAT = "sabre-desk-upgrade-journal"
#: how the one line of a run that stopped begins
STOPPED = "the upgrade stopped"


@dataclass(frozen=True)
class Change:
    """One file an upgrade rewrites: where, and its old and new bytes."""

    file: str  # relative to the project, "/"-separated
    old: bytes
    new: bytes

    def entry(self) -> dict[str, str]:
        return {"file": self.file, "old_sha256": _sha(self.old), "new_sha256": _sha(self.new)}


@dataclass
class Recovery:
    """What a run found of an earlier one that did not finish, and did about it."""

    #: the backup folder of the run whose journal it completed (relative), or None
    run: str | None = None
    #: files that run had left old, now switched to its new bytes
    completed: list[str] = field(default_factory=list)
    #: files whose staged copy was gone or whose bytes changed since: left for the plan
    left: list[str] = field(default_factory=list)
    #: half-made backup folders of runs killed before their journal (nothing was changed)
    removed: list[str] = field(default_factory=list)


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _target(root: Path, rel: str) -> Path:
    return root.joinpath(*rel.split("/"))


def _kind(rel: str) -> str:
    return "manifest" if rel == MANIFEST_NAME else "spec"


def prepare(root: Path, backup: Path, changes: list[Change]) -> None:
    """Step 1: the old and the new bytes of every change, written whole beside each other
    in *backup*; the project is not touched."""
    staged = backup / STAGED_DIR
    for change in changes:
        for folder, data in ((backup, change.old), (staged, change.new)):
            target = folder.joinpath(*change.file.split("/"))
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StorageError(f"cannot write ({exc.strerror or exc})", target) from exc
            atomic_write_bytes(target, data)


def write_journal(root: Path, backup: Path, changes: list[Change]) -> None:
    """Step 2: from now on the project is refused until the journal is removed."""
    atomic_write_json(
        journal_path(root),
        {
            "format": JOURNAL_FORMAT,
            "version": 1,
            "by": f"sabre-desk {__version__}",
            "started_at": utc_now(),
            "backup": backup.name,
            "files": [c.entry() for c in changes],
        },
    )


def switch(root: Path, backup: Path, changes: list[Change]) -> None:
    """Step 3: each staged file renamed over its target, the manifest last (the order the
    changes come in). On a failure the files already switched get their old bytes back and
    the journal goes: ProjectError saying nothing was changed. When even that fails the
    journal stays and the error says to run the upgrade again."""
    done: list[Change] = []
    try:
        for change in changes:
            _put_in_place(root, backup, change.file)
            done.append(change)
    except (ProjectError, OSError) as exc:
        if isinstance(exc, ProjectError):
            reason, where = exc.reason, exc.path
        else:  # a rename names the file it would have replaced second
            reason = exc.strerror or str(exc)
            where = Path(exc.filename2 or exc.filename or root)
        try:
            for change in reversed(done):
                atomic_write_bytes(_target(root, change.file), change.old)
            _remove_journal(root)
        except (ProjectError, OSError) as again:
            raise StorageError(
                f"{STOPPED} ({reason}) and could not put back the files it had "
                f"switched ({again}); run it again to finish it (the old files are in "
                f"{backup})",
                where,
            ) from exc
        raise StorageError(
            f"{STOPPED} ({reason}); nothing was changed, every file is as it was",
            where,
        ) from exc


def _put_in_place(root: Path, backup: Path, rel: str) -> None:
    target = _target(root, rel)
    if rel != MANIFEST_NAME:
        case_id = rel.split("/")[1]
        problem = case_folder_problem(root, case_id)
        if problem:  # replaced by a link meanwhile: never written through
            raise StorageError(problem, target.parent)
    remove_orphan_temps(target.parent, target.name)  # only an upgrade rewrites it in place
    os.replace(backup / STAGED_DIR / rel, target)  # noqa: PTH105 (the kill tests count it)
    _fsync_dir(target.parent)


def finish(root: Path, backup: Path, report: dict[str, Any]) -> None:
    """Step 4: the report says finished, the journal goes (the project is new), then the
    emptied staging folder."""
    atomic_write_json(backup / REPORT_NAME, report)
    _remove_journal(root)
    shutil.rmtree(backup / STAGED_DIR, ignore_errors=True)


def _remove_journal(root: Path) -> None:
    path = journal_path(root)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    _fsync_dir(path.parent)


# --- the next run ---------------------------------------------------------------------------


def recover(root: Path) -> Recovery:
    """Complete the switch a killed run left (its journal), and remove the half-made backup
    folders of runs killed before their journal. Called with the manifest's lock held."""
    out = Recovery()
    parent = root / RECORDS_DIR
    journal = journal_path(root)
    named: Path | None = None
    readable = True
    if os.path.lexists(journal):
        files, named = _read_journal(root, journal)
        readable = files is not None
        if named is not None and files is not None:
            out.run = f"{RECORDS_DIR}/{named.name}"
            for entry in files:
                _complete(root, named, entry, out)
            _close_report(named, out)
    for folder in _report_less(parent):
        if folder == named:
            continue
        if readable:  # a run killed while preparing: the project never changed
            shutil.rmtree(folder, ignore_errors=True)
            out.removed.append(f"{RECORDS_DIR}/{folder.name}")
        else:  # which run the damaged journal was is unknown: keep its old bytes
            shutil.rmtree(folder / STAGED_DIR, ignore_errors=True)
            _close_report(folder, out)
    if os.path.lexists(journal):
        _remove_journal(root)  # what it left, if anything, this run's plan upgrades
    # the temps of writes a killed run never finished; only an upgrade (holding the
    # manifest's lock, as the caller does) writes these in a project that exists
    remove_orphan_temps(parent, JOURNAL_NAME)
    for name in GIT_FILES:
        remove_orphan_temps(root, name)
    for folder in parent.glob(f"{BACKUP_PREFIX}*/"):
        remove_orphan_temps(folder, REPORT_NAME)
        if not folder.is_symlink():  # a finished run killed while clearing its staging
            shutil.rmtree(folder / STAGED_DIR, ignore_errors=True)
    return out


def _read_journal(root: Path, journal: Path) -> tuple[list[dict[str, str]] | None, Path | None]:
    """(its files, its backup folder) when the journal is one `upgrade` wrote and names
    only files an upgrade rewrites; (None, None) for anything else."""
    try:
        data = quick_json(str(journal), LIMITS["manifest"], follow_links=False)
    except (OSError, ValueError):
        return None, None
    if not isinstance(data, dict) or data.get("format") != JOURNAL_FORMAT:
        return None, None
    name, files = data.get("backup"), data.get("files")
    if not isinstance(name, str) or not name.startswith(BACKUP_PREFIX) or "/" in name:
        return None, None
    folder = root / RECORDS_DIR / name
    if folder.is_symlink() or not folder.is_dir() or not isinstance(files, list):
        return None, None
    good = [e for e in files if _good_entry(root, e)]
    if len(good) != len(files):
        return None, None
    return good, folder


def _good_entry(root: Path, entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    if not all(isinstance(entry.get(k), str) for k in ("file", "old_sha256", "new_sha256")):
        return False
    rel = entry["file"]
    parts = rel.split("/")
    if rel == MANIFEST_NAME:
        return True
    return (
        len(parts) == 3
        and parts[0] == "cases"
        and parts[2] == "spec.json"
        and case_folder_problem(root, parts[1]) is None
    )


def _digest(path: Path, kind: str) -> str | None:
    try:
        return _sha(read_limited(path, LIMITS[kind], StorageError, follow_links=False))
    except ProjectError:
        return None


def _complete(root: Path, backup: Path, entry: dict[str, str], out: Recovery) -> None:
    rel, old, new = entry["file"], entry["old_sha256"], entry["new_sha256"]
    kind = _kind(rel)
    now = _digest(_target(root, rel), kind)
    if now == new:
        return
    staged = backup / STAGED_DIR / rel
    if now in (old, None) and _digest(staged, kind) == new:
        _put_in_place(root, backup, rel)
        out.completed.append(rel)
    else:
        out.left.append(rel)


def _report_less(parent: Path) -> list[Path]:
    """The backup folders of upgrade runs that never wrote their report."""
    try:
        folders = sorted(parent.glob(f"{BACKUP_PREFIX}*"))
    except OSError:
        return []
    return [
        f
        for f in folders
        if not f.is_symlink() and f.is_dir() and not os.path.lexists(f / REPORT_NAME)
    ]


def _close_report(folder: Path, out: Recovery) -> None:
    """The report of a run another one finished: the staged copies go, what it says stays."""
    shutil.rmtree(folder / STAGED_DIR, ignore_errors=True)
    atomic_write_json(
        folder / REPORT_NAME,
        {
            "format": "sabre-desk-upgrade",
            "version": 1,
            "by": f"sabre-desk {__version__}",
            "finished": True,
            "finished_at": utc_now(),
            "stopped_part_way": True,
            "completed": out.completed,
            "left_to_the_next_plan": out.left,
        },
    )


__all__ = [
    "JOURNAL_REL",
    "STAGED_DIR",
    "STOPPED",
    "Change",
    "Recovery",
    "finish",
    "prepare",
    "recover",
    "switch",
    "write_journal",
]
