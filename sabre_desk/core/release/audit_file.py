"""``audit.json``: the questions ``audit --flag`` recorded, read and written by one model.

The writer validates the whole file against the model its reader uses, and the model takes
its numbers from the one table of limits (``ground.limits``), so ``audit --flag`` never
writes a file that ``stats``, ``export`` or the window would then refuse. A model's answer
longer than the table allows is kept as an excerpt that says how long it was (``excerpt``):
the flag is about the answer the rules read, which is kept whole in ``agreed``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from sabre_desk.ground import limits
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.storage import atomic_write_json
from sabre_desk.ground.validation_messages import describe_validation_error

AUDIT_FORMAT: Final = "sabre-desk-audit"
#: the reader's limit on the whole file (``reading.LIMITS``), the one the writer checks
AUDIT_KIND = "release"

Text = Annotated[str, StringConstraints(max_length=limits.TEXT.most)]
Name = Annotated[str, StringConstraints(max_length=limits.NAME.most)]
Answer = Annotated[str, StringConstraints(max_length=limits.AUDIT_ANSWER.most)]


class AuditFlag(BaseModel):
    """One flagged question: the models' agreed answer against the reference."""

    model_config = ConfigDict(extra="allow")

    #: ``<case id>:<probe id>``, as a release names its questions
    question_id: Annotated[str, StringConstraints(max_length=limits.ID.most + 1 + limits.NAME.most)]
    case_id: Annotated[str, StringConstraints(max_length=limits.ID.most)] | None = None
    probe_id: Name | None = None
    subset: Name | None = None
    question: Text | None = None
    reference: Text | None = None
    agreed: Answer | None = None
    #: model → its response as given (None: it gave none)
    answers: dict[Name, Answer | None] = Field(
        default_factory=dict, max_length=limits.AUDIT_MODELS.most
    )
    flagged_at: str | None = None
    release_root_sha256: str | None = None


class AuditFile(BaseModel):
    model_config = ConfigDict(extra="allow")

    format: Literal["sabre-desk-audit"]
    version: int = 1
    flags: list[AuditFlag] = Field(max_length=limits.AUDIT_FLAGS.most)


def excerpt(text: str | None, limit: limits.Limit = limits.AUDIT_ANSWER) -> str | None:
    """*text* as it is when it fits *limit*, else its start and how long it was, within
    the limit (the whole answer stays in the evaluation's predictions file)."""
    if text is None or len(text) <= limit.most:
        return text
    tail = f" … [cut: {len(text):,} characters; the whole answer is in its predictions file]"
    return text[: limit.most - len(tail)] + tail


def check_audit(data: Any, path: Path) -> list[dict[str, Any]]:
    """The flags of an ``audit.json``'s JSON *data*, or ProjectError naming the file and the
    first reason: the reader's check, and the writer's before it writes."""
    if not isinstance(data, dict) or data.get("format") != AUDIT_FORMAT:
        raise ProjectError(f'is not a sabre-desk audit (no "format": "{AUDIT_FORMAT}")', path)
    flags = data.get("flags")
    if not isinstance(flags, list) or not all(
        isinstance(f, dict) and isinstance(f.get("question_id"), str) for f in flags
    ):
        raise ProjectError("'flags' is not a list of flagged questions", path)
    try:
        AuditFile.model_validate(data)
    except ValidationError as exc:
        raise ProjectError(describe_validation_error(exc), path) from exc
    return flags


def write_audit(path: Path, flags: list[dict[str, Any]]) -> None:
    """Write *flags* as ``audit.json``, validated as its reader will read it first: a flag
    past a limit is refused (ProjectError, the file on disk unchanged)."""
    data = {"format": AUDIT_FORMAT, "version": 1, "flags": flags}
    try:
        check_audit(data, path)
    except ProjectError as exc:
        raise ProjectError(
            f"not written: {exc.reason}; the previous version is unchanged", path
        ) from exc
    atomic_write_json(path, data, kind=AUDIT_KIND)
