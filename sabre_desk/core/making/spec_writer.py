"""`generate specs`: a Test Primer becomes Sample Specifications, one at a time (paper §3.1,
Appendix B).

The design model receives the primer's Task Design with its rules and Data Schema, and
answers with one specification as structured output (the response schema is the default
Sample Specification schema tightened by the primer). A reply is accepted only when it
parses, fits the schema, keeps the primer's rules and names a concept not used before in the
project; otherwise the validator's messages go back to the model in the same conversation
for another try, up to a limit. The prompt, the model id, the accepted reply and every
attempt's reasons and length are kept in the specification's ``generation`` record (a
rejected reply itself never is: see ``attempt_record``); a specification that never came
right is recorded with its reasons (``generation/spec_failures.jsonl``), and its calls are
in the cost ledger like every other.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable
from copy import deepcopy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from sabre_desk.core.case.primers import Primer, check_case
from sabre_desk.core.case.project import CASES_DIR
from sabre_desk.core.case.question_builder import place_unknown, unknown_index
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import (
    MAX_NAME_CHARS,
    OPEN_EVAL_TYPES,
    QuestionType,
    SampleSpec,
)
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.making.incoming import (
    record_spec_failure,
    stage_spec,
    staged_cases,
    staged_ids,
    staged_spec,
)
from sabre_desk.engines.gemini_make import MakeCancelledError, MakeFailedError, Written
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.reading import LIMITS
from sabre_desk.ground.validation_messages import describe_validation_error

#: Tries per specification: the first reply and this many corrections, minus one.
DEFAULT_TRIES = 3
#: Concept ids named in the prompt as taken: the latest ones (older ones are still checked).
PROMPT_TAKEN_IDS = 200
STAGE = "specs"


class SpecWriter(Protocol):
    """What writes one reply (``engines.providers.writer_for``: Gemini, OpenAI, Anthropic,
    a local server); ``kind`` is its provider, ``model`` what is recorded."""

    kind: str
    model: str

    def write(
        self, turns: list[tuple[str, str]], schema: dict[str, Any], cancel: threading.Event
    ) -> Written: ...


def response_schema(primer: Primer) -> dict[str, Any]:
    """The default schema as JSON Schema, tightened by *primer*: its test type and mode
    fixed, its probe pattern's ids and count, the record fields the app fills left out."""
    schema = SampleSpec.model_json_schema()
    props = schema["properties"]
    for name in ("generation", "provenance"):
        props.pop(name, None)
    h = primer.header
    props["pressure_test_type"] = {"type": "string", "enum": [h.pressure_test_type]}
    props["concept_id"] = {
        "type": "string",
        "pattern": r"^[a-z0-9][a-z0-9_\-]*$",
        "maxLength": 80,
        "description": "a short unique id: lowercase letters, digits, _ and -",
    }
    if h.generation_mode is not None:
        props["generation_mode"] = {"type": "string", "enum": [h.generation_mode.value]}
    if h.probes:
        questions = props["questions"]
        questions["minItems"] = questions["maxItems"] = len(h.probes)
    names = list(dict.fromkeys([*h.rules.required_attributes, *(f.name for f in h.schema_fields)]))
    if names:
        props["task_attributes"]["description"] = "must include: " + ", ".join(names)
    schema["required"] = sorted(
        {*schema.get("required", []), "objective", "task_attributes", "review_targets"}
    )
    return schema


def _rules_in_words(primer: Primer) -> list[str]:
    h, rules = primer.header, primer.header.rules
    lines = [f"pressure_test_type is {h.pressure_test_type!r}."]
    if h.generation_mode is not None:
        lines.append(f"generation_mode is {h.generation_mode.value!r}.")
    for rule in h.probes:
        what = f"- probe {rule.probe_id!r}: about the {rule.image_role.value} image, "
        what += f"{rule.question_type.value}"
        if rule.answer is not None:
            what += f", answer {rule.answer!r}"
        if rule.prompt:
            what += f", worded like {rule.prompt!r}"
        lines.append(what)
    if h.probes:
        lines.insert(len(lines) - len(h.probes), "The questions are exactly these probes:")
    for name in rules.required_attributes:
        lines.append(f"task_attributes includes {name!r}.")
    for f in h.schema_fields:
        kind = f.type + (f" ({', '.join(f.choices)})" if f.choices else "")
        limits = (f", at least {f.min}" if f.min is not None else "") + (
            f", at most {f.max}" if f.max is not None else ""
        )
        need = "required" if f.required else "optional"
        lines.append(f"task attribute {f.name!r}: {kind}{limits}, {need}. {f.description}".strip())
    if rules.count_answers:
        lines.append("Open questions are counts: eval_type count_exact, a whole-number answer.")
    if rules.count_differs_from:
        lines.append(
            f"Every count answer differs from the task attribute {rules.count_differs_from!r} "
            "(the canonical count)."
        )
    if rules.unknown_option:
        lines.append(
            "Multiple-choice questions have exactly one option saying the answer cannot be "
            f"determined (e.g. {rules.unknown_words[0]!r}), and it is the answer."
        )
    if rules.convention_phrase and rules.coordinate_words:
        lines.append(
            f"A question that uses {', '.join(rules.coordinate_words)} states the convention "
            f"{rules.convention_phrase!r}."
        )
    if rules.question_types:
        lines.append("Question types allowed: " + ", ".join(t.value for t in rules.question_types))
    return lines


