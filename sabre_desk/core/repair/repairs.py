"""Repair previews, accepting, reverting and discarding them, on disk.

Accepting replaces an image, so it is done in steps that can be interrupted anywhere (power
cut, kill) without losing either image: the review first records the intent ("accepting",
with the backup's name), the current image is copied to ``repairs/backups/``, the preview is
written over the image atomically, and only then is the repair marked accepted. At every
instant the old image is at ``<role>.*`` or in the backups, and the new one is at
``<role>.png`` or in ``repairs/``. ``recover`` finishes or rolls back a step that was cut
short, by comparing file contents. Reverting works the same way in the other direction.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabre_desk.core.case.binding import bind, folder_hashes
from sabre_desk.core.case.locks import case_lock
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Decision, RepairRecord, utc_now
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.jobs.ledger import LEDGER_NAME, Ledger
from sabre_desk.core.repair import comparison
from sabre_desk.engines.answers import Usage
from sabre_desk.engines.base import RepairEngine
from sabre_desk.ground import limits
from sabre_desk.ground.errors import LockBusyError, ProjectError, RepairError
from sabre_desk.ground.reading import MB, read_limited
from sabre_desk.ground.storage import LOCK_TIMEOUT_S, atomic_write_bytes, create_new_file
from sabre_desk.imaging.io import (
    IMAGE_EXTENSIONS,
    encode_repaired,
    find_image,
    image_from_bytes,
    probe_image,
)

if TYPE_CHECKING:  # the repair pipeline (OpenCV) loads with the first repair
    from sabre_desk.engines.pipeline import RepairOrder, RepairOutcome

REPAIRS_DIR = "repairs"
BACKUPS_DIR = "backups"
#: Largest image file copied by accept and revert (a 100 MP PNG with noise is ~300 MB).
MAX_IMAGE_FILE = 1024 * MB


def _checkpoint(step: str) -> None:
    """A named point between the steps of an accept or revert (tests stop the process here)."""


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")


def _unique(path: Path) -> Path:
    if not path.exists():
        return path
    for n in range(2, 1000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")
        if not candidate.exists():
            return candidate
    raise RepairError("too many files with the same name", path)


def _digest(path: Path | None) -> str | None:
    """The content hash of a case file, or None when it is missing or not a safe file."""
    if path is None:
        return None
    try:
        return hashlib.sha256(_read_image_file(path)).hexdigest()
    except RepairError:
        return None


def _inside_case(case: Case, path: Path) -> bool:
    try:
        return path.resolve().is_relative_to(case.folder.resolve())
    except (OSError, RuntimeError):
        return False


def stored_file(case: Case, relative: str) -> Path:
    """A repair file named in the review (preview or backup), checked before any use.

    The name itself is already restricted by the review model; this also refuses a
    ``repairs/`` folder or file that is a link leading elsewhere, so a review can never
    make the app read or overwrite a file outside the case.
    """
    path = case.folder / relative
    if path.is_symlink() or not _inside_case(case, path):
        raise RepairError("leads outside the case folder; not used", path, case.case_id)
    return path


def _read_image_file(path: Path) -> bytes:
    return read_limited(path, MAX_IMAGE_FILE, RepairError, follow_links=False)


def _own_folder(case: Case, *parts: str) -> Path:
    """A folder of the case the app writes into, created if needed; never a link."""
    folder = case.folder
    for part in parts:
        folder = folder / part
        if folder.is_symlink():
            raise RepairError(
                "is a symbolic link; repairs are only written inside the case", folder
            )
        try:
            folder.mkdir(exist_ok=True)
        except OSError as exc:
            raise RepairError(f"cannot create ({exc.strerror or exc})", folder) from exc
    return folder


def find_repair(case: Case, repair_id: str) -> RepairRecord:
    for record in case.review.repairs:
        if record.id == repair_id:
            return record
    raise RepairError(f"no repair {repair_id!r} in this review", case.review_path, case.case_id)


def save_preview(
    case: Case, role: ImageRole, png: bytes, engine: str, record: dict[str, Any]
) -> tuple[RepairRecord, Path]:
    """Write a repaired image (PNG bytes) into ``repairs/`` and describe it (no id yet and
    not in the review: ``add_preview`` does both, on the thread that owns the review)."""
    full = limits.REPAIRS
    if len(case.review.repairs) >= full.most:  # refused before the preview file is made
        raise RepairError(
            f"not made: {full.what} can hold at most {full.words()}; discard or remove some first",
            case.review_path,
            case.case_id,
        )
    folder = _own_folder(case, REPAIRS_DIR)
    # the reviewer in the name: two clones of a project never make one name twice
    stem = f"{case.case_id}__{_stamp()}__{engine}__{case.review.reviewer}__repaired"
    path = create_new_file(folder, stem, ".png", png)
    repair = RepairRecord.model_validate(
        {
            **record,
            "id": "",
            "image_role": role,
            "engine": engine,
            "preview": path.relative_to(case.folder).as_posix(),
            "status": "preview",
            "created_at": utc_now(),
        }
    )
    return repair, path


def add_preview(project: Project, case: Case, repair: RepairRecord, index: bool = True) -> None:
    """Give a new preview its id and record it in the review and the history (saved at once).

    Ids are handed out here, on the one thread that writes the case's review, so that
    repairs finishing at the same time never share one. *index*: as in ``save_review``."""
    taken = {r.id for r in case.review.repairs}
    number = len(case.review.repairs) + 1
    while f"r{number}" in taken:
        number += 1
    repair.id = f"r{number}"
    case.review.repairs.append(repair)
    project.save_review(case, index=index)
    project.record(
        case,
        "repair_preview",
        {
            "id": repair.id,
            "image_role": repair.image_role,
            "engine": repair.engine,
            "op": repair.op,
            "preview": repair.preview,
        },
    )


def _image_path(case: Case, role: ImageRole) -> Path:
    path = find_image(case.folder, role.value)
    if path is None:
        raise RepairError(f"the {role.value} image is missing", case.folder, case.case_id)
    if path.is_symlink() or not _inside_case(case, path):
        raise RepairError("is a link leading elsewhere; not replaced", path, case.case_id)
    return path


def _refresh_image(case: Case, role: ImageRole) -> None:
    path = find_image(case.folder, role.value)
    if path is not None:
        case.images[role] = path
        case.image_info[role] = probe_image(path)
        case.image_problems.pop(role, None)


def _set_aside_other_extensions(case: Case, role: ImageRole, keep: Path) -> None:
    """Move the role's other image files (``edited.jpg`` beside a new ``edited.png``) into
    the backups: an image is never deleted, even one that was not the one shown."""
    for ext in IMAGE_EXTENSIONS:
        other = case.folder / f"{role.value}{ext}"
        if other == keep or not os.path.lexists(other):
            continue
        if other.is_symlink():
            other.unlink()  # a link is not an image of the case; what it points to stays
            continue
        backups = _own_folder(case, REPAIRS_DIR, BACKUPS_DIR)
        aside = _unique(backups / f"{role.value}__{_stamp()}__set-aside{ext}")
        try:
            other.replace(aside)
        except OSError as exc:
            raise RepairError(f"cannot move aside ({exc.strerror or exc})", other) from exc


def _case_lock(
    project: Project, case: Case, action: str, timeout_s: float = LOCK_TIMEOUT_S
) -> AbstractContextManager[None]:
    """Held for a whole accept, revert or recovery of a case's repairs: another window's
    recovery must never roll back an accept that is still running. It says who holds it
    (``locks``)."""
    return case_lock(case.folder, project.reviewer, action, timeout_s)


def _needs_recheck(case: Case) -> None:
    """The image changed under the repairer's own eyes: their decision is now "needs
    recheck", made on the images as they are after the step."""
    bind(case.review, Decision.NEEDS_RECHECK, folder_hashes(case.folder, case.spec.image_roles))


