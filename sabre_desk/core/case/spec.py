"""The Sample Specification: the default schema of the SABRE paper (Table 5, Appendix B).

spec.json is an input the app never rewrites (only `sabre-desk upgrade` renames the task of
a case made with an earlier primer: core/upgrade.py); these models reject anything that would
make a case unreviewable or unscoreable, with a message naming the offending field.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from sabre_desk.ground import limits
from sabre_desk.imaging.geometry import parse_box

#: Text limits, in characters, from the one table (``ground.limits``). Real fields are far
#: shorter; the limits keep a hostile or broken file (a 5 MB "question") from freezing the
#: window that has to lay it out.
MAX_NAME_CHARS = limits.NAME.most
MAX_QUESTION_CHARS = limits.QUESTION.most
MAX_ANSWER_CHARS = limits.ANSWER.most
MAX_TEXT_CHARS = limits.TEXT.most

NonEmpty = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_NAME_CHARS)
]
QuestionText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_QUESTION_CHARS)
]
AnswerText = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ANSWER_CHARS)
]
LongText = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]


class GenerationMode(StrEnum):
    PAIRED_EDIT = "paired_edit"
    SINGLE_IMAGE = "single_image"


class ImageRole(StrEnum):
    BASE = "base"
    EDITED = "edited"
    IMAGE = "image"


class QuestionType(StrEnum):
    YES_NO = "yes_no"
    MULTIPLE_CHOICE = "multiple_choice"
    OPEN = "open"


OPEN_EVAL_TYPES = ("count_exact", "exact_match", "contains")
OPTION_LETTERS = ("A", "B", "C", "D")
ROLES_FOR_MODE = {
    GenerationMode.PAIRED_EDIT: (ImageRole.BASE, ImageRole.EDITED),
    GenerationMode.SINGLE_IMAGE: (ImageRole.IMAGE,),
}


class TaskAttribute(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: NonEmpty
    value: LongText


class ReviewTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: NonEmpty
    image_role: ImageRole
    description: LongText = ""


class Question(BaseModel):
    """One probe: a question about one image with its reference answer and scoring rule."""

    model_config = ConfigDict(extra="forbid")

    probe_id: NonEmpty
    image_role: ImageRole
    question_type: QuestionType
    prompt: QuestionText
    answer: AnswerText
    eval_type: NonEmpty
    options: list[AnswerText] | None = None

    @model_validator(mode="after")
    def _type_rules(self) -> Question:
        check_answer(self.question_type, self.eval_type, self.answer, self.options)
        return self


def check_answer(
    question_type: QuestionType, eval_type: str, answer: str, options: list[str] | None
) -> None:
    """Raise ValueError (naming the field) when the answer does not fit the question type.

    Shared by the spec model and by the reviewer's question edits, so an edited answer is
    held to exactly the rules the spec was.
    """
    if question_type is QuestionType.YES_NO:
        if eval_type != "yes_no_exact":
            raise ValueError(f"eval_type: yes_no questions use 'yes_no_exact', not {eval_type!r}")
        if answer not in ("yes", "no"):
            raise ValueError(f"answer: a yes_no answer is 'yes' or 'no', not {answer!r}")
        if options is not None:
            raise ValueError("options: only multiple_choice questions have options")
    elif question_type is QuestionType.MULTIPLE_CHOICE:
        if eval_type != "mcq_letter":
            raise ValueError(
                f"eval_type: multiple_choice questions use 'mcq_letter', not {eval_type!r}"
            )
        if options is None or len(options) != 4:
            count = 0 if options is None else len(options)
            raise ValueError(f"options: multiple_choice needs exactly four options, got {count}")
        if answer not in OPTION_LETTERS:
            raise ValueError(f"answer: a multiple_choice answer is one of A-D, not {answer!r}")
    else:
        if eval_type not in OPEN_EVAL_TYPES:
            raise ValueError(
                f"eval_type: open questions use one of {', '.join(OPEN_EVAL_TYPES)}, "
                f"not {eval_type!r}"
            )
        if options is not None:
            raise ValueError("options: only multiple_choice questions have options")
        if eval_type == "count_exact" and not (answer.isascii() and answer.isdigit()):
            raise ValueError(
                f"answer: a count_exact answer is a non-negative integer, not {answer!r}"
            )


class SampleSpec(BaseModel):
    """A Sample Specification as written by the generation pipeline (spec.json)."""

    model_config = ConfigDict(extra="allow")

    concept_id: NonEmpty
    pressure_test_type: NonEmpty
    objective: LongText = ""
    generation_mode: GenerationMode
    base_prompt: LongText | None = None
    edit_prompt: LongText | None = None
    image_prompt: LongText | None = None
    task_attributes: list[TaskAttribute] = Field(default_factory=list)
    questions: list[Question] = Field(min_length=1)
    review_targets: list[ReviewTarget] = Field(default_factory=list)
    generation_notes: list[str] = Field(default_factory=list)
    generation: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _cross_field_rules(self) -> SampleSpec:
        if self.generation_mode is GenerationMode.PAIRED_EDIT:
            for name in ("base_prompt", "edit_prompt"):
                if not (getattr(self, name) or "").strip():
                    raise ValueError(f"{name}: required when generation_mode is paired_edit")
        elif not (self.image_prompt or "").strip():
            raise ValueError("image_prompt: required when generation_mode is single_image")
        review_box = self.attribute("review_box")
        if review_box:
            try:
                parse_box(review_box)
            except ValueError as exc:
                raise ValueError(f"task_attributes: review_box {exc}") from None
        allowed = ROLES_FOR_MODE[self.generation_mode]
        seen: set[str] = set()
        for i, q in enumerate(self.questions):
            if q.image_role not in allowed:
                raise ValueError(
                    f"questions[{i}].image_role: {self.generation_mode.value} questions use "
                    f"{' or '.join(r.value for r in allowed)}, not {q.image_role.value!r}"
                )
            if q.probe_id in seen:
                raise ValueError(f"questions[{i}].probe_id: {q.probe_id!r} is used twice")
            seen.add(q.probe_id)
        for i, t in enumerate(self.review_targets):
            if t.image_role not in allowed:
                raise ValueError(
                    f"review_targets[{i}].image_role: {t.image_role.value!r} is not an image "
                    f"of a {self.generation_mode.value} case"
                )
        return self

    @property
    def image_roles(self) -> tuple[ImageRole, ...]:
        return ROLES_FOR_MODE[self.generation_mode]

    def attribute(self, name: str) -> str | None:
        """The value of a task attribute (source_entity, review_location …), if present."""
        for attr in self.task_attributes:
            if attr.name == name:
                return attr.value
        return None

    def question(self, probe_id: str) -> Question | None:
        return next((q for q in self.questions if q.probe_id == probe_id), None)
