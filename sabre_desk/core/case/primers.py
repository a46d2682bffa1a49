"""Test Primers: a task design in Markdown with a machine-readable header of rules.

A primer file starts with a TOML header between ``+++`` lines, then the Task Design in
Markdown. The header names the stress test (``pressure_test_type``) and the primer's
``version``, optionally the exact probe pattern, rules that tighten the default Sample
Specification schema, and the validity checklist the reviewer ticks. The rules are
declarative, so a primer shared in a project folder is data, never code: a project's
``primers/`` folder overrides the shipped primers.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sabre_desk.core.case.image_settings import ImageSettings
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import (
    MAX_TEXT_CHARS,
    GenerationMode,
    ImageRole,
    QuestionType,
    SampleSpec,
)
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.paths import primers_dir
from sabre_desk.ground.reading import LIMITS, json_depth_problem, read_limited
from sabre_desk.ground.storage import atomic_write_bytes
from sabre_desk.ground.validation_messages import describe_validation_error

FRONT = "+++"
NAME = re.compile(r"^[a-z][a-z0-9_-]{0,63}$")
DEFAULT_UNKNOWN_WORDS = [
    "cannot be determined",
    "can't be determined",
    "unknown",
    "not visible",
    "cannot tell",
    "can't tell",
    "not enough information",
    "impossible to tell",
]


class PrimerError(ProjectError):
    """A primer file is unreadable or its header breaks the primer format."""


class ProbeRule(BaseModel):
    model_config = ConfigDict(extra="forbid")

    probe_id: str
    image_role: ImageRole
    question_type: QuestionType
    answer: str | None = None
    #: the question's wording for a new case, with task attributes in braces:
    #: "Is there a {source_entity} in the image?"
    prompt: str | None = None


class SchemaField(BaseModel):
    """A task attribute the primer's Data Schema defines, with its type and limits; checked
    wherever a case is made or validated (import, New Case, generation, `validate`)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    type: Literal["text", "integer", "choice"] = "text"
    required: bool = True
    description: str = ""
    min: int | None = None
    max: int | None = None
    choices: list[str] = Field(default_factory=list)
    pattern: str | None = None  # a regular expression the whole value must match

    @model_validator(mode="after")
    def _consistent(self) -> SchemaField:
        if self.type == "choice" and not self.choices:
            raise ValueError(f"schema {self.name}: a choice field lists its choices")
        if self.pattern is not None:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"schema {self.name}: pattern is not valid ({exc})") from None
        return self

    def problem(self, value: str | None) -> str | None:
        """Why *value* does not fit this field, or None."""
        if value is None or not value.strip():
            return "is required" if self.required else None
        value = value.strip()
        if self.type == "integer":
            if not re.fullmatch(r"-?\d{1,9}", value):
                return f"must be a whole number, not {value!r}"
            number = int(value)
            if self.min is not None and number < self.min:
                return f"must be at least {self.min}, not {number}"
            if self.max is not None and number > self.max:
                return f"must be at most {self.max}, not {number}"
        if self.type == "choice" and value not in self.choices:
            return f"must be one of {', '.join(self.choices)}, not {value!r}"
        if self.pattern is not None and not re.fullmatch(self.pattern, value):
            return f"must look like {self.description or self.pattern}, not {value!r}"
        return None


class Rules(BaseModel):
    """What a primer demands beyond the default schema (all optional)."""

    model_config = ConfigDict(extra="forbid")

    count_answers: bool = False  # open questions use count_exact with an integer answer
    unknown_option: bool = False  # MC: exactly one "unknown"-like option, and it is the answer
    unknown_words: list[str] = Field(default_factory=lambda: list(DEFAULT_UNKNOWN_WORDS))
    convention_phrase: str | None = None  # must appear in every question using these words:
    coordinate_words: list[str] = Field(default_factory=list)
    required_attributes: list[str] = Field(default_factory=list)
    question_types: list[QuestionType] = Field(default_factory=list)  # allowed types, if set
    #: every count answer must differ from this task attribute (the canonical count: an
    #: octopus drawn with its usual 8 tentacles tests nothing)
    count_differs_from: str | None = None


class ChecklistItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    text: str


