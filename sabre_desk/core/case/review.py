"""A reviewer's judgement of one case: reviews/<reviewer>.json.

This is the data the whole app exists to protect: weeks of human decisions. Models are
strict about shape (so a bad file is reported, not half-read) but tolerant of fields a
newer version may add.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from sabre_desk.core.case.spec import (
    MAX_ANSWER_CHARS,
    MAX_QUESTION_CHARS,
    ImageRole,
)
from sabre_desk.engines.ops import RepairOp
from sabre_desk.ground import limits
from sabre_desk.ground.errors import ReviewError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.geometry import BOX_RULE, is_unit_box

REVIEW_FORMAT: Final = "sabre-desk-review"
#: 2: a decision records the images it was made on (``decided_on``, ``decided_at``) and an
#: adjudicator's review says so with ``adjudication`` (version 1 wrote ``adjudicated``).
REVIEW_VERSION = 2
#: A SHA-256 in hex, as ``decided_on`` holds one per image.
SHA256_PATTERN = re.compile(r"^[0-9a-f]{64}$")


def utc_now() -> str:
    """An ISO-8601 UTC stamp with a 'Z', second precision, as every file in the format uses."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def refuse_newer(kind: str, version: int, known: int) -> None:
    """A file of a format version newer than this sabre-desk knows is refused, not half-read."""
    if version > known:
        raise ValueError(
            f"{kind} format version {version} is newer than this sabre-desk understands "
            f"({known}); update sabre-desk"
        )


class Decision(StrEnum):
    """The reviewer's verdict, in the words of the SABRE platform."""

    KEEP = "keep"
    NEEDS_RECHECK = "needs_recheck"
    EDIT_FAILED = "edit_failed"
    BASE_INVALID = "base_invalid"
    SCENE_CHANGED = "scene_changed"
    UNSURE = "unsure"

    @property
    def label(self) -> str:
        return DECISION_LABELS[self]

    @property
    def needs_pair(self) -> bool:
        """Only a Base/Edited pair can fail in this way (a single image has no edit)."""
        return self in (Decision.EDIT_FAILED, Decision.BASE_INVALID, Decision.SCENE_CHANGED)


DECISION_LABELS: dict[Decision, str] = {
    Decision.KEEP: "Keep",
    Decision.NEEDS_RECHECK: "Needs recheck",
    Decision.EDIT_FAILED: "Edited replacement failed",
    Decision.BASE_INVALID: "Base invalid",
    Decision.SCENE_CHANGED: "Scene changed",
    Decision.UNSURE: "Unsure",
}


class Box(BaseModel):
    """A normalized box [x0, y0, x1, y1] on one image, relative to its displayed size."""

    model_config = ConfigDict(extra="allow")

    image_role: ImageRole
    label: Annotated[str, StringConstraints(max_length=limits.BOX_LABEL.most)] = ""
    box: tuple[float, float, float, float]

    @field_validator("box")
    @classmethod
    def _inside_unit_square(
        cls, v: tuple[float, float, float, float]
    ) -> tuple[float, float, float, float]:
        if not is_unit_box(v):
            raise ValueError(f"box {list(v)} must satisfy {BOX_RULE}")
        return v


class QuestionEdit(BaseModel):
    """The reviewer's override of a probe's prompt and/or answer (the spec stays untouched)."""

    model_config = ConfigDict(extra="forbid")

    prompt: Annotated[str, StringConstraints(max_length=MAX_QUESTION_CHARS)] | None = None
    answer: Annotated[str, StringConstraints(max_length=MAX_ANSWER_CHARS)] | None = None


#: Where a repair's files may lie, relative to the case folder: one plain file name in
#: ``repairs/`` (previews) or ``repairs/backups/`` (replaced images), never a path that
#: could lead elsewhere ("/etc/passwd", "../../x").
PREVIEW_PATTERN = re.compile(r"^repairs/[A-Za-z0-9][A-Za-z0-9._-]{0,254}\.png$")
BACKUP_PATTERN = re.compile(
    r"^repairs/backups/[A-Za-z0-9][A-Za-z0-9._-]{0,254}\.(png|jpg|jpeg|webp)$"
)


class RepairRecord(BaseModel):
    """One repair of one image; its files are named relative to the case folder."""

    model_config = ConfigDict(extra="allow")

    id: str
    image_role: ImageRole
    op: RepairOp
    engine: Annotated[str, StringConstraints(max_length=limits.NAME.most)]
    model: Annotated[str, StringConstraints(max_length=limits.NAME.most)] | None = None
    instruction: Annotated[str, StringConstraints(max_length=limits.INSTRUCTION.most)] = ""
    box: tuple[float, float, float, float]
    preview: str
    #: "accepting" / "reverting" mark an operation in progress (finished or rolled back
    #: when the case is next opened, if the app was stopped in the middle)
    status: Literal["preview", "accepted", "discarded", "reverted", "accepting", "reverting"]
    backup: str | None = None
    created_at: str | None = None
    decided_at: str | None = None
    warnings: list[Annotated[str, StringConstraints(max_length=limits.REPAIR_WARNING.most)]] = (
        Field(default_factory=list, max_length=limits.REPAIR_WARNINGS.most)
    )
    seam: float | None = None

    @field_validator("preview")
    @classmethod
    def _preview_inside(cls, v: str) -> str:
        if not PREVIEW_PATTERN.fullmatch(v):
            raise ValueError(
                f"preview {v!r} must be a PNG file name inside repairs/ (e.g. repairs/x.png)"
            )
        return v

    @field_validator("backup")
    @classmethod
    def _backup_inside(cls, v: str | None) -> str | None:
        if v is not None and not BACKUP_PATTERN.fullmatch(v):
            raise ValueError(f"backup {v!r} must be an image file name inside repairs/backups/")
        return v


