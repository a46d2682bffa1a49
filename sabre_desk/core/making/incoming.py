"""Cases on their way in: specified, waiting for images, or failed with a reason.

A generated Sample Specification is not a case yet: nothing can be reviewed or screened
until its images exist. So it waits in ``generation/<case id>/`` (``spec.json``, images as
they are made, ``status.json`` when the last attempt failed), outside ``cases/``, where the
index, the window, screening and export never see it. When its last image is made, the case
is written into ``cases/`` whole (as ``import`` writes one) and its staging folder removed.
A folder left behind by a killed run after that write is recognised and cleared.

Every file here is written atomically; an image made before a run was killed stays, so the
resumed run does not pay for it again.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from sabre_desk.core.case.project import CASES_DIR, SPEC_NAME
from sabre_desk.core.case.review import utc_now
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.storage import (
    append_history,
    atomic_write_bytes,
    atomic_write_json,
    file_lock,
    read_history,
    read_json,
)

GENERATION_DIR = "generation"
STATUS_NAME = "status.json"
#: Specifications the writer could not get right: one line per attempt run out.
SPEC_FAILURES = "spec_failures.jsonl"


class StagedState(StrEnum):
    SPECIFIED = "specified"  # a valid specification, images not made yet
    FAILED = "failed"  # the last image attempt failed (reason kept); a rerun tries again


@dataclass
class Staged:
    case_id: str
    folder: Path
    state: StagedState
    reason: str | None = None
    #: images already made (role → file), kept across runs
    made: dict[str, Path] | None = None


def staging_dir(root: Path) -> Path:
    return root / GENERATION_DIR


def staged_folder(root: Path, case_id: str) -> Path:
    problem = id_problem(case_id)
    if problem:
        raise ProjectError(problem, staging_dir(root) / case_id)
    return staging_dir(root) / case_id


def stage_spec(root: Path, case_id: str, spec: dict[str, Any]) -> Path:
    """Keep a valid specification until its images are made."""
    folder = staged_folder(root, case_id)
    folder.mkdir(parents=True, exist_ok=True)
    atomic_write_json(folder / SPEC_NAME, spec, kind="spec")
    return folder


def staged_spec(folder: Path) -> dict[str, Any]:
    data, _ = read_json(folder / SPEC_NAME, "spec", ProjectError)
    if not isinstance(data, dict):
        raise ProjectError("not a JSON object", folder / SPEC_NAME)
    return data


def save_made_image(folder: Path, role: str, png: bytes) -> Path:
    path = folder / f"{role}.png"
    atomic_write_bytes(path, png)
    return path


def made_images(folder: Path) -> dict[str, Path]:
    return {
        p.stem: p
        for p in sorted(folder.glob("*.png"))
        if p.stem in ("base", "edited", "image") and not p.name.startswith(".")
    }


def mark_failed(folder: Path, stage: str, reason: str) -> None:
    status = {"state": "failed", "stage": stage, "reason": reason[:4096], "at": utc_now()}
    atomic_write_json(folder / STATUS_NAME, status, kind="status")


def clear_failed(folder: Path) -> None:
    (folder / STATUS_NAME).unlink(missing_ok=True)


def _status(folder: Path) -> dict[str, Any] | None:
    if not (folder / STATUS_NAME).is_file():
        return None
    try:
        data, _ = read_json(folder / STATUS_NAME, "status", ProjectError)
    except ProjectError:
        return None
    return data if isinstance(data, dict) else None


def staged_cases(root: Path) -> list[Staged]:
    """Every case waiting for images, in id order. A folder whose case is already in
    ``cases/`` (a run killed between writing the case and clearing its folder) is cleared."""
    found: list[Staged] = []
    base = staging_dir(root)
    if not base.is_dir():
        return found
    for entry in sorted(os.scandir(base), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
            continue
        folder = Path(entry.path)
        if not (folder / SPEC_NAME).is_file():
            continue
        taken = root / CASES_DIR / entry.name / SPEC_NAME
        if taken.is_file():
            if _made_from_here(taken):
                shutil.rmtree(folder, ignore_errors=True)
                continue
            reason = f"a case {entry.name!r} that was not made from this specification is in cases/"
            found.append(Staged(entry.name, folder, StagedState.FAILED, reason, {}))
            continue
        status = _status(folder)
        failed = status is not None and status.get("state") == "failed"
        found.append(
            Staged(
                entry.name,
                folder,
                StagedState.FAILED if failed else StagedState.SPECIFIED,
                str(status.get("reason")) if failed and status else None,
                made_images(folder),
            )
        )
    return found


def _made_from_here(spec_path: Path) -> bool:
    """Whether the case was written by `generate images` (its staging folder is then only
    what a killed run left behind), not imported or authored under the same id."""
    try:
        data, _ = read_json(spec_path, "spec", ProjectError)
    except ProjectError:
        return False
    provenance = data.get("provenance") if isinstance(data, dict) else None
    return isinstance(provenance, dict) and bool(provenance.get("generated"))


def staged_ids(root: Path) -> set[str]:
    base = staging_dir(root)
    if not base.is_dir():
        return set()
    return {e.name for e in os.scandir(base) if not e.name.startswith(".") and e.is_dir()}


def arrived_cases(root: Path, known: Collection[str]) -> list[str]:
    """Cases in ``cases/`` that *known* (an open index) lacks, in id order: written since the
    index was read, by a run in another process. A case is written by a rename of its whole
    folder, so one that is listed is complete; a folder whose name is not a case id is left
    for the index to report."""
    try:
        items = list(os.scandir(root / CASES_DIR))
    except OSError:
        return []
    return sorted(
        e.name
        for e in items
        if e.name not in known
        and not e.name.startswith(".")
        and id_problem(e.name) is None
        and e.is_dir(follow_symlinks=False)
    )


def record_spec_failure(root: Path, line: dict[str, Any]) -> None:
    path = staging_dir(root) / SPEC_FAILURES
    path.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(path):
        append_history(path, {"at": utc_now(), **line})


def spec_failures(root: Path) -> list[dict[str, Any]]:
    path = staging_dir(root) / SPEC_FAILURES
    if not path.is_file():
        return []
    try:
        return read_history(path).entries
    except (ProjectError, StorageError):
        return []
