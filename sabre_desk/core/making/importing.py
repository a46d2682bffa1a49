"""Bring cases made elsewhere into a project: a JSONL of specifications with image paths, or
a folder of images with a specification beside each.

Each case is checked whole before anything is written (its spec against the schema and its
primer, its images decoded to the last pixel and their sizes; each image is named by the
format it decoded as), then written into a hidden folder inside ``cases/`` and renamed into
place, so a case is either absent or complete, whatever stops the import.
Importing the same source twice changes nothing: a case that is already there with the
same specification and the same image bytes is "unchanged"; one that differs is reported,
never overwritten (it may carry weeks of reviews).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PureWindowsPath
from typing import Any

from pydantic import ValidationError

from sabre_desk.core.case.primers import PrimerLibrary, check_case
from sabre_desk.core.case.project import CASES_DIR, MANIFEST_NAME, SPEC_NAME, Manifest
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import ImageRole, SampleSpec
from sabre_desk.core.release.export import copy_file
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.paths import inside_project
from sabre_desk.ground.reading import MB, iter_lines, loads
from sabre_desk.ground.storage import atomic_write_json, read_json
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.io import IMAGE_EXTENSIONS, case_image_suffix, check_decodes, find_image

#: Longest JSONL line accepted: a specification is a few KB.
MAX_ROW = 1 * MB
#: The fields of a JSONL row that are not part of the specification.
ROW_FIELDS = ("case_id", "images")
#: Folder convention: ``NAME_base.png`` + ``NAME_edited.png`` make a pair, ``NAME.png`` a
#: single image; ``NAME.json`` beside them is the specification.
PAIR_SUFFIXES = {ImageRole.BASE: "_base", ImageRole.EDITED: "_edited"}


@dataclass
class Row:
    """One case to import, as read from the source (not yet checked)."""

    where: str  # "cases.jsonl line 12", "photos/mug.json"
    spec: Any
    images: dict[str, Path]
    case_id: str | None = None


@dataclass
class ImportReport:
    imported: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)  # (where, reason)

    def to_json(self) -> dict[str, Any]:
        return {
            "imported": self.imported,
            "unchanged": self.unchanged,
            "problems": [{"where": w, "reason": r} for w, r in self.problems],
        }


class RowError(ValueError):
    """Why one row cannot be imported (the rest go on)."""


def jsonl_rows(source: Path) -> Iterator[Row | tuple[str, str]]:
    """Rows of a JSONL file; a line that is not a JSON object is yielded as (where, reason)."""
    base = source.parent
    for number, raw in iter_lines(source, MAX_ROW):
        where = f"{source.name} line {number}"
        if raw is None:
            yield where, f"line is longer than {MAX_ROW // MB} MB"
            continue
        try:
            data = loads(raw)
        except ValueError as exc:
            yield where, str(exc)
            continue
        if not isinstance(data, dict):
            yield where, "a row is a JSON object (a specification with 'images')"
            continue
        problem = row_fields_problem(data)
        if problem:
            yield where, problem
            continue
        outside = next(
            (
                f"images: {role}: {why}"
                for role, name in data["images"].items()
                if (why := image_path_problem(base, name)) is not None
            ),
            None,
        )
        if outside:
            yield where, outside
            continue
        spec = {k: v for k, v in data.items() if k not in ROW_FIELDS}
        case_id = data.get("case_id")
        images = {k: base.joinpath(*v.split("/")) for k, v in data["images"].items()}
        yield Row(where, spec, images, case_id if case_id else None)


def image_path_problem(base: Path, name: str) -> str | None:
    """Why a row's image path *name* may not be read from the JSONL's folder *base*, or
    None: only a relative path inside that folder whose every step is a plain folder or
    file, never a link (a row must not copy a file from elsewhere into the project)."""
    shown = json.dumps(name, ensure_ascii=True)[:80]
    if "\\" in name or name.startswith("/") or PureWindowsPath(name).drive:
        return f"{shown} is an absolute path or has a backslash; give a path inside {base}"
    parts = name.split("/")
    if ".." in parts:
        return f"{shown} leads outside {base} (through '..'); give a path inside it"
    for depth in range(1, len(parts) + 1):
        step = base.joinpath(*parts[:depth])
        try:
            mode = os.lstat(step).st_mode
        except OSError:
            return None  # not there: the image's own check names it missing
        if stat.S_ISLNK(mode):
            return f"{shown}: {step} is a symbolic link; images are not imported through links"
    return None


def row_fields_problem(data: dict[str, Any]) -> str | None:
    """Why a row's own fields (not the specification's) are unusable, or None: each is
    checked for its type here, so a number for a case id or a NUL byte in a path is a
    reason for this row, never a crash of the whole import."""
    images = data.get("images")
    if not isinstance(images, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in images.items()
    ):
        return 'images: an object like {"base": "a.png", "edited": "b.png"}'
    for role, name in images.items():
        if "\0" in name or not name.strip():
            shown = json.dumps(name, ensure_ascii=True)[:80]
            return f"images: {role}: {shown} is not a file name (empty, or with a NUL byte)"
    case_id = data.get("case_id")
    if case_id is not None and not isinstance(case_id, str):
        return f"case_id: give the case id as text, not {type(case_id).__name__} {case_id!r:.40}"
    return None


def folder_rows(source: Path) -> Iterator[Row | tuple[str, str]]:
    """Rows of a folder: each ``NAME.json`` with its images (see PAIR_SUFFIXES)."""
    entries = sorted(source.iterdir())
    for link in (p for p in entries if p.is_symlink()):
        yield f"{source.name}/{link.name}", "is a symbolic link; nothing is imported through it"
    files = {p.name: p for p in entries if p.is_file() and not p.is_symlink()}
    specs = sorted(n for n in files if n.endswith(".json"))
    used: set[str] = set()
    for spec_name in specs:
        stem = spec_name[: -len(".json")]
        where = f"{source.name}/{spec_name}"
        try:
            data, _ = read_json(files[spec_name], "spec", ProjectError)
        except ProjectError as exc:
            yield where, exc.reason
            continue
        images: dict[str, Path] = {}
        for role, suffix in {ImageRole.IMAGE: "", **PAIR_SUFFIXES}.items():
            for ext in IMAGE_EXTENSIONS:
                name = f"{stem}{suffix}{ext}"
                if name in files:
                    images[role.value] = files[name]
                    used.add(name)
        yield Row(where, data, images, stem)
    for name in sorted(files):
        if name.lower().endswith(IMAGE_EXTENSIONS) and name not in used:
            yield f"{source.name}/{name}", "no specification for this image (NAME.json beside it)"


def _checked(row: Row, library: PrimerLibrary, default_primer: str | None) -> SampleSpec:
    """The row's specification, checked against the schema, its primer and its images'
    roles (the images themselves are ``_decoded``)."""
    if not isinstance(row.spec, dict):
        raise RowError("the specification is not a JSON object")
    try:
        spec = SampleSpec.model_validate(row.spec)
    except ValidationError as exc:
        raise RowError(describe_validation_error(exc)) from None
    primer, _ = library.for_spec(spec, default_primer)
    if primer is not None:
        broken = check_case(spec, primer)
        if broken:
            raise RowError(f"primer {primer.name}: {broken[0]}")
    wanted = {role.value for role in spec.image_roles}
    if set(row.images) != wanted:
        given = ", ".join(sorted(row.images)) or "none"
        raise RowError(
            f"a {spec.generation_mode.value} case needs images {', '.join(sorted(wanted))}; "
            f"given: {given}"
        )
    return spec


def _decoded(row: Row) -> dict[str, str]:
    """The extension of each of the row's images: every image decoded whole (a truncated
    file is refused here, not found out later by `validate`) and named by the format it
    decoded as, whatever its source file was called; the sizes of a pair must match."""
    sizes: set[tuple[int, int]] = set()
    suffixes: dict[str, str] = {}
    for role, path in row.images.items():
        try:
            info = check_decodes(path)
            suffixes[role] = case_image_suffix(info)
        except ProjectError as exc:
            raise RowError(exc.message) from None
        except OSError as exc:
            raise RowError(f"{path}: {exc.strerror or exc}") from None
        sizes.add((info.width, info.height))
    mismatch = pair_size_problem(sizes)
    if mismatch:
        raise RowError(mismatch)
    return suffixes


def pair_size_problem(sizes: set[tuple[int, int]]) -> str | None:
    """Why the images of one case cannot be a pair (their sizes differ), or None."""
    if len(sizes) <= 1:
        return None
    shown = " vs ".join(f"{w}×{h}" for w, h in sorted(sizes))
    return f"Base and Edited differ in size ({shown}); a pair must match"


def _same_case(folder: Path, spec: dict[str, Any], images: dict[str, Path]) -> bool:
    try:
        existing, _ = read_json(folder / SPEC_NAME, "spec", ProjectError)
    except ProjectError:
        return False
    if not isinstance(existing, dict):
        return False
    existing = {k: v for k, v in existing.items() if k != "provenance"}
    if existing != spec:
        return False
    for role, path in images.items():
        there = find_image(folder, role)
        # Only regular files are hashed: opening a FIFO would wait for a writer forever.
        if there is None or not there.is_file() or not path.is_file():
            return False
        try:
            if file_sha256(there) != file_sha256(path):
                return False
        except OSError:
            return False
    return True


def write_case(
    cases: Path,
    case_id: str,
    spec: dict[str, Any],
    images: dict[str, Path],
    suffixes: dict[str, str] | None = None,
) -> None:
    """Write the case into a hidden folder and rename it into place: absent or complete.
    Each image is named by its role and *suffixes* (the decoded format's extension; by
    default its own). A hidden folder of this case left by a killed writer is removed
    first."""
    leftover = re.compile(rf"^\.import-{re.escape(case_id)}-[0-9a-f]{{8}}$")
    for old in cases.iterdir():
        if leftover.match(old.name) and not old.is_symlink():
            shutil.rmtree(old, ignore_errors=True)
    temp = cases / f".import-{case_id}-{uuid.uuid4().hex[:8]}"
    temp.mkdir()
    try:
        for role, path in images.items():
            suffix = suffixes[role] if suffixes is not None else path.suffix.lower()
            copy_file(path, temp / f"{role}{suffix}")
        atomic_write_json(temp / SPEC_NAME, spec, kind="spec")
        temp.rename(cases / case_id)
    except BaseException:
        shutil.rmtree(temp, ignore_errors=True)
        raise


def import_cases(
    project_root: Path,
    source: Path,
    *,
    dry_run: bool = False,
    progress: Callable[[int, str], None] | None = None,
) -> ImportReport:
    """Import every valid case of *source* (a .jsonl file or a folder) into the project."""
    manifest_data, _ = read_json(project_root / MANIFEST_NAME, "manifest", ProjectError)
    manifest = Manifest.model_validate(manifest_data)
    cases = project_root / CASES_DIR
    if cases.is_symlink() or not inside_project(project_root, cases):
        raise ProjectError("is a symbolic link; nothing is imported through it", cases)
    if not source.exists():
        raise ProjectError("no such file or folder", source)
    rows = folder_rows(source) if source.is_dir() else jsonl_rows(source)
    library = PrimerLibrary.for_project(project_root)
    report = ImportReport()
    seen: dict[str, str] = {}
    stamp = utc_now()
    for done, item in enumerate(rows, 1):
        if isinstance(item, tuple):
            report.problems.append(item)
            continue
        try:
            spec = _checked(item, library, manifest.primer)
            case_id = item.case_id or spec.concept_id
            problem = id_problem(case_id)
            if problem:
                raise RowError(problem)
            if case_id in seen:
                raise RowError(f"case {case_id!r} is already given by {seen[case_id]}")
            seen[case_id] = item.where
            folder = cases / case_id
            if folder.exists():
                if _same_case(folder, item.spec, item.images):
                    # its images were decoded when it was written: no need again
                    report.unchanged.append(case_id)
                    continue
                _decoded(item)  # a broken image is the reason to give, if there is one
                raise RowError(
                    f"case {case_id!r} is already in the project with other content; "
                    "give the row another case_id (nothing was overwritten)"
                )
            suffixes = _decoded(item)
            if not dry_run:
                recorded = {
                    **item.spec,
                    "provenance": {"imported_from": str(source), "row": item.where, "at": stamp},
                }
                write_case(cases, case_id, recorded, item.images, suffixes)
            report.imported.append(case_id)
        except RowError as exc:
            report.problems.append((item.where, str(exc)))
        except ProjectError as exc:  # an image gone or changed since it was checked
            report.problems.append((item.where, exc.message))
        if progress is not None:
            progress(done, item.where)
    return report