#: A probe id a question edit is keyed by (a spec's ``probe_id`` is a name).
ProbeKey = Annotated[str, StringConstraints(max_length=limits.NAME.most)]
#: A checklist item's key, ``<image role>:<label>``.
ChecklistKey = Annotated[str, StringConstraints(max_length=limits.CHECKLIST_ITEM.most)]


class Review(BaseModel):
    """reviews/<reviewer>.json."""

    model_config = ConfigDict(extra="allow")

    format: Literal["sabre-desk-review"] = REVIEW_FORMAT
    version: int = REVIEW_VERSION
    case_id: str
    reviewer: str
    decision: Decision | None = None
    notes: Annotated[str, StringConstraints(max_length=limits.NOTES.most)] = ""
    boxes: list[Box] = Field(default_factory=list, max_length=limits.BOXES.most)
    question_edits: dict[ProbeKey, QuestionEdit] = Field(
        default_factory=dict, max_length=limits.QUESTION_EDITS.most
    )
    #: ticked review targets / checklist items, keyed "<image_role>:<label>"
    checklist: dict[ChecklistKey, bool] = Field(
        default_factory=dict, max_length=limits.CHECKLIST.most
    )
    repairs: list[RepairRecord] = Field(default_factory=list, max_length=limits.REPAIRS.most)
    updated_at: str | None = None
    #: the images the decision was made on: image role → SHA-256 of the file; a decision
    #: whose images have since been replaced (an accepted repair) is stale
    decided_on: dict[ImageRole, str] = Field(default_factory=dict)
    decided_at: str | None = None
    #: this review settles a disagreement between other reviewers (an adjudicator's)
    adjudication: bool = False

    @model_validator(mode="before")
    @classmethod
    def _migrate(cls, data: object) -> object:
        """Version 1 marked a settling review ``"adjudicated": true``; it is read as
        ``adjudication`` and written back as version 2."""
        if isinstance(data, dict) and "adjudicated" in data:
            data = dict(data)
            flag = data.pop("adjudicated")
            data.setdefault("adjudication", flag is True)
        return data

    @field_validator("version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        refuse_newer("review", v, REVIEW_VERSION)
        return REVIEW_VERSION  # an older review is migrated on reading, written as the newest

    @field_validator("decided_on")
    @classmethod
    def _hashes(cls, v: dict[ImageRole, str]) -> dict[ImageRole, str]:
        for role, digest in v.items():
            if not SHA256_PATTERN.fullmatch(digest):
                raise ValueError(f"decided_on[{role.value}] must be a SHA-256 in hex")
        return v

    @model_validator(mode="after")
    def _ids(self) -> Review:
        for what, value in (("case id", self.case_id), ("reviewer", self.reviewer)):
            problem = id_problem(value, what)
            if problem:
                raise ValueError(problem)
        return self

    def boxes_on(self, role: ImageRole) -> list[Box]:
        """The boxes drawn on one image, in drawing order."""
        return [b for b in self.boxes if b.image_role is role]

    @classmethod
    def empty(cls, case_id: str, reviewer: str) -> Review:
        return cls(case_id=case_id, reviewer=reviewer)


def repaired_since(reviews: Iterable[Review], role: ImageRole, at: str) -> RepairRecord | None:
    """The accepted repair that replaced *role*'s image after the moment *at* (an ISO
    stamp, e.g. a screening run's), by any of the case's *reviews*; None when the image is as
    it was (never repaired since, or the last repair was reverted).

    A filter answer given on the image before it was repaired is about another image."""
    decided = sorted(
        (r for review in reviews for r in review.repairs if r.image_role == role and r.decided_at),
        key=lambda r: r.decided_at or "",
    )
    last = next((r for r in reversed(decided) if r.status in ("accepted", "reverted")), None)
    if last is None or last.status != "accepted" or (last.decided_at or "") <= at:
        return None
    return last


def ownership_problem(review: Review, case_id: str, reviewer: str) -> str | None:
    """Why a review does not belong where it lies (the case folder, the file name)."""
    if review.case_id == case_id and review.reviewer == reviewer:
        return None
    return (
        f"belongs to case {review.case_id!r} / reviewer {review.reviewer!r}, "
        f"not {case_id!r} / {reviewer!r}"
    )


def writable_review(review: Review, path: Path, case_id: str | None) -> dict[str, Any]:
    """*review* as the JSON data its reader accepts, or ReviewError naming the field and
    its limit: the whole object is validated as the reader will validate it before anything
    is serialized, since fields are assigned and copied without validation on the way
    here (the editor, merge, import, upgrade all write through this)."""
    data = review.model_dump(mode="json", exclude_none=False)
    try:
        Review.model_validate(data)
    except ValidationError as exc:
        reason = describe_validation_error(exc)
        raise ReviewError(
            f"not written: {reason}; the previous version is unchanged", path, case_id
        ) from exc
    return data


def validate_review(data: Any, path: Path, case_id: str) -> Review:
    """A review file's JSON as a Review, or ReviewError naming the file and field."""
    try:
        return Review.model_validate(data)
    except ValidationError as exc:
        raise ReviewError(describe_validation_error(exc), path, case_id) from exc
