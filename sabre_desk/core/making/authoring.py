"""A case authored by hand around a reviewer's own photos (File > New Case).

The primer says what the case needs: the task attributes it requires, the probes it
fixes (ids, images, types, answers, and a wording with the attributes in braces) or, for
primers without a fixed pattern, which question types are allowed. A draft is checked by
exactly the rules an imported or generated case is (the schema and the primer), and saved
the way `import` saves a case: whole or not at all, with its provenance (a real image; and,
when a model made the Edited image from the Base photo, which model and prompt).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sabre_desk.core.case.primers import Primer, check_case
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import (
    ROLES_FOR_MODE,
    GenerationMode,
    ImageRole,
    QuestionType,
    SampleSpec,
)
from sabre_desk.core.making.importing import pair_size_problem, write_case
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.io import probe_image

EVAL_FOR_TYPE = {
    QuestionType.YES_NO: "yes_no_exact",
    QuestionType.MULTIPLE_CHOICE: "mcq_letter",
    QuestionType.OPEN: "exact_match",
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")


@dataclass
class QuestionDraft:
    probe_id: str
    image_role: ImageRole
    question_type: QuestionType
    prompt: str = ""
    answer: str = ""
    options: list[str] = field(default_factory=list)
    fixed: bool = False  # id, image and type set by the primer
    answer_fixed: bool = False  # the answer too (Context: yes/no/no/yes)


@dataclass(frozen=True)
class MadeImage:
    """An image a model made for the draft (the Edited one, from the Base photo)."""

    path: Path  # the file the draft points at until the case is saved
    model: str
    prompt: str
    at: str
    aspect_ratio: str
    image_size: str
    size: tuple[int, int]  # width, height, the Base's
    notes: list[str] = field(default_factory=list)

    def record(self) -> dict[str, Any]:
        """The case's generation record of it, as `generate images` writes one."""
        return {
            "prompt": self.prompt,
            "model": self.model,
            "aspect_ratio": self.aspect_ratio,
            "image_size": self.image_size,
            "from": ImageRole.BASE.value,
            "size": list(self.size),
            "at": self.at,
            "notes": list(self.notes),
        }


@dataclass
class CaseDraft:
    primer: Primer | None
    concept_id: str = ""
    objective: str = ""
    images: dict[ImageRole, Path] = field(default_factory=dict)
    attributes: dict[str, str] = field(default_factory=dict)
    questions: list[QuestionDraft] = field(default_factory=list)
    #: the kind of case, where the primer leaves it open
    chosen_mode: GenerationMode = GenerationMode.SINGLE_IMAGE
    #: the Edited image a model made from the Base photo (Make Edited with Gemini)
    made_edited: MadeImage | None = None

    @property
    def mode_fixed(self) -> bool:
        return self.primer is not None and self.primer.header.generation_mode is not None

    @property
    def mode(self) -> GenerationMode:
        if self.primer is not None and self.primer.header.generation_mode is not None:
            return self.primer.header.generation_mode
        return self.chosen_mode

    @property
    def edited_by_model(self) -> MadeImage | None:
        """The made Edited image, while it is the draft's Edited image (a photo chosen
        after it, or another mode, and the case is made of photos only)."""
        made = self.made_edited
        paired = self.mode is GenerationMode.PAIRED_EDIT
        if made is None or not paired or self.images.get(ImageRole.EDITED) != made.path:
            return None
        return made


def edit_instruction(draft: CaseDraft) -> str:
    """The primer's whole-image edit with the attributes given so far filled in, or ""."""
    template = draft.primer.header.edit_prompt if draft.primer is not None else None
    return fill(template, draft.attributes) if template else ""


def fill(template: str, attributes: dict[str, str]) -> str:
    """The wording with each {attribute} given so far filled in (the rest left in braces)."""
    return _PLACEHOLDER.sub(lambda m: attributes.get(m.group(1)) or m.group(0), template)


def readable(template: str, attributes: dict[str, str]) -> str:
    """The wording as a person reads it while writing the case: each {attribute} given so
    far filled in, each one still to give named in its place (‹source entity›), never a
    placeholder in braces."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        return attributes.get(name) or f"‹{name.replace('_', ' ')}›"

    return _PLACEHOLDER.sub(one, template)


def new_draft(primer: Primer | None) -> CaseDraft:
    """A draft with the primer's required attributes and fixed probes in place."""
    draft = CaseDraft(primer)
    if primer is None:
        return draft
    for name in primer.header.rules.required_attributes:
        draft.attributes[name] = ""
    for schema_field in primer.header.schema_fields:
        draft.attributes.setdefault(schema_field.name, "")
    for rule in primer.header.probes:
        draft.questions.append(
            QuestionDraft(
                rule.probe_id,
                rule.image_role,
                rule.question_type,
                rule.prompt or "",
                rule.answer or "",
                ["", "", "", ""] if rule.question_type is QuestionType.MULTIPLE_CHOICE else [],
                fixed=True,
                answer_fixed=rule.answer is not None,
            )
        )
    return draft


