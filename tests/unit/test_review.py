"""Review files: the reviewer's decisions, boxes and edits must round-trip exactly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from sabre_desk.core.case.review import (
    Box,
    Decision,
    QuestionEdit,
    RepairRecord,
    Review,
    repaired_since,
)
from sabre_desk.core.case.spec import ImageRole

unit = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def valid_boxes(draw: st.DrawFn) -> tuple[float, float, float, float]:
    x0, x1 = sorted(draw(st.lists(unit, min_size=2, max_size=2, unique=True)))
    y0, y1 = sorted(draw(st.lists(unit, min_size=2, max_size=2, unique=True)))
    return (x0, y0, x1, y1)


@given(valid_boxes(), st.sampled_from(["base", "edited", "image"]), st.text(max_size=20))
def test_valid_boxes_round_trip_through_json(box: tuple, role: str, label: str) -> None:
    review = Review(
        case_id="c1", reviewer="alice", boxes=[Box(image_role=role, label=label, box=box)]
    )
    again = Review.model_validate_json(review.model_dump_json())
    assert again.boxes[0].box == box
    assert again == review


@given(st.tuples(unit, unit, unit, unit))
def test_boxes_outside_the_unit_square_or_inverted_are_refused(box: tuple) -> None:
    x0, y0, x1, y1 = box
    valid = x0 < x1 and y0 < y1
    if valid:
        Box(image_role="base", box=box)
    else:
        with pytest.raises(ValidationError, match="0 <= x0 < x1 <= 1"):
            Box(image_role="base", box=box)


@pytest.mark.parametrize("box", [(-0.1, 0, 0.5, 0.5), (0, 0, 1.2, 0.5), (0.5, 0, 0.5, 1)])
def test_edge_boxes_are_refused(box: tuple) -> None:
    with pytest.raises(ValidationError):
        Box(image_role="edited", box=box)


@given(
    st.sampled_from([*list(Decision), None]),
    st.text(max_size=200),
    st.dictionaries(
        st.from_regex(r"[a-z_]{1,10}", fullmatch=True),
        st.builds(
            QuestionEdit,
            prompt=st.text(max_size=30) | st.none(),
            answer=st.text(max_size=5) | st.none(),
        ),
        max_size=3,
    ),
)
def test_any_review_round_trips(decision: Decision | None, notes: str, edits: dict) -> None:
    review = Review(
        case_id="case.1", reviewer="bob", decision=decision, notes=notes, question_edits=edits
    )
    assert Review.model_validate_json(review.model_dump_json()) == review


def test_decision_labels_use_the_platform_words() -> None:
    assert Decision.EDIT_FAILED.label == "Edited replacement failed"
    assert [d.value for d in Decision] == [
        "keep",
        "needs_recheck",
        "edit_failed",
        "base_invalid",
        "scene_changed",
        "unsure",
    ]


@pytest.mark.parametrize("reviewer", ["../alice", "al ice", "", ".hidden"])
def test_a_reviewer_name_that_is_not_a_safe_file_name_is_refused(reviewer: str) -> None:
    with pytest.raises(ValidationError, match="reviewer"):
        Review(case_id="c1", reviewer=reviewer)


def test_a_review_from_a_newer_format_is_refused_not_misread() -> None:
    with pytest.raises(ValidationError, match="newer"):
        Review.model_validate({"case_id": "c1", "reviewer": "a", "version": 99})


def _repair(rid: str, status: str, decided_at: str, role: str = "edited") -> RepairRecord:
    return RepairRecord(
        id=rid,
        image_role=role,
        op="remove",
        engine="opencv",
        box=(0.1, 0.1, 0.5, 0.5),
        preview=f"repairs/{rid}.png",
        status=status,
        decided_at=decided_at,
    )


def test_the_repair_since_a_screening_run_is_the_last_accepted_by_any_reviewer() -> None:
    run_at = "2025-05-01T10:00:00Z"
    alice = Review(case_id="c1", reviewer="alice", repairs=[_repair("r1", "accepted", run_at)])
    bob = Review(
        case_id="c1", reviewer="bob", repairs=[_repair("r2", "accepted", "2025-05-02T09:00:00Z")]
    )
    found = repaired_since([alice, bob], ImageRole("edited"), run_at)
    assert found is not None and found.id == "r2"
    # the image as the run saw it: nothing since, another image, or the repair reverted
    assert repaired_since([alice], ImageRole("edited"), run_at) is None
    assert repaired_since([alice, bob], ImageRole("base"), run_at) is None
    bob.repairs.append(_repair("r2b", "reverted", "2025-05-03T09:00:00Z"))
    assert repaired_since([alice, bob], ImageRole("edited"), run_at) is None