def accept(
    project: Project, case: Case, repair_id: str, checkpoint: Callable[[str], None] = _checkpoint
) -> RepairRecord:
    """Make a preview the case's image; the old image goes to ``repairs/backups/``."""
    with _case_lock(project, case, "accept"):
        return _accept(project, case, repair_id, checkpoint)


def _accept(
    project: Project, case: Case, repair_id: str, checkpoint: Callable[[str], None]
) -> RepairRecord:
    record = find_repair(case, repair_id)
    if record.status not in ("preview", "reverted", "discarded"):
        raise RepairError(
            f"repair {repair_id} is {record.status}; only a preview can be accepted",
            case.review_path,
            case.case_id,
        )
    role = ImageRole(record.image_role)
    preview = stored_file(case, record.preview)
    if not preview.is_file():
        raise RepairError("the preview image is missing", preview, case.case_id)
    preview_bytes = _read_image_file(preview)
    current = _image_path(case, role)
    current_bytes = _read_image_file(current)
    if comparison.is_stale(record, hashlib.sha256(current_bytes).hexdigest()):
        raise RepairError(
            f"repair {repair_id} was made on a {role.value} image that has changed since; "
            f"not accepted ({comparison.AGAIN.lower()})",
            current,
            case.case_id,
        )
    backups = _own_folder(case, REPAIRS_DIR, BACKUPS_DIR)
    # The copy of the image is made first, under a name nobody else can take; only then
    # does the review say it exists.
    backup = create_new_file(backups, f"{role.value}__{_stamp()}", current.suffix, current_bytes)
    before = record.status
    record.status, record.backup = "accepting", backup.relative_to(case.folder).as_posix()
    project.save_review(case)
    checkpoint("journal")
    checkpoint("backup")
    target = case.folder / f"{role.value}.png"
    atomic_write_bytes(target, preview_bytes)
    checkpoint("replaced")
    _set_aside_other_extensions(case, role, target)
    checkpoint("cleaned")
    old_decision = case.review.decision
    record.status, record.decided_at = "accepted", utc_now()
    not_taken = _close_the_others(case, record)
    _needs_recheck(case)
    project.save_review(case)
    project.record(
        case,
        "repair_accepted",
        {"id": record.id, "image_role": role.value, "backup": record.backup, "from": before},
    )
    for other in not_taken:
        project.record(case, "repair_not_taken", {"id": other, "accepted": record.id})
    if old_decision is not Decision.NEEDS_RECHECK:
        project.record(
            case,
            "decision",
            {
                "from": old_decision.value if old_decision else None,
                "to": Decision.NEEDS_RECHECK.value,
                "reason": f"repair {record.id} accepted",
            },
        )
    _refresh_image(case, role)
    return record


