"""`sabre-desk merge PROJECT COPY`: the work done in a copy of a project, taken back.

A reviewer takes a copy (a folder copy, a clone, an unzipped archive) on a train ride and
works in it; this brings her work back without losing a byte of either side.

How "changed since they parted" is known: by each side's history. Every change to a review
is an event in ``history.jsonl``, so the events of reviewer R in case C that one side has
and the other lacks are the changes that side made since the two parted. A review only the
copy changed is taken; one both changed (or that differs with no history to say who
changed it) is never overwritten: the copy's version is written beside it as
``reviews/<name>.merge-conflict-<stamp>.json`` for that reviewer to settle.

Images are judged by content: the copy's image is taken where the project still has the
image the copy's accepted repair replaced (its hash is one of the copy's backups of that
role); where the project replaced it too, differently, the copy's image becomes a repair
preview waiting on the case, with a note asking for a decision. Decisions need no help:
each is bound to the hashes of the images it judged (``decided_on``).

Every file rewritten keeps its old bytes under ``.sabre-desk/merge-backup-<stamp>/`` at
the same relative path; every write is atomic; the manifest's lock is held throughout. A
second merge of the same copy finds nothing to do.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sabre_desk.core.case.manifest import MANIFEST_NAME, read_manifest
from sabre_desk.core.case.over_limit import cut_to_limits, side_path
from sabre_desk.core.case.review import Review, utc_now, validate_review
from sabre_desk.ground.errors import ProjectError, ReviewError, StorageError
from sabre_desk.ground.storage import (
    atomic_write_bytes,
    dumps_json,
    file_lock,
    new_backup_folder,
    probe_writable,
    read_history,
    read_json,
)

BACKUP_PARENT = ".sabre-desk"
BACKUP_PREFIX = "merge-backup-"
#: the infix of a copy's review kept beside the project's: ``alice.merge-conflict-<stamp>.json``
CONFLICT_INFIX = ".merge-conflict-"
IMAGE_ROLES = ("base", "edited", "image")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
HISTORY = "history.jsonl"


class MergeError(ProjectError):
    """The merge was refused or stopped; what it names is as it was."""


@dataclass(frozen=True)
class MergeStep:
    """One thing the merge does: ``kind`` (``case``, ``review``, ``review_conflict``,
    ``history``, ``file``, ``image``, ``image_conflict``), the file it writes, relative to
    the project, and why, in a reviewer's words."""

    kind: str
    file: str
    why: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "file": self.file, "why": self.why}


@dataclass
class MergeResult:
    root: Path
    copy: Path
    dry_run: bool = False
    steps: list[MergeStep] = field(default_factory=list)
    #: where the old bytes of every rewritten file are (None: nothing was rewritten)
    backup: Path | None = None

    @property
    def conflicts(self) -> list[MergeStep]:
        return [s for s in self.steps if s.kind.endswith("_conflict")]

    def lines(self) -> list[str]:
        """What the merge did (or, dry, would do), a file a line: the command line and the
        window say it in these words."""
        if not self.steps:
            return [f"nothing to take back from {self.copy}: the project has all its work"]
        verb = "would take" if self.dry_run else "took"
        out = [f"{verb} back from {self.copy}:"]
        out += [f"  {step.kind:16} {step.file}: {step.why}" for step in self.steps]
        if self.conflicts:
            out.append(f"{len(self.conflicts)} conflict(s) to settle; both versions are kept")
        if self.dry_run:
            out.append("nothing was written (--dry-run)")
        elif self.backup:
            out.append(f"old bytes of every rewritten file: {self.backup}")
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "project": str(self.root),
            "copy": str(self.copy),
            "dry_run": self.dry_run,
            "changed": bool(self.steps) and not self.dry_run,
            "steps": [s.to_json() for s in self.steps],
            "conflicts": len(self.conflicts),
            "backup": str(self.backup) if self.backup else None,
        }


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _event_key(entry: dict[str, Any]) -> str:
    """One event's identity: its whole content, keys sorted (the same event in two
    clones is the same line)."""
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _image_of(folder: Path, role: str) -> Path | None:
    for suffix in IMAGE_SUFFIXES:
        path = folder / f"{role}{suffix}"
        if path.is_file() and not path.is_symlink():
            return path
    return None