def first_prompt(primer: Primer, taken: list[str], number: int, total: int) -> str:
    """The design model's instructions for one specification (paper Appendix B)."""
    recent = taken[-PROMPT_TAKEN_IDS:]
    used = ", ".join(recent) if recent else "none yet"
    return "\n".join(
        [
            "You write one Sample Specification for a stress test of vision-language models, "
            "as one JSON object following the response schema.",
            "",
            f"Task Design (from the Test Primer {primer.name!r}):",
            primer.design.strip(),
            "",
            "Rules the specification must keep:",
            *_rules_in_words(primer),
            "A paired_edit case has base_prompt (the Base image) and edit_prompt (the change",
            "that makes the Edited image); a single_image case has image_prompt. Yes/no",
            "questions use eval_type yes_no_exact and answer yes or no; multiple_choice",
            "questions have four options and answer with the letter A-D (eval_type",
            f"mcq_letter); open questions use one of {', '.join(OPEN_EVAL_TYPES)}.",
            "",
            f"concept_ids already used in this project (never reuse one): {used}.",
            f"This is specification {number} of {total}: choose a scene and entities unlike",
            "the ones above.",
        ]
    )


def feedback_prompt(problems: list[str]) -> str:
    return "\n".join(
        [
            "The specification was rejected by the validator:",
            *(f"- {p}" for p in problems),
            "Reply with a corrected, complete specification (one JSON object).",
        ]
    )


def check_reply(
    text: str, primer: Primer, taken: set[str]
) -> tuple[dict[str, Any] | None, list[str]]:
    """(the specification, []) when the reply is acceptable, else (None, the reasons)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return None, [f"the reply is not JSON ({str(exc)[:160]})"]
    if not isinstance(data, dict):
        return None, ["the reply is JSON but not one object (a specification)"]
    data.pop("generation", None)
    data.pop("provenance", None)
    try:
        spec = SampleSpec.model_validate(data)
    except ValidationError as exc:
        return None, [describe_validation_error(exc)]
    problems = check_case(spec, primer)
    concept = spec.concept_id
    problem = id_problem(concept, "concept_id")
    if problem or len(concept) > MAX_NAME_CHARS:
        problems.append(problem or "concept_id: too long")
    elif concept in taken:
        problems.append(f"concept_id {concept!r} is already used in this project; choose another")
    if problems:
        return None, problems
    return spec.model_dump(mode="json", exclude_none=True), []


@dataclass
class SpecRunReport:
    written: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # reasons of specs that never came right
    calls: int = 0
    cancelled: bool = False


def taken_ids(root: Path) -> list[str]:
    """Every concept already in the project: its cases (folder names, which are their ids
    unless imported under another) and the specifications waiting for images."""
    cases = root / CASES_DIR
    names = sorted(p.name for p in cases.iterdir() if p.is_dir()) if cases.is_dir() else []
    return [*names, *sorted(staged_ids(root))]


def _unknown_positions(root: Path, primer: Primer) -> list[int]:
    """Where the unknown option sits in this primer's specifications still waiting."""
    words = primer.header.rules.unknown_words
    positions: list[int] = []
    for staged in staged_cases(root):
        try:
            spec = staged_spec(staged.folder)
        except ProjectError:
            continue
        if spec.get("pressure_test_type") != primer.header.pressure_test_type:
            continue
        for q in spec.get("questions", []):
            if q.get("question_type") == QuestionType.MULTIPLE_CHOICE.value:
                at = unknown_index(q.get("options") or [], words)
                if at is not None:
                    positions.append(at)
    return positions