def _close_the_others(case: Case, accepted: RepairRecord) -> list[str]:
    """The box's other results waiting for the reviewer are not taken: their files stay in
    ``repairs/`` and the list names them so, and the case no longer has a repair waiting."""
    closed = []
    for other in comparison.results_of(case.review.repairs, accepted).results:
        if other is not accepted and other.status == "preview":
            other.status, other.decided_at = "discarded", utc_now()
            setattr(other, comparison.NOT_TAKEN_FOR, accepted.id)
            closed.append(other.id)
    return closed


def revert(
    project: Project, case: Case, repair_id: str, checkpoint: Callable[[str], None] = _checkpoint
) -> RepairRecord:
    """Put back the image an accepted repair replaced (the repaired one stays in repairs/)."""
    with _case_lock(project, case, "revert"):
        return _revert(project, case, repair_id, checkpoint)


def _revert(
    project: Project, case: Case, repair_id: str, checkpoint: Callable[[str], None]
) -> RepairRecord:
    record = find_repair(case, repair_id)
    if record.status != "accepted" or not record.backup:
        raise RepairError(
            f"repair {repair_id} is {record.status}; only an accepted repair can be reverted",
            case.review_path,
            case.case_id,
        )
    role = ImageRole(record.image_role)
    backup = stored_file(case, record.backup)
    if not backup.is_file():
        raise RepairError("the backup of the original image is missing", backup, case.case_id)
    backup_bytes = _read_image_file(backup)
    record.status = "reverting"
    project.save_review(case)
    checkpoint("journal")
    target = case.folder / f"{role.value}{backup.suffix}"
    atomic_write_bytes(target, backup_bytes)
    checkpoint("restored")
    _set_aside_other_extensions(case, role, target)
    checkpoint("cleaned")
    record.status, record.decided_at = "reverted", utc_now()
    reopened = _reopen_the_others(case, record)
    project.save_review(case)
    project.record(case, "repair_reverted", {"id": record.id, "image_role": role.value})
    for other in reopened:
        reason = {"id": other, "restored": True, "reverted": record.id}
        project.record(case, "repair_preview", reason)
    _refresh_image(case, role)
    return record