def allowed_types(primer: Primer | None) -> list[QuestionType]:
    return (
        list(primer.header.rules.question_types)
        if primer and primer.header.rules.question_types
        else list(QuestionType)
    )


def spec_of(draft: CaseDraft) -> dict[str, Any]:
    """The specification the draft stands for (validated by ``problems``)."""
    primer, mode = draft.primer, draft.mode
    count_rule = primer is not None and primer.header.rules.count_answers
    questions = []
    for q in draft.questions:
        eval_type = EVAL_FOR_TYPE[q.question_type]
        if q.question_type is QuestionType.OPEN and (count_rule or q.answer.strip().isdigit()):
            eval_type = "count_exact"
        question: dict[str, Any] = {
            "probe_id": q.probe_id,
            "image_role": q.image_role.value,
            "question_type": q.question_type.value,
            "prompt": fill(q.prompt, draft.attributes),
            "answer": q.answer.strip(),
            "eval_type": eval_type,
        }
        if q.question_type is QuestionType.MULTIPLE_CHOICE:
            question["options"] = [o.strip() for o in q.options]
        questions.append(question)
    described = "; ".join(f"{k}: {v}" for k, v in draft.attributes.items() if v)
    spec: dict[str, Any] = {
        "concept_id": draft.concept_id.strip(),
        "pressure_test_type": primer.header.pressure_test_type if primer else "custom",
        "objective": draft.objective.strip() or (primer.header.title if primer else ""),
        "generation_mode": mode.value,
        "task_attributes": [
            {"name": k, "value": v.strip()} for k, v in draft.attributes.items() if v.strip()
        ],
        "questions": questions,
        "generation_notes": ["authored by hand around real photos (File > New Case)"],
    }
    real = "a real photo" + (f" ({described})" if described else "")
    made = draft.edited_by_model
    if mode is GenerationMode.PAIRED_EDIT and made is not None:
        spec["base_prompt"], spec["edit_prompt"] = real, made.prompt
        spec["generation_notes"].append(
            f"the Edited image made from the Base photo by {made.model} (a whole-image edit)"
        )
        spec["generation"] = {"images": {ImageRole.EDITED.value: made.record()}}
    elif mode is GenerationMode.PAIRED_EDIT:
        spec["base_prompt"], spec["edit_prompt"] = real, "a real photo of the same scene, changed"
    else:
        spec["image_prompt"] = real
    return spec


def problems(draft: CaseDraft, project: Project | None = None) -> list[str]:
    """Everything that keeps the draft from being a valid case, in words (empty: save it)."""
    found: list[str] = []
    concept = draft.concept_id.strip()
    problem = id_problem(concept, "case id") if concept else "case id: give the case a name"
    if problem:
        found.append(problem)
    elif project is not None and (project.cases_dir / concept).exists():
        found.append(f"case id: {concept!r} is already a case of this project")
    sizes: set[tuple[int, int]] = set()
    for role in ROLES_FOR_MODE[draft.mode]:
        path = draft.images.get(role)
        if path is None:
            found.append(f"{role.value.capitalize()} photo: choose one, or drop it on its button")
            continue
        try:
            info = probe_image(path)
        except ProjectError as exc:
            found.append(f"{role.value.capitalize()} photo: {exc.reason}")
            continue
        sizes.add((info.width, info.height))
    mismatch = pair_size_problem(sizes)
    if mismatch:
        found.append(mismatch)
    if not draft.questions:
        found.append("questions: add at least one (Add question)")
    if problem or not draft.questions:
        return found  # the schema's own words for these would only repeat them
    spec = spec_of(draft)
    try:
        parsed = SampleSpec.model_validate(spec)
    except ValidationError as exc:
        found.append(describe_validation_error(exc))
        return found
    if draft.primer is not None:
        found += check_case(parsed, draft.primer)
    return found


def save_draft(project: Project, draft: CaseDraft) -> str:
    """Write the case (whole or not at all) and index it; returns its id."""
    left = problems(draft, project)
    if left:
        raise ProjectError(left[0], project.cases_dir)
    spec = spec_of(draft)
    spec["provenance"] = {"authored": "New Case", "real_image": True, "at": utc_now()}
    made = draft.edited_by_model
    if made is not None:
        spec["provenance"]["edited_by"] = {"model": made.model, "prompt": made.prompt}
    roles = ROLES_FOR_MODE[draft.mode]
    write_case(
        project.cases_dir, spec["concept_id"], spec, {r.value: draft.images[r] for r in roles}
    )
    project.index_added(spec["concept_id"])
    return str(spec["concept_id"])
