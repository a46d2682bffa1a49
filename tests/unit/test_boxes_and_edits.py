"""Box geometry and question edits, without Qt."""

from __future__ import annotations

import pytest
from factories import yes_no_spec
from hypothesis import given
from hypothesis import strategies as st

from sabre_desk.core.case.question_edits import effective, make_edit
from sabre_desk.core.case.review import Box, QuestionEdit
from sabre_desk.core.case.spec import ImageRole, Question, SampleSpec
from sabre_desk.core.desk.boxes import mirrored
from sabre_desk.imaging.geometry import click_box, normalize, to_pixels

coord = st.floats(-500, 3000, allow_nan=False)


@given(coord, coord, coord, coord, st.integers(1, 4000), st.integers(1, 4000))
def test_any_drag_becomes_a_valid_box_inside_the_image(
    x0: float, y0: float, x1: float, y1: float, w: int, h: int
) -> None:
    box = normalize((x0, y0, x1, y1), w, h)
    Box(image_role="base", box=box)  # passes the file format's own validation
    assert 0 <= box[0] < box[2] <= 1 and 0 <= box[1] < box[3] <= 1


def test_pixels_round_trip_on_an_odd_sized_image() -> None:
    box = normalize((10, 20, 101, 77), 333, 217)
    px = to_pixels(box, 333, 217)
    assert px == pytest.approx((10, 20, 101, 77), abs=0.01)


def test_a_click_drops_a_box_centred_and_kept_inside() -> None:
    x0, _, x1, _ = to_pixels(click_box(100, 100, 1000, 500), 1000, 500)
    assert (x0 + x1) / 2 == pytest.approx(100) and x1 - x0 == pytest.approx(60)
    corner = to_pixels(click_box(0, 0, 1000, 500), 1000, 500)
    assert corner[0] == 0 and corner[1] == 0


def test_mirroring_maps_the_default_labels() -> None:
    box = Box(image_role="base", label="source", box=(0.1, 0.2, 0.3, 0.4))
    other = mirrored(box, ImageRole.EDITED)
    assert other.image_role is ImageRole.EDITED and other.label == "target"
    assert other.box == box.box
    assert (
        mirrored(Box(image_role="base", label="repair", box=box.box), ImageRole.EDITED).label
        == "repair"
    )


def _question(kind: str = "yes_no") -> Question:
    spec = SampleSpec.model_validate(yes_no_spec())
    return spec.questions[0]


def test_an_answer_edit_is_normalized_and_validated() -> None:
    q = _question()  # a yes/no question answered "yes"
    edit = make_edit(q, None, answer=" NO ")
    assert edit == QuestionEdit(answer="no")
    assert effective(q, edit) == (q.prompt, "no")
    with pytest.raises(ValueError, match="'yes' or 'no'"):
        make_edit(q, None, answer="maybe")
    assert make_edit(q, edit, answer="yes") is None  # back to the original: no edit left


def test_a_prompt_edit_keeps_an_answer_edit() -> None:
    q = _question()
    edit = make_edit(q, QuestionEdit(answer="no"), prompt="Is tape clearly visible?")
    assert edit == QuestionEdit(prompt="Is tape clearly visible?", answer="no")
    with pytest.raises(ValueError, match="empty"):
        make_edit(q, edit, prompt="   ")
