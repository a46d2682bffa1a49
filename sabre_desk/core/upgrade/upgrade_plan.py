"""What `sabre-desk upgrade` would change in a project an earlier sabre-desk wrote.

Read-only, so every command and the window can ask it before they trust a project. A
project of the current format whose record says its cases follow today's primers costs a
manifest and the primers to check, no case is read; an older one has each case's spec.json
read once (the case index's bounded reader), or only those the caller's index cannot rule
out.

A plan is *needed* when the project does not work unchanged: cases made with an earlier
version of a primer (core/primer_changes.py) would fail today's rules. Writing the primers
record alone (a format 1 or 2 project whose cases are fine) is a change, never a need.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.manifest import (
    MANIFEST_NAME,
    PROJECT_VERSION,
    Manifest,
    PrimerRecord,
    read_manifest,
)
from sabre_desk.core.case.primer_changes import PRIMER_CHANGES, PrimerChange, recorded_primers
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import CASES_DIR, SPEC_NAME
from sabre_desk.core.case.upgrade_journal import JOURNAL_REL, upgrade_under_way
from sabre_desk.ground.ids import is_valid_id
from sabre_desk.ground.reading import LIMITS, quick_json, short_reason

TYPE_FIELD = "pressure_test_type"


@dataclass(frozen=True)
class CaseMove:
    """One case made with an earlier primer: its spec's type becomes the type the primer
    that carries its task now gives it."""

    case_id: str
    old_type: str
    new_type: str
    change: PrimerChange

    @property
    def file(self) -> str:
        """The spec, relative to the project (as the backup mirrors it)."""
        return f"{CASES_DIR}/{self.case_id}/{SPEC_NAME}"

    def line(self) -> str:
        c = self.change
        return (
            f"{self.file}: {TYPE_FIELD} {self.old_type} → {self.new_type} (made with primer "
            f"{c.primer} version {c.earlier_version}: {c.earlier_task})"
        )


@dataclass(frozen=True)
class ManifestUpdate:
    """What sabre-project.json gets: the current version and the primers record."""

    old_version: int
    primers: dict[str, PrimerRecord]
    #: primer names the record gains or records anew (another version or file)
    recorded: tuple[str, ...]
    #: the project's default primer (``primer``), when it named a primer whose earlier task
    #: the cases relying on it follow: (old name, new name)
    default_primer: tuple[str, str] | None = None

    def describe(self) -> str:
        parts = []
        if self.old_version < PROJECT_VERSION:
            parts.append(f"version {self.old_version} → {PROJECT_VERSION}")
        if self.recorded:
            parts.append(f"records the primers its cases follow ({', '.join(self.recorded)})")
        if self.default_primer:
            old, new = self.default_primer
            parts.append(f"default primer {old} → {new}")
        return "; ".join(parts) or "rewritten to mark the upgrade done"

    def line(self) -> str:
        return f"{MANIFEST_NAME}: {self.describe()}"


@dataclass
class UpgradePlan:
    root: Path
    name: str
    version: int
    moves: list[CaseMove] = field(default_factory=list)
    manifest: ManifestUpdate | None = None
    #: (file, reason): specs that could not be read, left as they are (validate says why)
    unread: list[tuple[str, str]] = field(default_factory=list)
    #: the backup folder of an upgrade that stopped part-way (killed, or an error), or None
    interrupted: str | None = None

    @property
    def needed(self) -> bool:
        """The project does not work unchanged: some case (or the default primer) follows
        a task today's primers give another name, or an upgrade stopped part-way (some of
        its files may be new and others old)."""
        return (
            bool(self.moves)
            or bool(self.manifest and self.manifest.default_primer)
            or self.interrupted is not None
        )

    @property
    def changes(self) -> bool:
        return bool(self.moves) or self.manifest is not None or self.interrupted is not None

    @property
    def files(self) -> list[str]:
        """Every file the upgrade rewrites, relative to the project, the manifest last."""
        return [m.file for m in self.moves] + ([MANIFEST_NAME] if self.manifest else [])

    def summary(self) -> str:
        """What the upgrade will change, in one clause."""
        parts = []
        if self.interrupted is not None:
            parts.append(f"finishes the upgrade that stopped part-way ({self.interrupted})")
        if self.moves:
            counts: dict[tuple[str, str], int] = {}
            for m in self.moves:
                counts[(m.old_type, m.new_type)] = counts.get((m.old_type, m.new_type), 0) + 1
            each = ", ".join(f"{old} → {new} ×{n}" for (old, new), n in counts.items())
            cases = "case" if len(self.moves) == 1 else "cases"
            parts.append(
                f"renames the task of {len(self.moves)} {cases} made with earlier primers ({each})"
            )
        if self.manifest is not None and self.manifest.default_primer:
            old, new = self.manifest.default_primer
            parts.append(f"makes {new} the default primer (was {old})")
        if self.manifest is not None:
            parts.append(f"records the primers (format {self.version} → {PROJECT_VERSION})")
        said = ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)
        return f"{said}; reviews and images stay as they are"

    def need_line(self) -> str:
        """The one line every command and the window say about a project that needs it."""
        command = f"sabre-desk upgrade {shlex.quote(str(self.root))}"
        earlier = f"{self.root} was written by an earlier sabre-desk"
        return f"{earlier}: run `{command}`, which {self.summary()}"

    def to_json(self) -> dict[str, Any]:
        return {
            "project": str(self.root),
            "format_version": self.version,
            "to_version": PROJECT_VERSION,
            "needed": self.needed,
            "changes": [
                {
                    "file": m.file,
                    "field": TYPE_FIELD,
                    "from": m.old_type,
                    "to": m.new_type,
                    "primer": {"name": m.change.primer, "version": m.change.earlier_version},
                }
                for m in self.moves
            ]
            + (
                [{"file": MANIFEST_NAME, "change": self.manifest.describe()}]
                if self.manifest
                else []
            ),
            "unread": [{"file": f, "reason": r} for f, r in self.unread],
            "interrupted": self.interrupted,
        }


def unfinished_reports(root: Path) -> list[Path]:
    """The ``upgrade.json`` of every run of an earlier sabre-desk's `upgrade` on *root* that
    did not finish: those runs wrote it (``"finished": false``) before they changed anything
    and marked it finished last, switching file by file without a journal, so one still
    unfinished may have left the project part old. (Today's runs write it finished, at
    the end; the journal marks theirs.)"""
    parent = Path(root) / BACKUP_PARENT
    try:
        reports = sorted(parent.glob(f"{BACKUP_PREFIX}*/{REPORT_NAME}"))
    except OSError:
        return []
    unfinished = []
    for report in reports:
        try:
            data = quick_json(str(report), LIMITS["manifest"], follow_links=False)
        except (OSError, ValueError):
            continue  # damaged by hand: it records nothing about the project's files
        if isinstance(data, dict) and data.get("finished") is False:
            unfinished.append(report)
    return unfinished


#: Where each run of `upgrade` keeps the old bytes of what it rewrites, and its report.
BACKUP_PARENT = ".sabre-desk"
BACKUP_PREFIX = "upgrade-backup-"
REPORT_NAME = "upgrade.json"

#: (case id, the type the index read, or None when it could not) of every case
Candidates = Iterable[tuple[str, str | None]]


def plan_upgrade(
    root: Path,
    manifest: Manifest | None = None,
    candidates: Candidates | None = None,
) -> UpgradePlan:
    """The upgrade *root* needs. *candidates* (from an index already read) spares reading
    the specs of cases whose type no change concerns; without it every spec is read."""
    root = Path(root)
    manifest = manifest if manifest is not None else read_manifest(root)
    library = PrimerLibrary.for_project(root)
    plan = UpgradePlan(root, manifest.name, manifest.version)
    stopped = unfinished_reports(root)
    plan.interrupted = f"{BACKUP_PARENT}/{stopped[-1].parent.name}" if stopped else None
    if upgrade_under_way(root):  # its switch stopped part-way: the next run completes it
        plan.interrupted = JOURNAL_REL
    active = active_changes(manifest, library)
    default_change = next((c for c, _ in active if manifest.primer == c.primer), None)
    default_users = default_current = 0
    if active:
        by_type = {c.pressure_test_type: (c, new) for c, new in active}
        claimed = {p.header.pressure_test_type for p in library.primers.values()}
        listed = list(candidates) if candidates is not None else _case_ids(root, plan)
        for case_id, known_type in listed:
            relying = default_change is not None and known_type not in claimed
            if known_type is not None and known_type not in by_type and not relying:
                continue
            spec = _read_spec(root, case_id, plan)
            if spec is None:
                continue
            kind, names = spec
            if kind in by_type:
                change, new_type = by_type[kind]
                if change.marker not in names:
                    plan.moves.append(CaseMove(case_id, kind, new_type, change))
            elif default_change is not None and kind not in claimed:
                if default_change.marker in names:
                    default_current += 1
                else:
                    default_users += 1
    default_move = None
    if default_change is not None and default_users and not default_current:
        default_move = (default_change.primer, default_change.moved_to)
    record = recorded_primers(library)
    recorded = tuple(n for n, r in record.items() if manifest.primers.get(n) != r)
    if manifest.version < PROJECT_VERSION or recorded or default_move or plan.moves:
        plan.manifest = ManifestUpdate(manifest.version, record, recorded, default_move)
    return plan


def may_need_upgrade(root: Path, manifest: Manifest) -> bool:
    """Whether an upgrade may be *needed* (a scan of the cases would tell): False for a
    project whose record says its cases follow today's primers, at the cost of reading the
    primers, so the window opens such a project without a look at its cases."""
    return bool(active_changes(manifest, PrimerLibrary.for_project(Path(root))))


def active_changes(manifest: Manifest, library: PrimerLibrary) -> list[tuple[PrimerChange, str]]:
    """The primer changes that may concern this project's cases, with the type each moves
    its cases to. A change is out when the project sees another version of the primer (its
    own copy of the earlier one, say), or when its record says the cases follow a later
    version than the one the change left behind."""
    out = []
    for change in PRIMER_CHANGES:
        current = library.primers.get(change.primer)
        target = library.primers.get(change.moved_to)
        if current is None or target is None or current.header.version <= change.earlier_version:
            continue
        if library.by_type(change.pressure_test_type) is not current:
            continue  # another primer of the project claims the type
        recorded = manifest.primers.get(change.primer)
        if manifest.version >= PROJECT_VERSION and (
            recorded is None or recorded.version > change.earlier_version
        ):
            continue
        out.append((change, target.header.pressure_test_type))
    return out


def _case_ids(root: Path, plan: UpgradePlan) -> list[tuple[str, str | None]]:
    """Every case folder, as the index sees them (hidden names, links and bad ids are not
    cases; the index reports them)."""
    try:
        listing = sorted(os.scandir(root / CASES_DIR), key=lambda e: e.name)
    except FileNotFoundError:
        return []
    except OSError as exc:
        plan.unread.append((CASES_DIR, f"cannot list ({exc.strerror or exc})"))
        return []
    return [
        (item.name, None)
        for item in listing
        if not item.name.startswith(".")
        and is_valid_id(item.name)
        and not item.is_symlink()
        and item.is_dir(follow_symlinks=False)
    ]


def case_folder_problem(root: Path, case_id: str) -> str | None:
    """Why the folder of *case_id* is not one an upgrade reads or writes (a bad id, a link:
    never followed out of the project), or None."""
    if not is_valid_id(case_id):
        return "not a case id"
    folder = root / CASES_DIR / case_id
    if folder.is_symlink() or not folder.is_dir():
        return "not a case folder (links are never followed)"
    return None


def _read_spec(root: Path, case_id: str, plan: UpgradePlan) -> tuple[str, set[str]] | None:
    """(type, task attribute names) of a case's spec, or None (unread: recorded)."""
    rel = f"{CASES_DIR}/{case_id}/{SPEC_NAME}"
    path = root / CASES_DIR / case_id / SPEC_NAME
    if case_folder_problem(root, case_id):
        return None  # the index reports it; nothing is read through it
    if path.is_symlink():
        plan.unread.append((rel, "a symbolic link; never rewritten"))
        return None
    try:
        spec = quick_json(str(path), LIMITS["spec"])
    except (ValueError, OSError) as exc:
        plan.unread.append((rel, f"unreadable ({short_reason(exc)})"))
        return None
    if not isinstance(spec, dict) or not isinstance(spec.get(TYPE_FIELD), str):
        return None  # missing or not a spec: validate says so, nothing to move
    attributes = spec.get("task_attributes")
    names = {
        a["name"]
        for a in (attributes if isinstance(attributes, list) else [])
        if isinstance(a, dict) and isinstance(a.get("name"), str)
    }
    return spec[TYPE_FIELD], names
