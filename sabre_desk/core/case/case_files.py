"""One case's files, read and written: its spec, this reviewer's review, the screening runs,
the other reviewers' reviews and where its images are.

Every reader holds a file to the rules the case is judged by (a review's owner and case,
its question edits against the spec, links that lead outside the project) and says what
is wrong with the file named; the project index reads the same files faster, as plain
JSON, and leaves the full checks to here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from sabre_desk.core.case.conflict_names import copy_of
from sabre_desk.core.case.over_limit import cut_to_limits, keep_whole
from sabre_desk.core.case.question_edits import edit_problems
from sabre_desk.core.case.review import (
    Review,
    ownership_problem,
    utc_now,
    validate_review,
    writable_review,
)
from sabre_desk.core.case.screening import SCREENING_NAME, ScreeningRecord
from sabre_desk.core.case.spec import ImageRole, SampleSpec
from sabre_desk.ground.errors import (
    CaseLoadError,
    ImageError,
    ReadOnlyProjectError,
    ReviewConflictError,
    ReviewError,
    ScreeningError,
    SpecError,
    StorageError,
)
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.paths import inside_project
from sabre_desk.ground.storage import (
    atomic_write_bytes,
    check_size,
    dumps_json,
    file_fingerprint,
    file_lock,
    fingerprint,
    read_json,
    remove_orphan_temps,
)
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.io import ImageInfo, find_image, probe_image

SPEC_NAME = "spec.json"
REVIEWS_DIR = "reviews"
HISTORY_NAME = "history.jsonl"


@dataclass
class Case:
    """A fully loaded case: validated spec, screening, reviews and image locations."""

    case_id: str
    folder: Path
    spec: SampleSpec
    review: Review
    review_fingerprint: str | None
    screening: ScreeningRecord | None = None
    other_reviews: dict[str, Review] = field(default_factory=dict)
    images: dict[ImageRole, Path] = field(default_factory=dict)
    image_info: dict[ImageRole, ImageInfo] = field(default_factory=dict)
    image_problems: dict[ImageRole, ImageError] = field(default_factory=dict)
    #: problems that do not stop reviewing (a corrupt screening.json, another's review)
    warnings: list[CaseLoadError] = field(default_factory=list)

    @property
    def review_path(self) -> Path:
        return self.folder / REVIEWS_DIR / f"{self.review.reviewer}.json"

    @property
    def history_path(self) -> Path:
        return self.folder / HISTORY_NAME


def load_spec(root: Path, case_id: str, folder: Path) -> SampleSpec:
    """The case's spec.json, validated; a link leading outside the project is refused."""
    path = folder / SPEC_NAME
    if path.is_symlink() and not inside_project(root, path):
        raise SpecError("is a link leading outside the project", path, case_id)
    data, _ = read_json(path, "spec", SpecError)
    try:
        return SampleSpec.model_validate(data)
    except ValidationError as exc:
        raise SpecError(describe_validation_error(exc), path, case_id) from exc


def load_own_review(
    reviewer: str,
    case_id: str,
    folder: Path,
    spec: SampleSpec,
    warnings: list[CaseLoadError] | None = None,
    read_only: bool = False,
) -> tuple[Review, str | None]:
    """This reviewer's review (an empty one if none yet) and its file's fingerprint; a file
    that breaks the rules stops the case from loading, so nothing is saved over it. A text
    an earlier version wrote past its limit is cut, the whole file kept beside it, and a
    note added to *warnings* (``over_limit``); *read_only*: cut in memory only (the file
    on disk keeps the whole text, and nothing is saved over it)."""
    if warnings is None:
        warnings = []
    path = folder / REVIEWS_DIR / f"{reviewer}.json"
    try:
        data, raw = read_json(path, "review", ReviewError, follow_links=False)
    except ReviewError as exc:
        if not path.exists():
            return Review.empty(case_id, reviewer), None
        raise ReviewError(exc.reason + "; it is left untouched", path, case_id) from exc
    cut_note: CaseLoadError | None = None
    try:
        review = validate_review(data, path, case_id)
    except ReviewError as exc:
        review, cut_note = _read_cut(data, raw, path, case_id, exc, read_only)
    problem = ownership_problem(review, case_id, reviewer)
    problem = problem or "; ".join(edit_problems(spec, review.question_edits))
    if problem:
        raise ReviewError(problem + "; it is left untouched", path, case_id)
    if cut_note is not None:
        warnings.append(cut_note)
    return review, fingerprint(raw)


def _read_cut(
    data: object, raw: bytes, path: Path, case_id: str, exc: ReviewError, read_only: bool
) -> tuple[Review, CaseLoadError]:
    """A review written past a limit by an earlier version, with its over-long texts cut
    at their limits once the whole file is kept beside it; the note says what was cut and
    where the rest is. Any other problem stops the case, the file left untouched."""
    cause = exc.__cause__
    cut = cut_to_limits(data, cause, Review) if isinstance(cause, ValidationError) else None
    if cut is None:
        raise ReviewError(exc.reason + "; it is left untouched", path, case_id) from exc
    try:
        side = None if read_only else keep_whole(path, raw)
        review = Review.model_validate(cut[0])
    except (StorageError, ValidationError) as err:
        why = err.message if isinstance(err, StorageError) else describe_validation_error(err)
        raise ReviewError(f"{exc.reason} ({why}); it is left untouched", path, case_id) from err
    said = "; ".join(cut[1])
    kept = (
        "the file on disk keeps the whole text (the project is open read-only)"
        if side is None
        else f"the whole text is kept in {REVIEWS_DIR}/{side.name}; the next save writes "
        "the review cut at the limit"
    )
    return review, CaseLoadError(f"{said}: {kept}", path, case_id)


