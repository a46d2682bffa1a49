"""What stands out in a box: a stroke boxed with a margin on a real photo is found whole and
filled, the photo's own pixels in the margin stay as they were; where nothing stands out,
or the defect is most of the box, the whole box is filled."""

from __future__ import annotations

import threading
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from sabre_desk.demo.writer import SMEAR_BOXES, smear_and_truth
from sabre_desk.engines.base import EngineRequest, RepairOp
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import make_engine
from sabre_desk.imaging.geometry import normalize
from sabre_desk.imaging.patch import PixelRect
from sabre_desk.imaging.standout import StandoutParams, _colour_gaps, standout_mask

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"


def brick() -> np.ndarray:
    gray = np.asarray(Image.open(PHOTOS / "brick.png").convert("L"))
    return np.ascontiguousarray(np.dstack([gray] * 3))


def with_stroke(truth: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A green stroke drawn across the photo, its pixels, and a box round it (3 px margin)."""
    stroke = np.zeros(truth.shape[:2], np.uint8)
    cv2.line(stroke, (60, 70), (104, 92), 255, 4, cv2.LINE_AA)
    pasted = truth.copy()
    pasted[stroke > 0] = (40, 190, 60)
    box = np.zeros(truth.shape[:2], bool)
    ys, xs = np.nonzero(stroke)
    box[ys.min() - 3 : ys.max() + 4, xs.min() - 3 : xs.max() + 4] = True
    return pasted, stroke > 0, box


def test_a_stroke_boxed_on_a_real_photo_is_found_whole_and_the_margin_kept() -> None:
    pasted, stroke, box = with_stroke(brick())
    mask = standout_mask(pasted, box)
    assert mask is not None
    assert not (mask & ~box).any()  # never outside the box
    assert mask[stroke].all()  # every pixel of the stroke is to be filled
    # the box's corners, well away from the stroke, are the photo's: kept
    far = box & (cv2.distanceTransform((~stroke).astype(np.uint8), cv2.DIST_L2, 3) > 12)
    assert far.sum() > 0.2 * box.sum() and not mask[far].any()


def test_nothing_standing_out_or_most_of_the_box_standing_out_fills_the_whole_box() -> None:
    truth = brick()
    box = np.zeros(truth.shape[:2], bool)
    box[60:96, 56:104] = True
    assert standout_mask(truth, box) is None  # a box on the plain wall
    covered = truth.copy()
    covered[58:98, 54:106] = (40, 190, 60)  # the whole box is the defect
    assert standout_mask(covered, box) is None


def test_the_patch_engine_keeps_the_photo_in_the_margin_and_removes_the_stroke() -> None:
    truth = brick()
    pasted, stroke, box = with_stroke(truth)
    ys, xs = np.nonzero(box)
    rect = PixelRect(int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
    h, w = pasted.shape[:2]
    request = EngineRequest(
        RepairOp.REMOVE, "", pasted, pasted, rect, PixelRect(0, 0, w, h), (w, h), threading.Event()
    )
    kept = make_engine("patchmatch").repair(request).patch
    whole = make_engine("opencv-telea").repair(request).patch
    # the box's corners, far from the stroke, are the photo's own pixels, bit for bit
    far = box & (cv2.distanceTransform((~stroke).astype(np.uint8), cv2.DIST_L2, 3) > 12)
    assert far.any() and np.array_equal(kept[far], truth[far])
    # no green left where the stroke was
    green = (kept[..., 1].astype(int) - kept[..., 0]) > 60
    assert not green[stroke].any()
    error = np.abs(kept.astype(int) - truth.astype(int))[box].mean()
    assert error < 0.5 * np.abs(whole.astype(int) - truth.astype(int))[box].mean()


def test_a_large_box_is_looked_at_scaled_down_and_the_stroke_still_found_whole() -> None:
    """Past ``max_pixels`` the search runs on the image scaled down (its time bounded): the
    stroke is still covered whole at full size, the far corners still kept."""
    pasted, stroke, box = with_stroke(brick())
    params = StandoutParams(max_pixels=int(box.sum()) // 3)
    mask = standout_mask(pasted, box, params)
    assert mask is not None
    assert not (mask & ~box).any() and mask[stroke].all()
    far = box & (cv2.distanceTransform((~stroke).astype(np.uint8), cv2.DIST_L2, 3) > 14)
    assert far.any() and not mask[far].any()


def test_colour_gaps_are_the_distance_to_the_nearest_binned_colour_of_the_palette() -> None:
    """Each pixel's gap is the distance, in levels, from its colour taken to steps of 8 to
    the nearest palette colour taken the same way (the full range, 0 and 255 included)."""
    rng = np.random.default_rng(5)
    pixels = rng.uniform(0, 255, (500, 3)).astype(np.float32)
    pixels[:3] = [[0, 0, 0], [255, 255, 255], [255, 0, 7.99]]
    palette = rng.uniform(0, 255, (300, 3)).astype(np.float32)
    binned_p, binned_q = np.floor(pixels / 8), np.floor(palette / 8)
    brute = np.sqrt(((binned_p[:, None, :] - binned_q[None, :, :]) ** 2).sum(-1)).min(1) * 8
    assert np.allclose(_colour_gaps(pixels, palette), brute)
    assert _colour_gaps(palette[:50], palette).max() == 0.0  # its own colours: no gap


@pytest.mark.parametrize(
    "box", [SMEAR_BOXES["close round the smear"], SMEAR_BOXES["a few pixels wider"]]
)
def test_the_demo_smear_boxed_closely_is_removed_whole(box: tuple[int, int, int, int]) -> None:
    """The demo's smear over the brick mug and the gingham, boxed with a few pixels round
    it, repaired by the default engine. Its half over the cloth is a few dozen levels off
    the cloth, and was held to the threshold the mug's and the plate's edges set for the
    whole ring: it passed as the cloth's own and was left as it was (a quarter to a third
    of the smear's pixels unchanged). Each patch is now held to the ring's patches of its
    own contrast."""
    edited, clean = smear_and_truth()
    smear = np.abs(edited.astype(int) - clean).mean(axis=2) > 20
    h, w = edited.shape[:2]
    order = RepairOrder(normalize(box, w, h), RepairOp.REMOVE, "remove the smear")
    repaired = run_repair(edited, order, make_engine("patchmatch")).image
    unchanged = (np.abs(repaired.astype(int) - edited).max(axis=2) <= 2) & smear
    assert smear.sum() > 3000  # the smear is there to be removed
    assert unchanged.sum() < 0.02 * smear.sum()


def test_a_ring_too_thin_to_match_itself_fills_the_whole_box() -> None:
    """A box at the end of a strip nine pixels wide: some of the ring's patches have no
    partner five pixels away, and their distance is infinite. The whole ring's figure was
    then not a number (numpy warned, and every comparison with it was false): nothing was
    learnt from the ring, and the box is filled whole."""
    image = np.random.default_rng(7).integers(0, 256, (32, 9, 3), dtype=np.uint8)
    box = np.zeros((32, 9), bool)
    box[23:32, 4:7] = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert standout_mask(image, box) is None


def test_a_piece_of_the_object_the_ring_elsewhere_has_the_colour_of_is_not_left() -> None:
    """A grey horse cut from gravel, pasted on a cat's fur by its eye: the tip of a hoof at
    the box's edge stood out by neither test (the eye's grey rim, across the box, has its
    grey; the box's patches over it were mostly fur), fell just outside the hull of the
    rest, and the fill left it as a grey speck. The fur round the hoof has no grey: the
    pixels beside the defect are held to the photo's colours near them."""
    pasted = np.asarray(Image.open(PHOTOS / "chelsea_horse.png").convert("RGB"))
    horse = np.asarray(Image.open(PHOTOS / "chelsea_horse_object.png")) > 0
    box = np.zeros(horse.shape, bool)
    box[24:64, 24:72] = True
    mask = standout_mask(pasted, box)
    assert mask is not None
    assert mask[horse & box].all()
    assert mask.sum() < 0.8 * box.sum()  # and the fur round the horse is still kept
