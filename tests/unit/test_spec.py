"""The Sample Specification rules of PROJECT_FORMAT.md, one row each."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from factories import yes_no_spec
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from sabre_desk.core.case.spec import SampleSpec
from sabre_desk.ground.validation_messages import describe_validation_error


def _mc(**kw: Any) -> dict[str, Any]:
    q = {
        "probe_id": "mc",
        "image_role": "image",
        "question_type": "multiple_choice",
        "prompt": "Which?",
        "answer": "B",
        "eval_type": "mcq_letter",
        "options": ["a", "b", "c", "d"],
    }
    q.update(kw)
    return q


def _single(question: dict[str, Any]) -> dict[str, Any]:
    spec = yes_no_spec(
        generation_mode="single_image",
        image_prompt="a board",
        base_prompt=None,
        edit_prompt=None,
        questions=[question],
    )
    return spec


def _open(answer: str, eval_type: str) -> dict[str, Any]:
    return {
        "probe_id": "o",
        "image_role": "image",
        "question_type": "open",
        "prompt": "How many?",
        "answer": answer,
        "eval_type": eval_type,
    }


def _message(spec: dict[str, Any]) -> str:
    with pytest.raises(ValidationError) as info:
        SampleSpec.model_validate(spec)
    return describe_validation_error(info.value)


def _without(key: str) -> dict[str, Any]:
    spec = yes_no_spec()
    spec[key] = None
    return spec


def _with_question(i: int, **kw: Any) -> dict[str, Any]:
    spec = yes_no_spec()
    spec["questions"][i].update(kw)
    return spec


BAD_SPECS = [
    ("paired_edit without base_prompt", _without("base_prompt"), "base_prompt"),
    ("paired_edit without edit_prompt", _without("edit_prompt"), "edit_prompt"),
    ("single_image without image_prompt", {**_single(_mc()), "image_prompt": None}, "image_prompt"),
    (
        "paired_edit question on role image",
        _with_question(0, image_role="image"),
        "questions[0].image_role",
    ),
    (
        "single_image question on role base",
        _single(_mc(image_role="base")),
        "questions[0].image_role",
    ),
    (
        "yes_no with the wrong eval_type",
        _with_question(0, eval_type="exact_match"),
        "questions[0].eval_type",
    ),
    ("yes_no answered maybe", _with_question(1, answer="maybe"), "questions[1].answer"),
    ("yes_no answered Yes (case matters)", _with_question(1, answer="Yes"), "questions[1].answer"),
    (
        "multiple_choice with three options",
        _single(_mc(options=["a", "b", "c"])),
        "questions[0].options",
    ),
    ("multiple_choice answered E", _single(_mc(answer="E")), "questions[0].answer"),
    (
        "multiple_choice with eval_type yes_no_exact",
        _single(_mc(eval_type="yes_no_exact")),
        "questions[0].eval_type",
    ),
    ("open with eval_type mcq_letter", _single(_open("3", "mcq_letter")), "questions[0].eval_type"),
    ("count_exact answered 'three'", _single(_open("three", "count_exact")), "questions[0].answer"),
    ("count_exact answered -1", _single(_open("-1", "count_exact")), "questions[0].answer"),
    ("no questions", yes_no_spec(questions=[]), "questions"),
    ("duplicate probe ids", _with_question(1, probe_id="base_source"), "questions[1].probe_id"),
    ("unknown generation mode", yes_no_spec(generation_mode="video"), "generation_mode"),
    (
        "missing concept_id",
        {k: v for k, v in yes_no_spec().items() if k != "concept_id"},
        "concept_id",
    ),
]


@pytest.mark.parametrize(
    ("spec", "field"), [(s, f) for _, s, f in BAD_SPECS], ids=[name for name, _, _ in BAD_SPECS]
)
def test_each_cross_field_rule_rejects_with_the_field_named(spec: dict, field: str) -> None:
    assert field in _message(spec)


@pytest.mark.parametrize(
    "spec",
    [
        yes_no_spec(),
        _single(_mc()),
        _single(_open("12", "count_exact")),
        _single(_open("blue cube", "exact_match")),
        _single(_open("cube", "contains")),
    ],
)
def test_valid_specs_of_every_question_type_are_accepted(spec: dict) -> None:
    parsed = SampleSpec.model_validate(spec)
    assert parsed.questions[0].probe_id == spec["questions"][0]["probe_id"]


def test_attribute_lookup_reads_task_attributes() -> None:
    spec = SampleSpec.model_validate(yes_no_spec())
    assert spec.attribute("source_entity") == "tape"
    assert spec.attribute("nope") is None


text = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=40
).filter(str.strip)


@st.composite
def valid_specs(draw: st.DrawFn) -> dict[str, Any]:
    mode = draw(st.sampled_from(["paired_edit", "single_image"]))
    roles = ["base", "edited"] if mode == "paired_edit" else ["image"]
    n = draw(st.integers(1, 5))
    questions = []
    for i in range(n):
        kind = draw(st.sampled_from(["yes_no", "multiple_choice", "open"]))
        q: dict[str, Any] = {
            "probe_id": f"p{i}",
            "image_role": draw(st.sampled_from(roles)),
            "question_type": kind,
            "prompt": draw(text),
        }
        if kind == "yes_no":
            q |= {"answer": draw(st.sampled_from(["yes", "no"])), "eval_type": "yes_no_exact"}
        elif kind == "multiple_choice":
            q |= {
                "answer": draw(st.sampled_from("ABCD")),
                "eval_type": "mcq_letter",
                "options": draw(st.lists(text, min_size=4, max_size=4)),
            }
        else:
            q |= {"answer": str(draw(st.integers(0, 10**6))), "eval_type": "count_exact"}
        questions.append(q)
    spec = {
        "concept_id": draw(text),
        "pressure_test_type": draw(text),
        "generation_mode": mode,
        "questions": questions,
    }
    if mode == "paired_edit":
        spec |= {"base_prompt": draw(text), "edit_prompt": draw(text)}
    else:
        spec["image_prompt"] = draw(text)
    return spec


@given(valid_specs())
def test_any_valid_spec_survives_a_round_trip_through_json(spec: dict[str, Any]) -> None:
    parsed = SampleSpec.model_validate(spec)
    again = SampleSpec.model_validate_json(parsed.model_dump_json())
    assert again == parsed


@given(valid_specs(), st.text(max_size=5))
def test_a_yes_no_answer_other_than_yes_or_no_is_always_rejected(spec: dict, answer: str) -> None:
    spec = copy.deepcopy(spec)
    spec["questions"][0] |= {
        "question_type": "yes_no",
        "eval_type": "yes_no_exact",
        "answer": answer,
        "options": None,
    }
    if answer.strip() in ("yes", "no"):  # surrounding whitespace is forgiven, nothing else
        SampleSpec.model_validate(spec)
    else:
        with pytest.raises(ValidationError):
            SampleSpec.model_validate(spec)