def load_screening(case: Case) -> None:
    """The case's screening runs; a file that cannot be read is a warning, not a stop."""
    path = case.folder / SCREENING_NAME
    if not path.exists():
        return
    try:
        data, _ = read_json(path, "screening", ScreeningError)
        case.screening = ScreeningRecord.model_validate(data)
    except ScreeningError as exc:
        case.warnings.append(exc)
    except ValidationError as exc:
        reason = describe_validation_error(exc)
        case.warnings.append(ScreeningError(reason, path, case.case_id))


def _is_others_review(name: str, reviewer: str, folder: Path, names: set[str]) -> bool:
    """A review file of someone else: not a hidden file (an interrupted write's temp) and
    not a synced drive's conflict copy (a second version, listed to be settled, never a
    reviewer: see conflict_names)."""
    return (
        name.endswith(".json")
        and not name.startswith(".")
        and name != f"{reviewer}.json"
        and copy_of(name, names, folder) is None
    )


def other_review_paths(case_folder: Path, reviewer: str) -> list[Path]:
    """The files of the other reviewers' reviews of a case, by name; a link in place of
    the folder is not followed."""
    folder = case_folder / REVIEWS_DIR
    if not folder.is_dir() or folder.is_symlink():
        return []
    paths = sorted(folder.iterdir())
    names = {p.name for p in paths}
    return [p for p in paths if _is_others_review(p.name, reviewer, folder, names)]


def anyone_else_reviewed(case_folder: str, reviewer: str) -> bool:
    """Whether a review file of another reviewer may lie in the case (one listing of its
    ``reviews/``, for a loop over a whole project; the files are read, and held to their
    rules, only when this says yes): a case nobody else reviewed cannot be disputed."""
    folder = os.path.join(case_folder, REVIEWS_DIR)  # noqa: PTH118
    try:
        names = set(os.listdir(folder))  # noqa: PTH208
    except OSError:
        return False
    return any(_is_others_review(name, reviewer, Path(folder), names) for name in names)


def load_other_reviews(reviewer: str, case: Case) -> None:
    """The other reviewers' files, each held to the rules of one's own: a file whose
    name, ``reviewer`` or ``case_id`` disagree with where it lies, or whose question
    edits break the spec, is reported and left out (it cannot sway a release)."""
    for path in other_review_paths(case.folder, reviewer):
        name = path.stem
        try:
            data, _ = read_json(path, "review", ReviewError, follow_links=False)
            review = validate_review(data, path, case.case_id)
            problem = id_problem(name, "reviewer file name") or ownership_problem(
                review, case.case_id, name
            )
            problem = problem or "; ".join(edit_problems(case.spec, review.question_edits))
            if problem:
                raise ReviewError(problem + "; this review is ignored", path, case.case_id)
            case.other_reviews[name] = review
        except ReviewError as exc:
            case.warnings.append(exc)


def locate_images(root: Path, case: Case) -> None:
    """Find the case's images (again, when one was replaced on disk)."""
    case.images, case.image_info, case.image_problems = {}, {}, {}
    for role in case.spec.image_roles:
        locate_image(root, case, role)


def locate_image(root: Path, case: Case, role: ImageRole) -> None:
    path = find_image(case.folder, role.value)
    if path is None:
        expected = f"expected {role.value}.png, .jpg, .jpeg or .webp"
        case.image_problems[role] = ImageError(
            f"image is missing ({expected})", case.folder / f"{role.value}.png", case.case_id
        )
        return
    if not inside_project(root, path):
        case.image_problems[role] = ImageError(
            "is a link leading outside the project; not followed", path, case.case_id
        )
        return
    case.images[role] = path
    try:
        case.image_info[role] = probe_image(path)
    except ImageError as exc:
        case.image_problems[role] = exc


def write_review_file(
    path: Path,
    review: Review,
    expected: str | None,
    force: bool = False,
    read_only: bool = False,
    case_id: str | None = None,
) -> str | None:
    """Write *review* to *path* atomically (and durably); returns the new file's fingerprint.

    Touches nothing but the file (and ``review.updated_at``), so a save thread can run it
    while the window goes on with the case. Refuses (ReviewConflictError) when the file's
    fingerprint is not *expected* — another window or person wrote it — unless *force*.
    """
    if read_only:
        raise ReadOnlyProjectError("project is open read-only; nothing was saved", path)
    if path.parent.is_symlink():
        raise StorageError("reviews/ is a symbolic link; nothing is written through it", path)
    try:
        path.parent.mkdir(exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the folder ({exc.strerror or exc})", path) from exc
    with file_lock(path):
        remove_orphan_temps(path.parent, path.name)
        if not force and file_fingerprint(path) != expected:
            raise ReviewConflictError(
                "changed on disk since it was opened (another window or person); "
                "reload it or choose to overwrite",
                path,
                case_id,
            )
        review.updated_at = utc_now()
        payload = dumps_json(writable_review(review, path, case_id))
        check_size(path, payload, "review")  # never a review its reader would refuse
        _before_replace(path)
        atomic_write_bytes(path, payload)
    return fingerprint(payload)


def _before_replace(path: Path) -> None:
    """A point between the conflict check and the rename (tests race a second writer here)."""