class PrimerHeader(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    title: str
    #: raised when the primer asks for something cases made with the previous version do
    #: not give (another task, a new required attribute); a project records the versions
    #: its cases follow, and `sabre-desk upgrade` moves cases made with an earlier one
    version: int = Field(default=1, ge=1)
    pressure_test_type: str
    generation_mode: GenerationMode | None = None
    #: the whole-image edit that makes an Edited image from a Base photo (New Case's Make
    #: Edited), task attributes in braces: "Replace only the {source_entity} with …"
    edit_prompt: str | None = Field(default=None, max_length=MAX_TEXT_CHARS)
    probes: list[ProbeRule] = Field(default_factory=list)
    rules: Rules = Field(default_factory=Rules)
    #: the primer's Data Schema: task attributes beyond the default schema, typed
    schema_fields: list[SchemaField] = Field(default_factory=list, alias="schema")
    checklist: list[ChecklistItem] = Field(default_factory=list)
    #: the shape of the images `generate images` makes for this primer's cases
    image: ImageSettings | None = None
    decisions: list[Decision] = Field(default_factory=lambda: list(Decision))

    @model_validator(mode="after")
    def _names(self) -> PrimerHeader:
        if not NAME.fullmatch(self.name):
            raise ValueError(f"name: {self.name!r} must be lowercase letters, digits, - or _")
        ids = [c.id for c in self.checklist]
        if len(ids) != len(set(ids)):
            raise ValueError("checklist: item ids must be unique")
        return self


@dataclass
class Primer:
    header: PrimerHeader
    design: str  # the Task Design, Markdown
    path: Path

    @property
    def name(self) -> str:
        return self.header.name


def parse_primer(text: str, path: Path) -> Primer:
    lines = text.splitlines()
    if not lines or lines[0].strip() != FRONT:
        raise PrimerError(f"a primer starts with a TOML header between '{FRONT}' lines", path)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == FRONT)
    except StopIteration:
        raise PrimerError(f"the header is not closed by a '{FRONT}' line", path) from None
    try:
        data = tomllib.loads("\n".join(lines[1:end]))
    except tomllib.TOMLDecodeError as exc:
        raise PrimerError(f"header is not valid TOML: {exc}", path) from exc
    except RecursionError:
        raise PrimerError("header is nested too deeply", path) from None
    except ValueError as exc:  # a 5,000-digit integer, and the like
        raise PrimerError(f"header is not valid TOML: {str(exc)[:160]}", path) from None
    problem = json_depth_problem(data)
    if problem:
        raise PrimerError(f"header: {problem}", path)
    try:
        header = PrimerHeader.model_validate(data)
    except ValidationError as exc:
        raise PrimerError(describe_validation_error(exc), path) from exc
    return Primer(header, "\n".join(lines[end + 1 :]).strip() + "\n", path)


def load_primer(path: Path) -> Primer:
    raw = read_limited(path, LIMITS["primer"], PrimerError)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PrimerError(f"not UTF-8 text (bad byte at offset {exc.start})", path) from exc
    return parse_primer(text, Path(path))


def check_case(spec: SampleSpec, primer: Primer) -> list[str]:
    """Every way *spec* breaks *primer*'s rules, each naming the rule (empty: it complies)."""
    h, rules, problems = primer.header, primer.header.rules, []
    tag = f"primer {h.name}"
    if h.generation_mode and spec.generation_mode is not h.generation_mode:
        problems.append(f"{tag}: generation_mode must be {h.generation_mode.value}")
    if h.probes:
        expected = [(p.probe_id, p.image_role, p.question_type) for p in h.probes]
        found = [(q.probe_id, q.image_role, q.question_type) for q in spec.questions]
        if sorted(found) != sorted(expected):
            pattern = ", ".join(f"{p}({r.value}, {t.value})" for p, r, t in expected)
            problems.append(f"{tag}: probe pattern must be exactly {pattern}")
        else:
            for rule in h.probes:
                q = spec.question(rule.probe_id)
                if rule.answer is not None and q is not None and q.answer != rule.answer:
                    problems.append(
                        f"{tag}: probe {rule.probe_id} must be answered "
                        f"{rule.answer!r}, not {q.answer!r}"
                    )
    for name in rules.required_attributes:
        if not spec.attribute(name):
            problems.append(f"{tag}: task attribute {name!r} is required")
    for schema_field in h.schema_fields:
        broken = schema_field.problem(spec.attribute(schema_field.name))
        if broken:
            problems.append(f"{tag}: task attribute {schema_field.name!r} {broken}")
    canonical = spec.attribute(rules.count_differs_from) if rules.count_differs_from else None
    for q in spec.questions:
        where = f"{tag}: question {q.probe_id}"
        if rules.question_types and q.question_type not in rules.question_types:
            allowed = ", ".join(t.value for t in rules.question_types)
            problems.append(f"{where} must be of type {allowed}")
        if (
            rules.count_answers
            and q.question_type is QuestionType.OPEN
            and (q.eval_type != "count_exact" or not q.answer.isdigit())
        ):
            problems.append(f"{where}: counts use count_exact with a non-negative integer")
        if (
            canonical is not None
            and q.eval_type == "count_exact"
            and q.answer.strip() == canonical.strip()
        ):
            problems.append(
                f"{where}: the count {q.answer} is the canonical one "
                f"({rules.count_differs_from}); the image must show another"
            )
        if rules.unknown_option and q.question_type is QuestionType.MULTIPLE_CHOICE:
            words = [w.lower() for w in rules.unknown_words]
            unknown = [
                i for i, o in enumerate(q.options or []) if any(w in o.lower() for w in words)
            ]
            if len(unknown) != 1:
                problems.append(
                    f"{where}: exactly one option must say the answer cannot be "
                    f"known (found {len(unknown)})"
                )
            elif "ABCD"[unknown[0]] != q.answer:
                problems.append(
                    f"{where}: the answer must be the 'unknown' option {'ABCD'[unknown[0]]}"
                )
        if rules.convention_phrase and rules.coordinate_words:
            text = q.prompt.lower()
            uses = any(
                re.search(rf"\b{re.escape(w.lower())}\b", text) for w in rules.coordinate_words
            )
            if uses and rules.convention_phrase.lower() not in text:
                problems.append(
                    f"{where}: states a position but not the convention "
                    f"({rules.convention_phrase!r})"
                )
    return problems


