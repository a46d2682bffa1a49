"""The demo project: deterministic, valid, and its edits and defects are real pixels."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.demo.cases import COLORS
from sabre_desk.demo.writer import write_demo_project
from sabre_desk.imaging.io import load_image, probe_image

SUBSETS = {
    "context_prior",
    "texture_prior",
    "attribute_count",
    "attribute_two_property",
    "language_elicitation",
    "counting",
    "spatial_relations",
}


def _digest(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_the_demo_is_byte_identical_every_time(tmp_path: Path) -> None:
    first = write_demo_project(tmp_path / "first")
    again = write_demo_project(tmp_path / "again")
    assert _digest(again) == _digest(first)


def test_the_demo_covers_every_subset_and_validates(demo_master: Path) -> None:
    project = Project.open(demo_master, "alice")
    assert len(project.entries) >= 12
    assert {e.subset for e in project.entries} == SUBSETS
    report = validate_project(project)
    assert report.valid, [p.line() for c in report.invalid_cases for p in c.problems]


def test_screening_is_clearly_marked_as_demo_data(demo_master: Path) -> None:
    for screening in (demo_master / "cases").glob("*/screening.json"):
        run = json.loads(screening.read_text())["runs"][-1]
        assert "DEMO DATA" in run["note"] and "demo" in run["model"]


def _blobs(
    img: np.ndarray, color: tuple[int, int, int], tol: int = 40, min_area: int = 150
) -> list[tuple[int, float]]:
    """(area, fill ratio of the bounding box) of each blob of *color*."""
    mask = (np.abs(img.astype(int) - np.array(color)).max(axis=2) < tol).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    out = []
    for i in range(1, n):
        area, w, h = (
            stats[i, cv2.CC_STAT_AREA],
            stats[i, cv2.CC_STAT_WIDTH],
            stats[i, cv2.CC_STAT_HEIGHT],
        )
        if area >= min_area:
            out.append((int(area), area / float(w * h)))
    return out


def _count_shapes(img: np.ndarray, color: str, kind: str) -> int:
    fill = {"triangle": (0.35, 0.65), "circle": (0.7, 0.85), "square": (0.9, 1.01)}[kind]
    return sum(1 for _, ratio in _blobs(img, COLORS[color]) if fill[0] <= ratio < fill[1])


def _case(root: Path, case_id: str) -> tuple[dict, dict[str, np.ndarray]]:
    folder = root / "cases" / case_id
    spec = json.loads((folder / "spec.json").read_text())
    images = {p.stem: load_image(p) for p in folder.iterdir() if p.suffix in (".png", ".jpg")}
    return spec, images


def test_the_attribute_edit_really_changes_the_count(demo_master: Path) -> None:
    spec, images = _case(demo_master, "attr01_red_triangles")
    answers = {q["image_role"]: int(q["answer"]) for q in spec["questions"]}
    assert answers["edited"] == answers["base"] + 1
    assert _count_shapes(images["base"], "red", "triangle") == answers["base"]
    assert _count_shapes(images["edited"], "red", "triangle") == answers["edited"]


def test_the_traffic_light_shows_the_lamps_its_answer_counts(demo_master: Path) -> None:
    """The paper's Attribute: five lamps drawn, five in the answer, three the usual count."""
    spec, images = _case(demo_master, "attr02_traffic_light")
    answer = int(spec["questions"][0]["answer"])
    lit = sum(
        len(_blobs(images["image"], color, tol=24, min_area=300))
        for color in ((220, 40, 36), (240, 170, 30), (60, 190, 80))
    )
    assert lit == answer == 5
    canonical = {a["name"]: a["value"] for a in spec["task_attributes"]}["canonical_count"]
    assert int(canonical) != answer


def test_the_bottle_count_really_differs(demo_master: Path) -> None:
    spec, images = _case(demo_master, "count02_bottles")
    caps = {
        role: len(_blobs(img, (200, 170, 60), tol=30, min_area=40)) for role, img in images.items()
    }
    assert caps == {"base": 6, "edited": 5}
    assert {q["answer"] for q in spec["questions"]} == {"6", "5"}


@pytest.mark.parametrize(
    "case_id",
    ["ctx01_tape_bagel", "ctx02_apple_tennis_ball", "tex01_mug_brick", "tex02_board_marble"],
)
def test_paired_edits_are_local_changes(demo_master: Path, case_id: str) -> None:
    _, images = _case(demo_master, case_id)
    diff = np.abs(images["base"].astype(int) - images["edited"].astype(int)).max(axis=2) > 30
    changed = diff.mean()
    assert 0.003 < changed < 0.08, changed  # a real object-sized change, not the whole scene


def test_the_wrench_fragment_defect_is_left_in_the_edited_image(demo_master: Path) -> None:
    spec, images = _case(demo_master, "ctx03_wrench_banana")
    assert any("Known defect" in n for n in spec["generation_notes"])
    fragment = images["edited"][300:360, 260:320]
    steel = (np.abs(fragment.astype(int) - np.array((150, 156, 166))).max(axis=2) < 25).sum()
    assert steel > 150


def test_the_smear_defect_tints_the_edited_mug(demo_master: Path) -> None:
    spec, images = _case(demo_master, "tex01_mug_brick")
    assert any("smear" in n for n in spec["generation_notes"])
    region = images["edited"][375:415, 175:225].astype(float)
    base_region = images["base"][375:415, 175:225].astype(float)
    purple = lambda a: (a[..., 0] + a[..., 2]) / 2 - a[..., 1]  # noqa: E731
    assert purple(region).mean() > purple(base_region).mean() + 15


def test_the_phone_photo_case_is_shown_upright(demo_master: Path) -> None:
    path = demo_master / "cases" / "count01_apples" / "image.jpg"
    info = probe_image(path)
    assert info.orientation == 6 and info.size == (768, 512)
    assert load_image(path).shape == (512, 768, 3)


def test_writing_the_demo_into_a_non_empty_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    from sabre_desk.ground.errors import ProjectError

    with pytest.raises(ProjectError, match="not empty"):
        write_demo_project(tmp_path)
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_the_moved_glass_is_found_outside_the_edit(demo_master: Path) -> None:
    from sabre_desk.core.repair.changes import case_change_map

    project = Project.open(demo_master, "alice")
    result = case_change_map(project.load_case("ctx02_apple_tennis_ball"))
    assert result.edit_box_source == "the spec's review_box"
    assert len(result.regions) == 2 and len(result.outside_regions) == 1
    assert result.possibly_scene_changed
    clean = case_change_map(project.load_case("ctx01_tape_bagel"))
    assert len(clean.regions) == 1 and not clean.possibly_scene_changed
