"""The change map of one case, with the edit region taken from the review or the spec."""

from __future__ import annotations

import numpy as np

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.diff import ChangeMap, change_map, heat_rgba, score_outside
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


def change_map_and_heat(case: Case) -> tuple[ChangeMap, np.ndarray]:
    """The change map and its overlay (RGBA): what the window shows, made in a worker."""
    result = case_change_map(case)
    return result, heat_rgba(result)


_opened: dict[tuple[str, str], Project] = {}


def sweep_case(root: str, reviewer: str, case_id: str) -> bool:
    """Whether the change map of one case says its scene possibly changed (the sweep's job,
    in a worker process that opens the project once)."""
    project = _opened.get((root, reviewer))
    if project is None:
        project = _opened[(root, reviewer)] = Project.open(root, reviewer, index=False)
    return case_change_map(project.load_case(case_id)).possibly_scene_changed