def _reopen_the_others(case: Case, reverted: RepairRecord) -> list[str]:
    """The box's results that accepting ``reverted`` closed wait for the reviewer again:
    the image is the one they were made on once more. Left closed, the list went on saying
    "not taken (r3 accepted)" under an r3 that said "reverted" (after Ctrl+Z of the accept
    too, which reverts it). A result the reviewer discarded stays discarded."""
    reopened = []
    for other in comparison.results_of(case.review.repairs, reverted).results:
        if other.status == "discarded" and comparison.not_taken_for(other) == reverted.id:
            _waiting_again(other)
            reopened.append(other.id)
    return reopened


def _waiting_again(record: RepairRecord) -> None:
    """A result set aside (discarded, or not taken) is a preview waiting for the reviewer
    once more, with no word of why it was set aside."""
    record.status, record.decided_at = "preview", None
    if record.model_extra:
        record.model_extra.pop(comparison.NOT_TAKEN_FOR, None)


def discard(project: Project, case: Case, repair_id: str) -> RepairRecord:
    """Set a preview aside; the image is untouched and the preview file kept for the record."""
    record = find_repair(case, repair_id)
    if record.status != "preview":
        raise RepairError(
            f"repair {repair_id} is {record.status}; only a preview can be discarded",
            case.review_path,
            case.case_id,
        )
    record.status, record.decided_at = "discarded", utc_now()
    project.save_review(case)
    project.record(case, "repair_discarded", {"id": record.id})
    return record


def restore_preview(project: Project, case: Case, repair_id: str) -> RepairRecord:
    """Undo a discard: the repair is a preview again."""
    record = find_repair(case, repair_id)
    if record.status == "discarded":
        _waiting_again(record)
        project.save_review(case)
        project.record(case, "repair_preview", {"id": record.id, "restored": True})
    return record


def _stored_or_none(case: Case, relative: str | None) -> Path | None:
    if relative is None:
        return None
    try:
        return stored_file(case, relative)
    except RepairError:
        return None


class RepairStep(StrEnum):
    """What the reviewer does with a repair; each has an opposite, which is its undo."""

    ACCEPT = "accept"
    REVERT = "revert"
    DISCARD = "discard"
    RESTORE = "restore"

    @property
    def opposite(self) -> RepairStep:
        return _OPPOSITES[self]


_OPPOSITES = {
    RepairStep.ACCEPT: RepairStep.REVERT,
    RepairStep.REVERT: RepairStep.ACCEPT,
    RepairStep.DISCARD: RepairStep.RESTORE,
    RepairStep.RESTORE: RepairStep.DISCARD,
}


def take_step(project: Project, case: Case, step: RepairStep, repair_id: str) -> RepairRecord:
    """Accept, revert, discard or restore a repair on disk."""
    if step is RepairStep.ACCEPT:
        return accept(project, case, repair_id)
    if step is RepairStep.REVERT:
        return revert(project, case, repair_id)
    if step is RepairStep.DISCARD:
        return discard(project, case, repair_id)
    return restore_preview(project, case, repair_id)


def needs_recovery(case: Case) -> bool:
    return any(r.status in ("accepting", "reverting") for r in case.review.repairs)


def recover(project: Project, case: Case) -> list[str]:
    """Finish or roll back accepts and reverts that were cut short. Returns what was done.

    Only steps whose process is gone: while another window holds the case's repair lock,
    its accept is still running and nothing is touched."""
    try:
        with _case_lock(project, case, "recover", timeout_s=0):
            return _recover(project, case)
    except LockBusyError as exc:
        return [f"{exc.reason}; left as it is"]