def write_specs(
    root: Path,
    primer: Primer,
    n: int,
    writer: SpecWriter,
    cancel: threading.Event,
    *,
    tries: int = DEFAULT_TRIES,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
    guard: RunGuard | None = None,
) -> SpecRunReport:
    """Write *n* new specifications for *primer* into the project at *root*.

    Each valid one is kept at once (a killed run keeps what it paid for); each call is
    entered in the ledger, whatever came of it. *guard* (the run's deadline and give-up
    rule) is told how each call ended and may stop the run between calls."""
    if n < 1:
        raise ValueError("--n: ask for at least one specification")
    report = SpecRunReport()
    ledger = Ledger.of_project(root)
    taken_list = taken_ids(root)
    taken = set(taken_list)
    schema = response_schema(primer)
    primer_hash = file_sha256(primer.path)
    rng = random.Random(seed)
    positions = _unknown_positions(root, primer)
    for number in range(1, n + 1):
        if cancel.is_set() or (guard is not None and not guard.check()):
            report.cancelled = True
            break
        prompt = first_prompt(primer, taken_list, number, n)
        turns: list[tuple[str, str]] = [("user", prompt)]
        attempts: list[dict[str, Any]] = []
        spec: dict[str, Any] | None = None
        for _ in range(tries):
            try:
                reply = writer.write(turns, schema, cancel)
            except MakeCancelledError:
                break
            except MakeFailedError as exc:
                report.calls += 1
                ledger.add(STAGE, writer.kind, writer.model, exc.usage)
                attempts.append(attempt_record(None, [exc.reason]))
                if guard is not None:
                    guard.outcome(exc.reason)
                break  # the service failed (after its retries): another try would too
            if guard is not None:
                guard.succeeded()
            report.calls += 1
            ledger.add(STAGE, writer.kind, writer.model, reply.usage)
            spec, problems = check_reply(reply.text, primer, taken)
            attempts.append(attempt_record(reply.text, problems))
            if spec is not None:
                break
            echoed = reply.text[: LIMITS["kept reply"]]  # a megabyte reply is not sent back
            turns += [("model", echoed), ("user", feedback_prompt(problems))]
        if spec is None and cancel.is_set():
            report.cancelled = True  # what this one cost is in the ledger; nothing to keep
            break
        if spec is None:
            reasons = attempts[-1]["problems"] if attempts else ["cancelled"]
            record_failure(root, primer, writer.model, attempts)
            report.failed.append("; ".join(reasons))
            if progress:
                progress(number, n, f"failed: {reasons[0]}")
            continue
        spec = _balanced(spec, primer, positions, rng)
        spec["generation"] = {
            "stage": STAGE,
            "at": utc_now(),
            "model": writer.model,
            "primer": {"name": primer.name, "sha256": primer_hash},
            "prompt": prompt,
            "attempts": attempts,
        }
        case_id = str(spec["concept_id"])
        stage_spec(root, case_id, spec)
        taken.add(case_id)
        taken_list.append(case_id)
        report.written.append(case_id)
        if progress:
            progress(number, n, case_id)
    return report


#: Reasons kept per attempt, and characters per reason.
MAX_PROBLEMS, MAX_PROBLEM_CHARS = 20, 300


def attempt_record(reply: str | None, problems: list[str]) -> dict[str, Any]:
    """What the generation record keeps of one attempt: its reasons and the reply's length;
    the reply itself only when it was accepted and short (``LIMITS["kept reply"]``). A
    rejected reply is never kept: a model that answers megabytes would otherwise make the
    accepted specification too large for its own reader."""
    kept = [p[:MAX_PROBLEM_CHARS] for p in problems[:MAX_PROBLEMS]]
    if len(problems) > MAX_PROBLEMS:
        kept.append(f"and {len(problems) - MAX_PROBLEMS} more")
    record: dict[str, Any] = {"reply": None, "problems": kept}
    if reply is not None:
        record["reply_chars"] = len(reply)
        if not problems and len(reply.encode("utf-8")) <= LIMITS["kept reply"]:
            record["reply"] = reply
    return record


def _balanced(
    spec: dict[str, Any], primer: Primer, positions: list[int], rng: random.Random
) -> dict[str, Any]:
    """The specification with its "unknown" option moved to the position used least so far
    across the subset (the Question Builder's balance, applied as cases are made)."""
    if not primer.header.rules.unknown_option:
        return spec
    out = deepcopy(spec)
    for question in out.get("questions", []):
        if question.get("question_type") != QuestionType.MULTIPLE_CHOICE.value:
            continue
        at = place_unknown(question, positions, primer.header.rules.unknown_words, rng)
        if at is not None:
            positions.append(at)
    return out


def record_failure(root: Path, primer: Primer, model: str, attempts: list[dict[str, Any]]) -> None:
    record_spec_failure(
        root,
        {
            "primer": primer.name,
            "model": model,
            "reason": "; ".join(attempts[-1]["problems"]) if attempts else "cancelled",
            "attempts": attempts,
        },
    )
