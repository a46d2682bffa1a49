"""A new, empty project: the folder a reviewer's own cases (and the demo's) go into.

Made the same way from the command line, the welcome page and the demo, so that every
project starts from one definition of what an empty valid project is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sabre_desk.core.case.primer_changes import recorded_primers
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import CASES_DIR, MANIFEST_NAME, PROJECT_FORMAT, PROJECT_VERSION
from sabre_desk.core.case.review import utc_now
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.storage import atomic_write_json


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
    """Write an empty project into *dest* (absent or an empty folder). *primer* is the name
    or pressure-test type of a shipped primer, checked here so that a typo is said now and
    not found weeks later when no checklist shows up."""
    dest = Path(dest)
    if (dest / MANIFEST_NAME).exists():
        raise ProjectError("is already a project; open it instead", dest)
    if dest.exists() and not dest.is_dir():
        raise ProjectError("is a file, not a folder", dest)
    if dest.is_dir() and any(dest.iterdir()):
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
    try:
        (dest / CASES_DIR).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ProjectError(f"cannot create the project here ({exc.strerror or exc})", dest) from exc
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
    atomic_write_json(dest / MANIFEST_NAME, manifest)
    return dest