def _recover(project: Project, case: Case) -> list[str]:
    done: list[str] = []
    for record in case.review.repairs:
        role = ImageRole(record.image_role)
        if record.status == "accepting":
            target = case.folder / f"{role.value}.png"
            preview = _stored_or_none(case, record.preview)
            backup = _stored_or_none(case, record.backup)
            if (
                _digest(target) is not None
                and _digest(target) == _digest(preview)
                and (backup is not None and backup.is_file())
            ):
                _set_aside_other_extensions(case, role, target)
                record.status, record.decided_at = "accepted", utc_now()
                _close_the_others(case, record)
                _needs_recheck(case)
                done.append(f"repair {record.id}: the interrupted accept was completed")
            else:
                record.status, record.backup = "preview", None
                done.append(f"repair {record.id}: the interrupted accept was rolled back")
        elif record.status == "reverting":
            original = _stored_or_none(case, record.backup)
            restored = case.folder / f"{role.value}{original.suffix}" if original else None
            if (
                restored is not None
                and _digest(restored) is not None
                and _digest(restored) == _digest(original)
            ):
                _set_aside_other_extensions(case, role, restored)
                record.status, record.decided_at = "reverted", utc_now()
                _reopen_the_others(case, record)
                done.append(f"repair {record.id}: the interrupted revert was completed")
            else:
                record.status = "accepted"
                done.append(f"repair {record.id}: the interrupted revert was rolled back")
        else:
            continue
        _refresh_image(case, role)
    if done:
        project.save_review(case)
        for line in done:
            project.record(case, "repair_recovered", {"note": line})
    return done


def _charge_to_ledger(case: Case, engine: RepairEngine) -> None:
    """Let an engine that reports its token use (Gemini) append it to the project's cost
    ledger, stage "repair". A ledger that cannot be written never fails the repair."""
    if not hasattr(engine, "on_usage"):
        return
    ledger = Ledger(case.folder.parent.parent / LEDGER_NAME)

    def charge(model: str, usage: Usage) -> None:
        with contextlib.suppress(ProjectError, OSError):
            ledger.add("repair", engine.name, model, usage, case.case_id)

    engine.on_usage = charge


def compute_preview(
    case: Case,
    role: ImageRole,
    order: RepairOrder,
    engine: RepairEngine,
    cancel: threading.Event | None = None,
    stands_in_for: str | None = None,
) -> tuple[RepairRecord, RepairOutcome]:
    """Repair one box of one image and write the preview file (the slow part: runs on a
    worker). The review is not touched; ``add_preview`` records the result. The record
    names the hash of the image it was made on (so it can never be accepted once that image
    has changed), for a quick preview the better engine it *stands_in_for*, and which of
    its engine's fills of the box it is, when not the first."""
    path = case.images.get(role)
    if path is None:
        problem = case.image_problems.get(role)
        raise RepairError(
            problem.reason if problem else f"no {role.value} image",
            problem.path if problem else case.folder,
            case.case_id,
        )
    from sabre_desk.engines.pipeline import run_repair  # OpenCV: not before the first repair

    _charge_to_ledger(case, engine)
    # the hash, the pixels repaired and the kind of image kept are all of the same bytes
    original = _read_image_file(path)
    made_on = hashlib.sha256(original).hexdigest()
    outcome = run_repair(image_from_bytes(original), order, engine, cancel)
    extra: dict[str, Any] = {comparison.IMAGE_HASH: made_on}
    if stands_in_for:
        extra[comparison.STANDS_IN_FOR] = stands_in_for
    if order.variant and type(engine).fills_vary:
        extra[comparison.VARIANT] = order.variant
    record, _ = save_preview(
        case,
        role,
        encode_repaired(original, outcome.image),
        engine.name,
        {
            "op": order.op,
            "model": outcome.model,
            "instruction": order.instruction,
            "box": order.box,
            "warnings": outcome.warnings,
            "seam": round(outcome.seam, 3),
            **extra,
        },
    )
    return record, outcome


def make_preview(
    case: Case,
    role: ImageRole,
    order: RepairOrder,
    engine: RepairEngine,
    cancel: threading.Event | None = None,
    stands_in_for: str | None = None,
) -> tuple[RepairRecord, str]:
    """``compute_preview`` for the window: the record and the outcome's one-line summary.
    The pixels stay behind (the preview is on disk): from a worker process they would be
    20 MB pickled through a pipe and unpickled in the window's process, for nothing."""
    record, outcome = compute_preview(case, role, order, engine, cancel, stands_in_for)
    return record, outcome.summary()
