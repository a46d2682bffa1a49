"""`sabre-desk upgrade`: bring a project an earlier sabre-desk wrote to the current format.

What it changes is the plan (core/upgrade_plan.py): the ``pressure_test_type`` of cases made
with an earlier version of a primer, and the manifest (its version, the primers record).
Reviews, images, screening records and history are never touched: decisions are bound to
image hashes, screening results to the images and the questions, and neither changes.

The project is old or new, never mixed (core/upgrade/upgrade_switch.py): the new files are
prepared aside in ``.sabre-desk/upgrade-backup-<UTC stamp>/`` beside the old bytes, then
switched in under a journal that makes every command and the window refuse the project
until the switch is complete; a run that fails puts the old files back, and one killed
part-way is completed by the next run before it plans anything. The manifest's lock is held
throughout, so two upgrades (or an upgrade and `sabre-desk team`) never interleave.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sabre_desk import __version__
from sabre_desk.core.case.git_files import missing_git_lines, write_git_files
from sabre_desk.core.case.manifest import MANIFEST_NAME, PROJECT_VERSION, Manifest, read_manifest
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.upgrade_journal import upgrade_under_way
from sabre_desk.core.upgrade.upgrade_plan import (
    BACKUP_PARENT as BACKUP_PARENT,  # re-exported: their old home
)
from sabre_desk.core.upgrade.upgrade_plan import (
    BACKUP_PREFIX as BACKUP_PREFIX,
)
from sabre_desk.core.upgrade.upgrade_plan import (
    REPORT_NAME as REPORT_NAME,
)
from sabre_desk.core.upgrade.upgrade_plan import (
    TYPE_FIELD,
    CaseMove,
    UpgradePlan,
    case_folder_problem,
    plan_upgrade,
    unfinished_reports,
)
from sabre_desk.core.upgrade.upgrade_switch import (
    STOPPED,
    Change,
    Recovery,
    finish,
    prepare,
    recover,
    switch,
    write_journal,
)
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.reading import LIMITS, parse_json, read_limited
from sabre_desk.ground.storage import (
    atomic_write_json,
    check_size,
    dumps_json,
    file_lock,
    new_backup_folder,
    probe_writable,
)

#: what a spec upgraded in place records about it (a list: one entry per upgrade)
SPEC_RECORD = "upgraded"


class UpgradeError(ProjectError):
    """The upgrade stopped; the files it names are as they were."""


@dataclass
class UpgradeResult:
    plan: UpgradePlan
    dry_run: bool = False
    #: the folder holding the old bytes of every rewritten file (None: nothing rewritten)
    backup: Path | None = None
    #: the files rewritten, relative to the project, in order
    written: list[str] = field(default_factory=list)
    #: .gitignore / .gitattributes written or completed (keeping every line already there)
    git_files: list[str] = field(default_factory=list)
    #: what this run did about an earlier one killed part-way
    recovered: Recovery = field(default_factory=Recovery)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.plan.to_json(),
            "dry_run": self.dry_run,
            "changed": bool(self.written),
            "written": self.written,
            "backup": str(self.backup) if self.backup else None,
            "git_files": self.git_files,
            "finished_earlier_run": self.recovered.run,
            "completed": self.recovered.completed,
            "removed": self.recovered.removed,
        }


def upgrade_project(root: Path, *, dry_run: bool = False) -> UpgradeResult:
    """Upgrade the project at *root* in place (see the module's docstring); with *dry_run*
    only say what would change. Raises UpgradeError when it stops part-way."""
    root = Path(root).expanduser().absolute()
    manifest_path = root / MANIFEST_NAME
    read_manifest(root)  # not a project, or a newer one: said before anything is locked
    if dry_run:
        return UpgradeResult(plan_upgrade(root), dry_run=True, git_files=[*missing_git_lines(root)])
    if not probe_writable(root):
        raise UpgradeError("the project folder cannot be written; nothing was changed", root)
    with file_lock(manifest_path, busy="another sabre-desk is writing the manifest; try again"):
        try:  # an earlier run killed part-way: its switch completed first
            recovered = recover(root)
        except (ProjectError, OSError) as exc:
            raise _stopped(exc, root, None) from exc
        plan = plan_upgrade(root)
        result = UpgradeResult(plan, recovered=recovered)
        try:  # new lines only: what a person wrote in them stays
            result.git_files = write_git_files(root)
        except OSError as exc:
            raise UpgradeError(f"cannot write the git files ({exc.strerror or exc})", root) from exc
        if not plan.changes:
            return result
        result.backup = _new_backup_folder(root)
        report = _report(plan, result)
        try:
            changes = [c for c in (_new_spec(root, m) for m in plan.moves) if c is not None]
            if (manifest := _new_manifest(root, plan)) is not None:
                changes.append(manifest)  # last
            prepare(root, result.backup, changes)
        except (ProjectError, OSError) as exc:  # nothing in the project was touched
            shutil.rmtree(result.backup, ignore_errors=True)
            raise _stopped(exc, root, None) from exc
        if changes:
            try:
                write_journal(root, result.backup, changes)
                switch(root, result.backup, changes)
            except (ProjectError, OSError) as exc:
                if not upgrade_under_way(root):  # put back: the old project, no leftovers
                    shutil.rmtree(result.backup, ignore_errors=True)
                raise _stopped(exc, root, result.backup) from exc
        result.written = [c.file for c in changes]
        report.update(finished=True, written=result.written, finished_at=utc_now())
        try:
            finish(root, result.backup, report)
        except (ProjectError, OSError) as exc:  # every file is new; the journal says so
            raise _stopped(exc, root, result.backup) from exc
        with contextlib.suppress(ProjectError, OSError):  # done either way; a rerun says so
            _close_unfinished(root, result.backup)
    return result


def _close_unfinished(root: Path, backup: Path) -> None:
    """Mark the reports of earlier runs that stopped part-way as finished by this one: every
    file they set out to change is now new (this run planned what was left of them)."""
    for path in unfinished_reports(root):
        if path.parent == backup:
            continue
        data = parse_json(read_limited(path, LIMITS["manifest"], StorageError), path, StorageError)
        data.update(finished=True, finished_by=backup.name, finished_at=utc_now())
        atomic_write_json(path, data)


def _stopped(exc: ProjectError | OSError, root: Path, backup: Path | None) -> UpgradeError:
    """The one line of a run that stopped. The switch says itself whether it put every
    file back; otherwise the journal tells: gone, the project is as it was; still there,
    the next run finishes it."""
    where: Path | None
    if isinstance(exc, ProjectError):
        where, reason = exc.path, exc.reason
    else:
        where = Path(exc.filename) if exc.filename else None
        reason = exc.strerror or str(exc)
    if not reason.startswith(STOPPED):
        kept = f" (the old files are in {backup})" if backup is not None else ""
        reason = (
            f"{STOPPED} ({reason}); run it again to finish it{kept}"
            if upgrade_under_way(root)
            else f"{STOPPED} ({reason}); nothing was changed, every file is as it was"
        )
    return UpgradeError(reason, where or root)


def _new_backup_folder(root: Path) -> Path:
    """``.sabre-desk/upgrade-backup-<UTC stamp>``: a folder of its own for each run."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        return new_backup_folder(root / BACKUP_PARENT, BACKUP_PREFIX, stamp)
    except StorageError as exc:
        raise UpgradeError(exc.reason, exc.path) from exc


def _new_spec(root: Path, move: CaseMove) -> Change | None:
    """One case's spec with its new type; None when it no longer needs it (a person did it
    meanwhile)."""
    path = root.joinpath(*move.file.split("/"))
    problem = case_folder_problem(root, move.case_id)
    if problem:  # replaced by a link since the plan was made
        raise StorageError(problem, path.parent)
    raw = read_limited(path, LIMITS["spec"], StorageError, follow_links=False)
    spec = parse_json(raw, path, StorageError)
    if not isinstance(spec, dict) or spec.get(TYPE_FIELD) != move.old_type:
        return None
    spec[TYPE_FIELD] = move.new_type
    records = spec.get(SPEC_RECORD)
    spec[SPEC_RECORD] = [
        *(records if isinstance(records, list) else []),
        {
            "at": utc_now(),
            "by": f"sabre-desk {__version__}",
            "field": TYPE_FIELD,
            "from": move.old_type,
            "to": move.new_type,
            "made_with": {"primer": move.change.primer, "version": move.change.earlier_version},
        },
    ]
    new = dumps_json(spec)
    check_size(path, new, "spec")
    return Change(move.file, raw, new)


def _new_manifest(root: Path, plan: UpgradePlan) -> Change | None:
    """The manifest: every other key kept, the version and the primers record new."""
    update = plan.manifest
    if update is None:
        return None
    path = root / MANIFEST_NAME
    raw = read_limited(path, LIMITS["manifest"], StorageError, follow_links=False)
    data = parse_json(raw, path, StorageError)
    if not isinstance(data, dict):
        raise StorageError("not a JSON object", path)
    data["version"] = PROJECT_VERSION
    data["primers"] = {name: r.model_dump(mode="json") for name, r in update.primers.items()}
    if update.default_primer is not None:
        data["primer"] = update.default_primer[1]
    try:
        Manifest.model_validate(data)
    except ValueError as exc:
        raise StorageError(f"not upgraded: {exc}", path) from exc
    return Change(MANIFEST_NAME, raw, dumps_json(data))


def _report(plan: UpgradePlan, result: UpgradeResult) -> dict[str, Any]:
    """upgrade.json in the backup folder: what this run set out to change, and whether it
    finished (a run that stopped says ``"finished": false``)."""
    return {
        "format": "sabre-desk-upgrade",
        "version": 1,
        "by": f"sabre-desk {__version__}",
        "started_at": utc_now(),
        "finished": False,
        "from_version": plan.version,
        "to_version": PROJECT_VERSION,
        "plan": plan.to_json()["changes"],
        "written": result.written,
    }