def _hashes_in(folder: Path, prefix: str = "") -> dict[str, str]:
    """SHA-256 → file name, of the regular files in *folder* whose name starts *prefix*."""
    if not folder.is_dir() or folder.is_symlink():
        return {}
    out: dict[str, str] = {}
    for path in sorted(folder.iterdir()):
        if path.is_file() and not path.is_symlink() and path.name.startswith(prefix):
            out.setdefault(_sha(path.read_bytes()), path.name)
    return out


def same_project_problem(root: Path, copy: Path) -> str | None:
    """Why *copy* is not a copy of the project at *root* (None: it is): both manifests
    must name the same project (``name`` and ``created_at``)."""
    if root.resolve() == copy.resolve():
        return "is the project itself; name a copy of it"
    mine, theirs = read_manifest(root), read_manifest(copy)
    if (mine.name, mine.created_at) != (theirs.name, theirs.created_at):
        unknown = "at an unknown time"
        return (
            f"is another project ({theirs.name!r}, made {theirs.created_at or unknown}), "
            f"not a copy of {mine.name!r} (made {mine.created_at or unknown}); "
            "nothing was changed"
        )
    return None


class _Plan:
    """What merging one copy into a project does, computed from both folders before any
    write; ``apply`` carries it out."""

    def __init__(self, root: Path, copy: Path, stamp: str) -> None:
        self.root, self.copy, self.stamp = root, copy, stamp
        self.steps: list[MergeStep] = []
        #: relative path → new bytes (None: copy the file from the copy)
        self.writes: dict[str, bytes] = {}
        #: case folders only the copy has
        self.new_cases: list[str] = []
        #: relative image path → (new image relative path, its bytes)
        self.images: dict[str, tuple[str, bytes]] = {}
        #: events the merge itself adds to the case being planned (a repair left waiting)
        self.events: list[dict[str, Any]] = []
        #: a new case's files the merge writes in place of the copy's (a review cut at its
        #: limits, the whole one beside it): relative path → bytes
        self.new_case_files: dict[str, bytes] = {}

    def add(self, kind: str, rel: str, why: str, data: bytes | None = None) -> None:
        self.steps.append(MergeStep(kind, rel, why))
        if data is not None:
            self.writes[rel] = data


def plan_merge(root: Path, copy: Path, stamp: str) -> _Plan:
    plan = _Plan(root, copy, stamp)
    theirs_cases = copy / "cases"
    if not theirs_cases.is_dir():
        return plan
    for folder in sorted(theirs_cases.iterdir()):
        if not folder.is_dir() or folder.is_symlink() or folder.name.startswith("."):
            continue
        mine = root / "cases" / folder.name
        if not mine.exists():
            plan.new_cases.append(folder.name)
            plan.steps.append(MergeStep("case", f"cases/{folder.name}", "a case only the copy has"))
            _plan_new_case_reviews(plan, folder)
            continue
        if mine.is_dir() and not mine.is_symlink():
            _plan_case(plan, folder.name, mine, folder)
    return plan


