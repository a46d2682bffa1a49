"""A new, empty project: the folder a reviewer's own cases (and the demo's) go into.

Made the same way from the command line, the welcome page and the demo, so that every
project starts from one definition of what an empty valid project is.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from sabre_desk.core.case.git_files import write_git_files
from sabre_desk.core.case.primer_changes import recorded_primers
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import CASES_DIR, MANIFEST_NAME, PROJECT_FORMAT, PROJECT_VERSION
from sabre_desk.core.case.review import utc_now
from sabre_desk.ground.aside import built_aside
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.storage import TEMP_SUFFIX, atomic_write_json


def project_name_for(folder: Path) -> str:
    """The name a project gets when none is given: its folder's."""
    return folder.absolute().name or "project"


def init_project(
    dest: Path,
    name: str | None = None,
    primer: str | None = None,
    *,
    created_at: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Path:
    """Write an empty project into *dest* (absent or an empty folder), whole or not at all:
    a new folder is built aside and renamed into place. *primer* is the name
    or pressure-test type of a shipped primer, checked here so that a typo is said now and
    not found weeks later when no checklist shows up."""
    dest = Path(dest)
    if (dest / MANIFEST_NAME).exists():
        raise ProjectError("is already a project; open it instead", dest)
    if dest.exists() and not dest.is_dir():
        raise ProjectError("is a file, not a folder", dest)
    if dest.is_dir() and not _empty_or_unfinished(dest):
        raise ProjectError("folder is not empty; choose a new or empty folder", dest)
    name = (name if name is not None else project_name_for(dest)).strip()
    if not name:
        raise ProjectError("a project needs a name", dest)
    library = PrimerLibrary.for_project(None)
    if primer is not None:
        problem = id_problem(primer, "primer")
        found = library.primers.get(primer) or library.by_type(primer)
        if problem or found is None:
            known = ", ".join(sorted(library.primers))
            raise ProjectError(f"no primer {primer!r} (known: {known})", dest)
        primer = found.name
    manifest = {
        "format": PROJECT_FORMAT,
        "version": PROJECT_VERSION,
        "name": name,
        "created_at": created_at or utc_now(),
        "primer": primer,
        **(extra or {}),
        # the primers its cases will be made with (a later sabre-desk reads what changed)
        "primers": {
            name: record.model_dump(mode="json")
            for name, record in recorded_primers(library).items()
        },
    }
    try:
        if dest.is_dir():
            _write_into_empty(dest, manifest)
        else:
            with built_aside(dest) as aside:
                _write_project(aside, manifest)
    except OSError as exc:
        raise ProjectError(f"cannot create the project here ({exc.strerror or exc})", dest) from exc
    return dest


def _write_project(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / CASES_DIR).mkdir(exist_ok=True)
    atomic_write_json(folder / MANIFEST_NAME, manifest)
    write_git_files(folder)  # after the manifest: a stopped init leaves no stray file


def _write_into_empty(dest: Path, manifest: dict[str, Any]) -> None:
    """An empty folder the user chose cannot be renamed over: its project is written in
    place, the manifest last (a folder is a project only once it has one), and what was
    made is removed again when the write fails."""
    cases = dest / CASES_DIR
    made_cases = not cases.exists()
    try:
        _write_project(dest, manifest)
    except BaseException:
        if made_cases:
            with contextlib.suppress(OSError):
                cases.rmdir()
        raise


def _empty_or_unfinished(dest: Path) -> bool:
    """True for an empty folder, or one holding only what a stopped ``init`` leaves (an
    empty ``cases/`` and the manifest's temp file, no manifest): a new project may go
    there, so a run that was killed never takes the folder."""
    for entry in dest.iterdir():
        if entry.name == CASES_DIR and entry.is_dir() and not entry.is_symlink():
            if any(entry.iterdir()):
                return False
        elif not (entry.name.startswith(f".{MANIFEST_NAME}.") and entry.name.endswith(TEMP_SUFFIX)):
            return False
    return True