class PrimerLibrary:
    """The primers a project sees: its own ``primers/`` first, then the shipped ones."""

    def __init__(self, folders: list[Path]):
        self.primers: dict[str, Primer] = {}
        self.problems: list[PrimerError] = []
        for folder in reversed(folders):  # later folders are overridden by earlier ones
            for path in sorted(Path(folder).glob("*.md")) if Path(folder).is_dir() else []:
                if path.name.lower() == "readme.md":
                    continue
                try:
                    primer = load_primer(path)
                except PrimerError as exc:
                    self.problems.append(exc)
                    continue
                self.primers[primer.name] = primer

    @classmethod
    def for_project(cls, project_root: Path | None) -> PrimerLibrary:
        folders = [project_root / "primers"] if project_root else []
        return cls([*folders, primers_dir()])

    def by_type(self, pressure_test_type: str) -> Primer | None:
        return next(
            (p for p in self.primers.values() if p.header.pressure_test_type == pressure_test_type),
            None,
        )

    def for_spec(self, spec: SampleSpec, default: str | None = None) -> tuple[Primer | None, str]:
        """(primer, note): by the case's pressure_test_type, else the project's default."""
        primer = self.by_type(spec.pressure_test_type)
        if primer is not None:
            return primer, ""
        if default and default in self.primers:
            return self.primers[default], ""
        return None, (
            f"no primer for {spec.pressure_test_type!r}: checked against the default schema only"
        )


TEMPLATE = """+++
name = "{name}"
title = "{title}"
version = 1  # raise it when cases made with this version no longer fit
pressure_test_type = "{name}"
# generation_mode = "paired_edit"   # or "single_image"; leave out to allow both
# the edit New Case asks a model for, to make Edited from a Base photo (attributes in braces):
# edit_prompt = "Replace only the {{source_entity}} with one {{target_entity}}; keep all else."

# The exact probes every case must have (leave out to allow any):
# [[probes]]
# probe_id = "edited_target"
# image_role = "edited"
# question_type = "yes_no"
# answer = "yes"

[rules]
# count_answers = true        # open questions are counts (count_exact, integer answers)
# unknown_option = true       # multiple choice: exactly one "cannot be determined" option
# convention_phrase = "from the viewer's point of view"
# coordinate_words = ["left", "right", "above", "below"]
required_attributes = []

[[checklist]]
id = "evidence_visible"
text = "The visual evidence the questions ask about is clearly visible."

[[checklist]]
id = "nothing_else_changed"
text = "Nothing else in the scene changed in a way that affects the questions."
+++
# {title}

**Capability tested.** What should a model get right, and what prior could mislead it?

**Construction.** How the images are made; what must stay unchanged.

**Questions.** The question format and the probe pattern.

**Validity.** What a reviewer checks before keeping a case (the checklist above).
"""


def scaffold(name: str, folder: Path) -> Path:
    if not NAME.fullmatch(name):
        raise PrimerError(f"{name!r}: use lowercase letters, digits, - or _", folder)
    path = Path(folder) / f"{name}.md"
    if path.exists():
        raise PrimerError("already exists", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # whole or not at all: a stopped run never leaves half a template under the name
    text = TEMPLATE.format(name=name, title=name.replace("_", " ").capitalize())
    atomic_write_bytes(path, text.encode("utf-8"))
    return path
