"""The change map of one case, with the edit region taken from the review or the spec."""

from __future__ import annotations

from sabre_desk.core.project import Case
from sabre_desk.core.spec import ImageRole
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.diff import ChangeMap, change_map, score_outside
from sabre_desk.imaging.geometry import parse_box
from sabre_desk.imaging.io import load_image

Box = tuple[float, float, float, float]


def edit_box(case: Case) -> tuple[Box | None, str]:
    """Where the edit is: the reviewer's target box on Edited, else any of their Edited
    boxes, else the spec's ``review_box`` task attribute ("x0,y0,x1,y1")."""
    edited = case.review.boxes_on(ImageRole.EDITED)
    for box in edited:
        if box.label == "target":
            return box.box, "your target box"
    if edited:
        return edited[0].box, "your box on Edited"
    text = case.spec.attribute("review_box")
    if text:  # the spec model has already checked that it parses
        return parse_box(text), "the spec's review_box"
    return None, ""


def case_change_map(case: Case) -> ChangeMap:
    """Decode both images and compare them (slow: run it on a worker)."""
    if ImageRole.BASE not in case.spec.image_roles:
        raise ImageError("a single-image case has nothing to compare", case.folder, case.case_id)
    for role in (ImageRole.BASE, ImageRole.EDITED):
        if role not in case.images:
            problem = case.image_problems.get(role)
            raise problem or ImageError(f"no {role.value} image", case.folder, case.case_id)
    result = change_map(
        load_image(case.images[ImageRole.BASE]), load_image(case.images[ImageRole.EDITED])
    )
    box, source = edit_box(case)
    return score_outside(result, box, source)