def _plan_case(plan: _Plan, case_id: str, mine: Path, theirs: Path) -> None:
    rel = f"cases/{case_id}"
    my_history = read_history(mine / HISTORY).entries
    their_history = read_history(theirs / HISTORY).entries
    my_keys = {_event_key(e) for e in my_history}
    their_keys = {_event_key(e) for e in their_history}
    _plan_files(plan, rel, mine, theirs)
    _plan_reviews(plan, rel, mine, theirs, my_history, their_history, my_keys, their_keys)
    _plan_images(plan, case_id, mine, theirs)
    added, plan.events = plan.events, []
    if their_keys - my_keys or added:
        merged: dict[str, dict[str, Any]] = {}
        for entry in [*my_history, *their_history, *added]:
            merged.setdefault(_event_key(entry), entry)
        ordered = sorted(merged.values(), key=lambda e: str(e.get("at", "")))
        data = b"".join(
            json.dumps(e, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
            for e in ordered
        )
        n = len(their_keys - my_keys)
        why = f"{n} events only the copy has" + (f", {len(added)} of the merge" if added else "")
        plan.add("history", f"{rel}/{HISTORY}", why, data)


def _reviewer_events(entries: list[dict[str, Any]], keys: set[str], name: str) -> set[str]:
    return {k for e in entries if e.get("reviewer") == name for k in [_event_key(e)]} & keys


def _plan_reviews(
    plan: _Plan,
    rel: str,
    mine: Path,
    theirs: Path,
    my_history: list[dict[str, Any]],
    their_history: list[dict[str, Any]],
    my_keys: set[str],
    their_keys: set[str],
) -> None:
    folder = theirs / "reviews"
    if not folder.is_dir() or folder.is_symlink():
        return
    for path in sorted(folder.iterdir()):
        if path.suffix != ".json" or path.name.startswith(".") or not path.is_file():
            continue
        raw = path.read_bytes()
        target = mine / "reviews" / path.name
        target_rel = f"{rel}/reviews/{path.name}"
        raw = _within_limits(plan, path, raw, target_rel)
        if CONFLICT_INFIX in path.name:  # a conflict still to settle: carried over as it is
            if not target.exists():
                plan.add("file", target_rel, "a conflict still to settle in the copy", raw)
            continue
        if not target.exists():
            plan.add("review", target_rel, "a review only the copy has", raw)
            continue
        ours = target.read_bytes()
        if ours == raw:
            continue
        name = path.stem
        copy_only = _reviewer_events(their_history, their_keys - my_keys, name)
        project_only = _reviewer_events(my_history, my_keys - their_keys, name)
        if copy_only and not project_only:
            plan.add("review", target_rel, f"{name} changed it only in the copy", raw)
        elif copy_only or not project_only:
            _plan_review_conflict(plan, rel, mine, name, raw)


def _plan_new_case_reviews(plan: _Plan, folder: Path) -> None:
    """A case only the copy has is copied whole, but its reviews are held to the same
    limits as any the merge writes: one past a limit goes in cut, the whole one beside it."""
    reviews = folder / "reviews"
    if not reviews.is_dir() or reviews.is_symlink():
        return
    for path in sorted(reviews.iterdir()):
        if path.suffix != ".json" or path.name.startswith(".") or not path.is_file():
            continue
        raw = path.read_bytes()
        rel = f"reviews/{path.name}"
        checked = _within_limits(plan, path, raw, f"cases/{folder.name}/{rel}", folder.name)
        if checked is not raw:
            plan.new_case_files[f"{folder.name}/{rel}"] = checked


def _within_limits(
    plan: _Plan, source: Path, raw: bytes, target_rel: str, new_case: str | None = None
) -> bytes:
    """The bytes to write for the copy's review *source*: its own when the reader takes
    them; cut at the limits (``over_limit``) when an earlier version wrote a text or a list
    past one, its whole file planned beside it; a MergeError naming the file (nothing
    written) for any other problem. Nothing is ever written that the reader refuses."""
    case_id = target_rel.split("/")[1]
    try:
        data, _ = read_json(source, "review", ReviewError, follow_links=False)
    except ReviewError as exc:
        raise MergeError(
            f"cannot be taken back: {exc.reason}; nothing was changed", source
        ) from exc
    try:
        validate_review(data, source, case_id)
        return raw
    except ReviewError as exc:
        cause = exc.__cause__
        cut = cut_to_limits(data, cause, Review) if isinstance(cause, ValidationError) else None
        if cut is None:
            raise MergeError(
                f"cannot be taken back: {exc.reason}; nothing was changed", source
            ) from exc
    try:
        review = validate_review(cut[0], source, case_id)
    except ReviewError as err:
        raise MergeError(
            f"cannot be taken back: {err.reason}; nothing was changed", source
        ) from err
    side = side_path(Path(target_rel), raw).name
    side_rel = f"{target_rel.rsplit('/', 1)[0]}/{side}"
    why = f"the copy's review as it was, whole ({'; '.join(cut[1])}; taken cut at the limit)"
    if new_case is not None:
        plan.new_case_files[f"{new_case}/reviews/{side}"] = raw
        plan.steps.append(MergeStep("file", side_rel, why))
    elif not plan.root.joinpath(*side_rel.split("/")).exists():  # an earlier merge kept it
        plan.add("file", side_rel, why, raw)
    return dumps_json(review.model_dump(mode="json"))


def _plan_review_conflict(plan: _Plan, rel: str, mine: Path, name: str, raw: bytes) -> None:
    """Both sides changed *name*'s review (or it differs with nothing to say who changed
    it): the copy's version goes beside it, unless an earlier merge already put it there."""
    folder = mine / "reviews"
    for kept in folder.glob(f"{name}{CONFLICT_INFIX}*.json"):
        if kept.is_file() and kept.read_bytes() == raw:
            return
    side = f"{rel}/reviews/{name}{CONFLICT_INFIX}{plan.stamp}.json"
    plan.add(
        "review_conflict",
        side,
        f"{name} changed this review on both sides; the copy's version is kept beside it "
        "for them to settle",
        raw,
    )


def _plan_files(plan: _Plan, rel: str, mine: Path, theirs: Path) -> None:
    """Repair previews and backups the project lacks (a name taken by other bytes keeps
    the copy's under a name of its own, so neither is lost)."""
    for sub in ("repairs", "repairs/backups"):
        source = theirs / sub
        if not source.is_dir() or source.is_symlink():
            continue
        for path in sorted(source.iterdir()):
            if not path.is_file() or path.is_symlink() or path.name.startswith("."):
                continue
            raw = path.read_bytes()
            target = mine / sub / path.name
            if target.exists():
                if target.read_bytes() == raw:
                    continue
                same = _hashes_in(mine / sub).get(_sha(raw))
                if same:
                    continue
                name = f"{path.stem}__from-copy-{plan.stamp}{path.suffix}"
                plan.add("file", f"{rel}/{sub}/{name}", "a repair file of the copy", raw)
                continue
            plan.add("file", f"{rel}/{sub}/{path.name}", "a repair file only the copy has", raw)


def _plan_images(plan: _Plan, case_id: str, mine: Path, theirs: Path) -> None:
    rel = f"cases/{case_id}"
    for role in IMAGE_ROLES:
        their_image, my_image = _image_of(theirs, role), _image_of(mine, role)
        if their_image is None or my_image is None:
            continue
        their_raw, my_raw = their_image.read_bytes(), my_image.read_bytes()
        if their_raw == my_raw:
            continue
        their_sha, my_sha = _sha(their_raw), _sha(my_raw)
        if their_sha in _hashes_in(mine / "repairs/backups", f"{role}__"):
            continue  # the project replaced the copy's image since: the project is ahead
        my_rel = f"{rel}/{my_image.name}"
        if my_sha in _hashes_in(theirs / "repairs/backups", f"{role}__"):
            plan.images[my_rel] = (f"{rel}/{their_image.name}", their_raw)
            plan.steps.append(
                MergeStep("image", my_rel, f"the copy accepted a repair of the {role} image")
            )
            continue
        if their_sha in _hashes_in(mine / "repairs"):
            continue  # already waiting on the case from an earlier merge
        preview = f"{case_id}__{plan.stamp}Z__merge__repaired.png"
        plan.add(
            "image_conflict",
            f"{rel}/repairs/{preview}",
            f"both sides replaced the {role} image differently; the copy's is a repair "
            "waiting on the case: decide which stays",
            their_raw,
        )
        _wait_for_decision(plan, rel, mine, theirs, role, f"repairs/{preview}")


def _accepted_in(theirs: Path, role: str) -> tuple[str, dict[str, Any]] | None:
    """The copy's latest accepted repair of *role*: (its reviewer, its record)."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    for path in sorted((theirs / "reviews").glob("*.json")):
        if CONFLICT_INFIX in path.name or path.name.startswith("."):
            continue
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            continue
        for record in data.get("repairs") or [] if isinstance(data, dict) else []:
            if (
                isinstance(record, dict)
                and record.get("image_role") == role
                and record.get("status") == "accepted"
            ):
                found.append((str(record.get("decided_at") or ""), path.stem, record))
    if not found:
        return None
    _, name, record = max(found, key=lambda f: f[0])
    return name, record


def _wait_for_decision(
    plan: _Plan, rel: str, mine: Path, theirs: Path, role: str, preview: str
) -> None:
    """Record the copy's image as a repair preview in its repairer's review of the
    project (the one the merge writes, if it writes one), marked for a decision: that
    reviewer sees it among the case's repairs and accepts or discards it."""
    accepted = _accepted_in(theirs, role)
    if accepted is None:
        return  # made by hand: the preview file alone waits in repairs/
    name, source = accepted
    review_rel = f"{rel}/reviews/{name}.json"
    path = mine / "reviews" / f"{name}.json"
    raw = plan.writes.get(review_rel) or (path.read_bytes() if path.is_file() else None)
    try:
        data: dict[str, Any] = (
            json.loads(raw) if raw else {**Review.empty(rel[6:], name).model_dump(mode="json")}
        )
    except ValueError:
        return  # a review that does not read: validate names it; the preview still waits
    repairs = list(data.get("repairs") or [])
    taken = {r.get("id") for r in repairs if isinstance(r, dict)}
    number = len(repairs) + 1
    while f"r{number}" in taken:
        number += 1
    kept = ("op", "engine", "model", "instruction", "box")
    record: dict[str, Any] = {
        **{k: v for k, v in source.items() if k in kept},
        "id": f"r{number}",
        "image_role": role,
        "preview": preview,
        "status": "preview",
        "created_at": utc_now(),
        "merge": "both sides replaced this image; the copy's result waits here: decide "
        "which stays (accept it, or discard it to keep the project's)",
    }
    data["repairs"] = [*repairs, record]
    plan.events.append(
        {
            "at": record["created_at"],
            "reviewer": name,
            "event": "repair_preview",
            "data": {"id": record["id"], "image_role": role, "preview": preview, "merge": True},
        }
    )
    try:
        Review.model_validate(data)  # what is written is a review the app reads
    except ValueError:
        return
    plan.add(
        "review",
        review_rel,
        f"the copy's {role} image waits in {name}'s repairs as {record['id']}",
        dumps_json(data),
    )


def _new_backup_folder(root: Path, stamp: str) -> Path:
    try:
        return new_backup_folder(root / BACKUP_PARENT, BACKUP_PREFIX, stamp)
    except StorageError as exc:
        raise MergeError(exc.reason, exc.path) from exc


def _keep_old(root: Path, backup: Path, rel: str) -> None:
    path = root.joinpath(*rel.split("/"))
    if path.is_file():
        target = backup.joinpath(*rel.split("/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(target, path.read_bytes())


def _apply(plan: _Plan, backup: Path) -> None:
    root = plan.root
    for case_id in plan.new_cases:
        staging = root / "cases" / f".{case_id}.merging"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(plan.copy / "cases" / case_id, staging, symlinks=True)
        for rel, data in plan.new_case_files.items():
            head, _, rest = rel.partition("/")
            if head == case_id:
                atomic_write_bytes(staging.joinpath(*rest.split("/")), data)
        staging.rename(root / "cases" / case_id)
    # files first, reviews and history after, images last: a stop half-way leaves every
    # image where a review or preview names it
    for rel, data in plan.writes.items():
        _keep_old(root, backup, rel)
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
    for old_rel, (new_rel, data) in plan.images.items():
        role, _, ext = Path(old_rel).name.partition(".")
        old = root.joinpath(*old_rel.split("/"))
        kept = old.parent / "repairs" / "backups" / f"{role}__{plan.stamp}Z__merge.{ext}"
        kept.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(kept, old.read_bytes())  # the old image first, never lost
        _keep_old(root, backup, old_rel)
        atomic_write_bytes(root.joinpath(*new_rel.split("/")), data)
        if new_rel != old_rel:
            old.unlink()


def _planned(root: Path, copy: Path, stamp: str) -> _Plan:
    """The plan, or a MergeError naming the file that could not be read (nothing written)."""
    try:
        return plan_merge(root, copy, stamp)
    except OSError as exc:
        where = Path(exc.filename) if exc.filename else copy
        raise MergeError(
            f"cannot be read ({exc.strerror or exc}); nothing was changed", where
        ) from exc


def merge_copy(root: Path, copy: Path, *, dry_run: bool = False) -> MergeResult:
    """Bring the work done in *copy* into the project at *root* (see the module's
    docstring); with *dry_run* only say what it would do. Nothing is ever written to
    *copy*."""
    root = Path(root).expanduser().absolute()
    copy = Path(copy).expanduser().absolute()
    problem = same_project_problem(root, copy)
    if problem:
        raise MergeError(problem, copy)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    result = MergeResult(root, copy, dry_run=dry_run)
    if dry_run:
        result.steps = _planned(root, copy, stamp).steps
        return result
    if not probe_writable(root):
        raise MergeError("the project folder cannot be written; nothing was changed", root)
    with file_lock(root / MANIFEST_NAME, busy="another sabre-desk is writing the project"):
        plan = _planned(root, copy, stamp)
        result.steps = plan.steps
        if not plan.steps:
            return result
        result.backup = _new_backup_folder(root, stamp)
        report = {
            "format": "sabre-desk-merge",
            "version": 1,
            "copy": str(copy),
            "started_at": utc_now(),
            "finished": False,
            "steps": [s.to_json() for s in plan.steps],
        }
        atomic_write_bytes(result.backup / "merge.json", dumps_json(report))
        try:
            _apply(plan, result.backup)
        except OSError as exc:
            raise MergeError(
                f"the merge stopped ({exc.strerror or exc}); every file it rewrote has its "
                f"old bytes in {result.backup}; run it again to finish",
                Path(exc.filename) if exc.filename else root,
            ) from exc
        report.update(finished=True, finished_at=utc_now())
        atomic_write_bytes(result.backup / "merge.json", dumps_json(report))
    return result
