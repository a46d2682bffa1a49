"""A band of structure carried across the hole (``imaging/carried_bands.py``): a launch
tower's lattice across a box runs on through it, its bars where they were and its sky the
sky round it; nothing is taken for a band on gravel or a brick wall, at an edge between two
grounds, and a band is never copied from past its end."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.imaging.carried_bands import carry_band
from sabre_desk.imaging.geometry import normalize

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"
#: the lattice's legs (x) and its bars' colour
LEGS = (100, 124)
STEEL = (70, 50, 40)


def lattice(
    ground: tuple[int, int, int] | None = None, top: int = 0, period: int = 20
) -> tuple[np.ndarray, np.ndarray]:
    """A tower's lattice (two legs, crossed bars every ``period`` pixels) from row ``top``
    down, in an evening sky lighter further down (240×200); right of its middle the
    ``ground`` instead, if given. The picture and the bars' pixels."""
    h, w = 240, 200
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    sky = np.dstack([40 + 0.15 * y, 60 + 0.15 * y, 120 + 0.2 * y])
    if ground is not None:
        sky = np.where((x < sum(LEGS) / 2)[..., None], sky, np.array(ground, np.float32))
    sky += np.random.default_rng(3).normal(0, 2, (h, w, 3)).astype(np.float32)
    bars = np.zeros((h, w), np.uint8)
    left, right = LEGS
    for leg in LEGS:
        cv2.line(bars, (leg, top), (leg, h), 255, 2, cv2.LINE_AA)
    for k in range(top // period, h // period + 1):
        y0 = k * period
        cv2.line(bars, (left, y0), (right, y0 + period), 255, 1, cv2.LINE_AA)
        cv2.line(bars, (right, y0), (left, y0 + period), 255, 1, cv2.LINE_AA)
    bars[:top] = 0
    share = (bars.astype(np.float32) / 255)[..., None]
    image = sky * (1 - share) + np.array(STEEL, np.float32) * share
    return np.clip(image, 0, 255).astype(np.uint8), bars > 127


def disc(centre: tuple[int, int], radius: int) -> np.ndarray:
    hole = np.zeros((240, 200), np.uint8)
    cv2.circle(hole, centre, radius, 1, -1)
    return hole.astype(bool)


def test_a_lattice_tower_across_the_box_runs_on_through_it() -> None:
    """A pasted blob over a tower, boxed and repaired by the default engine: the lattice
    runs on through the box, bars where they were, sky the sky round it (the fill copied
    sky over the lattice: 12.8 levels off in the tower's columns)."""
    truth, bars = lattice()
    covered = truth.copy()
    blob = disc((112, 120), 36)
    noise = np.random.default_rng(8).integers(120, 255, (240, 200, 3), dtype=np.uint8)
    covered[blob] = noise[blob]
    box = (72, 80, 153, 161)
    order = RepairOrder(box=normalize(box, 200, 240), op="remove", instruction="")
    repaired = run_repair(covered, order, PatchMatchEngine()).image
    tower = blob.copy()
    tower[:, : LEGS[0] - 6] = False
    tower[:, LEGS[1] + 7 :] = False
    off = np.abs(repaired.astype(int) - truth).max(axis=2)
    assert off[tower].mean() < 6
    # the bars are dark against the sky (each row's median) where they were, and nowhere else
    sky = np.median(truth.astype(int).sum(axis=2), axis=1, keepdims=True)
    dark = repaired.astype(int).sum(axis=2) < sky - 60
    assert dark[blob & bars].mean() > 0.6
    away = blob & ~cv2.dilate(bars.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)
    assert dark[away].mean() < 0.01


def test_the_real_launch_tower_runs_on_through_a_box() -> None:
    """A box across the lattice of the launch tower in scikit-image's rocket photograph,
    filled whole: the lattice is in the box, where the tower runs (the fill laid sky
    there, none of the tower's pixels in it)."""
    photo = np.asarray(Image.open(PHOTOS / "rocket_tower.png").convert("RGB"))
    h, w = photo.shape[:2]
    box = (100, 100, 180, 180)
    order = RepairOrder(box=normalize(box, w, h), op="remove", instruction="")
    repaired = run_repair(photo, order, PatchMatchEngine(whole_box=True)).image
    inside = np.zeros((h, w), bool)
    inside[100:180, 100:180] = True
    sky = np.median(photo[inside], axis=0)
    steel_in_photo = np.abs(photo.astype(int) - sky).sum(axis=2) > 60
    steel = np.abs(repaired.astype(int) - sky).sum(axis=2) > 60
    assert steel[inside].mean() > 0.6 * steel_in_photo[inside].mean()
    tower = cv2.dilate(steel_in_photo.astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    assert steel[inside & ~tower].mean() < 0.01  # and not in the sky beside it


@pytest.mark.parametrize(
    ("name", "scale", "box"),
    [
        ("brick.png", 1, (40, 40, 120, 120)),
        ("brick.png", 2, (190, 210, 250, 270)),
        ("gravel.png", 1, (60, 57, 181, 172)),
        ("rocket_sky.png", 1, (42, 42, 125, 127)),
    ],
)
def test_nothing_is_taken_for_a_band_on_textured_ground_or_beside_one(
    name: str, scale: int, box: tuple[int, int, int, int]
) -> None:
    """A box on a brick wall, on gravel, or in the sky beside the launch tower: no band. (At
    twice its size a joint of mortar runs through this box alone: a line, carried as an
    edge; copied as a band it came back with steps of a pixel or two where its copies met.)"""
    photo = np.asarray(Image.open(PHOTOS / name).convert("RGB"))
    photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    x0, y0, x1, y1 = box
    hole = np.zeros(photo.shape[:2], bool)
    hole[y0:y1, x0:x1] = True
    _, drawn = carry_band(photo, hole)
    assert not drawn.any()


def test_a_step_between_two_grounds_is_not_a_band() -> None:
    """The same lattice with sky on its left and an orange wall on its right is an edge
    between two grounds, not a band standing on one: nothing is copied; on the sky alone
    it is."""
    hole = disc((112, 120), 40)
    alone, _ = lattice()
    assert carry_band(alone, hole)[1].any()
    between, _ = lattice(ground=(190, 120, 60))
    assert not carry_band(between, hole)[1].any()


def test_a_band_is_not_copied_from_past_its_end() -> None:
    """A lattice that ends 30 pixels above the hole, its last 12 a red platform: the band
    is copied from below only (from above, a period or two up, the copies reached the
    platform and laid red bars in the hole)."""
    truth, _ = lattice(top=46)
    truth[46:58, LEGS[0] - 2 : LEGS[1] + 3] = (200, 40, 30)
    hole = disc((112, 126), 38)  # its top at row 88: the band runs 30 pixels above it
    copied, drawn = carry_band(truth, hole)
    assert drawn.any()
    red = (copied[..., 0].astype(int) > 150) & (copied[..., 2].astype(int) < 80)
    assert not red[hole].any()
