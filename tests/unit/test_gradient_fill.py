"""The fill made again from its sources' gradients (``imaging/gradient_fill.py``): the pixels
are found from gradients exactly, the known pixels are kept, and a completion on a smooth
shaded surface has no step where patches from two places meet."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sabre_desk.demo.writer import SMEAR_BOXES, smear_and_truth
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.imaging.geometry import normalize
from sabre_desk.imaging.gradient_fill import from_gradients, source_gradients


def shaded(h: int, w: int, seed: int) -> np.ndarray:
    """A smooth shaded surface (a glazed saucer's red, a sky's blue), with a little grain."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    shade = 110 + 70 * np.sin(x / 70 + seed) * np.cos(y / 55)
    img = np.dstack([shade, shade * 0.45, shade * 0.3]) + rng.normal(0, 2, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.float32)


@pytest.mark.parametrize("where", ["inside", "on the image's edge"])
def test_pixels_come_back_from_their_own_gradients(where: str) -> None:
    """Given a picture's own gradients in a hole, the hole's pixels come back as they were
    (to a fraction of a level), from any start; the pixels round it are not touched."""
    truth = shaded(120, 150, 1)
    hole = np.zeros((120, 150), bool)
    if where == "inside":
        hole[30:100, 40:110] = True
    else:
        hole[30:100, 0:80] = True
    start = truth.copy()
    start[hole] = (200, 30, 90)  # nothing like the picture
    none = np.full(hole.shape, -1, np.int32)  # every pixel its own source: truth's gradients
    gx, gy = source_gradients(truth, np.zeros_like(hole), none, none)
    out = from_gradients(start, hole, gx, gy)
    assert np.array_equal(out[~hole], truth[~hole])
    assert np.abs(out - truth)[hole].mean() < 0.5


def test_a_pixel_takes_the_gradient_where_its_patch_came_from() -> None:
    img = np.zeros((6, 6, 3), np.float32)
    img[:, 3:] = 90  # a step between columns 2 and 3
    where = np.zeros((6, 6), bool)
    where[1, 0] = True
    ys = np.full((6, 6), -1, np.int32)
    xs = np.full((6, 6), -1, np.int32)
    ys[1, 0], xs[1, 0] = 4, 2  # copied from beside the step
    gx, gy = source_gradients(img, where, ys, xs)
    assert gx[1, 0, 0] == 90 and gx[2, 0, 0] == 0 and gy[1, 0, 0] == 0


@pytest.mark.parametrize("seed", [0, 2, 3, 5])
def test_a_smooth_surface_is_filled_without_a_step(seed: int) -> None:
    """An object pasted on a smooth shaded surface, removed by the default engine: the fill
    is as smooth as the surface round it. The voted colours of patches copied from two
    places met in a straight step, 4.6 to 5.5 times as steep as anything round the box
    (a crack across a saucer's shading, a band in a sky)."""
    photo = shaded(240, 320, seed).astype(np.uint8)
    rng = np.random.default_rng(seed)
    blotches = cv2.GaussianBlur(rng.random((70, 90)).astype(np.float32), (0, 0), 3)
    blotches = (blotches - blotches.min()) / (blotches.max() - blotches.min()) * 200 + 30
    pasted = photo.copy()
    pasted[85:155, 115:205] = np.dstack([blotches * 0.6, blotches, blotches * 0.8])
    order = RepairOrder(box=normalize((110, 80, 210, 160), 320, 240), op="remove", instruction="")
    repaired = run_repair(pasted, order, PatchMatchEngine()).image
    grey = cv2.GaussianBlur(
        cv2.cvtColor(repaired, cv2.COLOR_RGB2GRAY).astype(np.float32), (0, 0), 1
    )
    steep = np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)) / 8
    round_box = steep[50:190, 80:240].copy()
    round_box[30:110, 30:130] = 0
    assert steep[80:160, 110:210].max() <= 1.5 * round_box.max()


@pytest.mark.parametrize(("step", "kept"), [(120.0, True), (12.0, False)])
def test_where_two_materials_meet_in_the_fill_the_step_stays(step: float, kept: bool) -> None:
    """Two pixels side by side copied from unrelated places: where the fill steps steeply
    between them (a mug's red bricks beside a pale cloth), the step is kept, so neither
    colour runs into the other; a gentle step (two sources' shading a few levels apart)
    is taken away. Copied from either side, a steep step was lost, and the demo's cloth
    beside its mug glowed orange (93 warm pixels on the cloth in the box closest round the
    smear; none since, test below)."""
    img = np.full((20, 40, 3), 200.0, np.float32)
    img[:, :20] -= step  # the fill: one material left, another right
    hole = np.zeros((20, 40), bool)
    hole[4:16, 4:36] = True
    ys = np.full((20, 40), -1, np.int32)
    xs = np.full((20, 40), -1, np.int32)
    yy, xx = np.nonzero(np.ones((20, 40), bool))
    ys[yy, xx], xs[yy, xx] = yy, np.where(xx < 20, 2, 37)  # each half from a flat place
    gx, gy = source_gradients(img, hole, ys, xs)
    assert (gx[10, 19] != 0).all() == kept
    out = from_gradients(img, hole, gx, gy)
    left, right = out[10, 5:19].mean(), out[10, 21:35].mean()
    assert (abs(right - left - step) < 1) == kept


def test_the_demo_cloth_beside_its_mug_does_not_glow() -> None:
    """The demo's smear over its mug and gingham, boxed close round the smear: no pixel of
    the cloth in the box (of the case without the smear) is filled warm. The bricks' own
    gradients, copied up to the cloth, carried their red into it (93 such pixels)."""
    edited, truth = smear_and_truth()
    x0, y0, x1, y1 = SMEAR_BOXES["close round the smear"]
    h, w = truth.shape[:2]
    order = RepairOrder(box=normalize((x0, y0, x1, y1), w, h), op="remove", instruction="")
    out = run_repair(edited, order, PatchMatchEngine()).image[y0:y1, x0:x1].astype(int)
    cloth = truth[y0:y1, x0:x1].astype(int)
    on_cloth = cloth[..., 2] - cloth[..., 0] > -10  # blue or white, not the red mug
    warm = out[..., 0] - out[..., 2] > 40
    assert np.count_nonzero(on_cloth & warm) < 10
