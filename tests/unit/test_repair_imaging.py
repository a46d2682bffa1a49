"""The repair pipeline on arrays: geometry, mask, blend, paste, engines offline."""

from __future__ import annotations

import numpy as np
import pytest
from factories import rgb_array
from hypothesis import given, settings
from hypothesis import strategies as st

from sabre_desk.engines.base import EngineReply, EngineRequest
from sabre_desk.engines.opencv import FsrEngine, TeleaEngine
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, plan_repair, run_repair
from sabre_desk.engines.registry import ENGINES
from sabre_desk.ground.errors import EngineUnavailableError, RepairError
from sabre_desk.imaging.blend import BlendParams, OpenSides, blend, hard_paste_mask, soft_mask
from sabre_desk.imaging.patch import PixelRect, as_rgb8, box_to_pixels


class SolidEngine:
    """A stand-in engine that answers with one colour, at a size of its own choosing."""

    name = "solid"
    ops = frozenset({"remove", "swap", "clean", "restore"})

    def __init__(
        self, color: tuple[int, int, int] = (0, 200, 0), size: tuple[int, int] | None = None
    ):
        self.color, self.size = color, size

    def unavailable_reason(self) -> str | None:
        return None

    def repair(self, request: EngineRequest) -> EngineReply:
        h, w = self.size or request.patch.shape[:2]
        return EngineReply(np.full((h, w, 3), self.color, np.uint8))


boxes = st.tuples(
    st.floats(0, 0.98), st.floats(0, 0.98), st.floats(0.001, 1), st.floats(0.001, 1)
).map(lambda t: (t[0], t[1], min(1.0, t[0] + t[2]), min(1.0, t[1] + t[3])))


@settings(max_examples=40, deadline=None)
@given(box=boxes, w=st.integers(7, 301), h=st.integers(7, 301))
def test_pixels_outside_the_patch_are_bit_identical(box: tuple, w: int, h: int) -> None:
    image = rgb_array(w, h, seed=w * h)
    outcome = run_repair(image, RepairOrder(box, "remove", "x"), SolidEngine(size=(37, 53)))
    r = outcome.plan.rect
    outside = np.ones((h, w), bool)
    outside[r.slices] = False
    assert np.array_equal(outcome.image[outside], image[outside])
    assert outcome.image.shape == image.shape and outcome.image.dtype == np.uint8


@pytest.mark.parametrize(
    ("box", "size"),
    [
        ((0.4, 0.4, 0.6, 0.6), (200, 160)),  # interior
        ((0.0, 0.0, 0.2, 0.3), (201, 157)),  # touching the top-left corner, odd sizes
        ((0.5, 0.5, 0.505, 0.506), (400, 300)),  # a one-pixel box
        ((0.8, 0.2, 1.0, 0.4), (333, 111)),  # touching the right edge
    ],
)
def test_mask_is_one_at_the_box_centre_and_zero_on_interior_patch_borders(
    box: tuple,
    size: tuple[int, int],
) -> None:
    w, h = size
    plan = plan_repair(w, h, box)
    r, b = plan.rect, plan.box
    mask = soft_mask((r.height, r.width), b, plan.grow_px, plan.feather_px, plan.open_sides)
    assert mask[(b.y0 + b.y1 - 1) // 2, (b.x0 + b.x1 - 1) // 2] == pytest.approx(1.0)
    assert mask.min() >= 0.0 and mask.max() <= 1.0
    sides = plan.open_sides
    if not sides.top:
        assert np.all(mask[0, :] == 0)
    if not sides.bottom:
        assert np.all(mask[-1, :] == 0)
    if not sides.left:
        assert np.all(mask[:, 0] == 0)
    if not sides.right:
        assert np.all(mask[:, -1] == 0)


def test_a_box_at_the_image_edge_is_repaired_up_to_the_edge() -> None:
    image = rgb_array(120, 80)
    outcome = run_repair(
        image, RepairOrder((0.0, 0.0, 0.25, 0.25), "remove", "x"), SolidEngine((0, 255, 0))
    )
    assert tuple(outcome.image[0, 0]) == (0, 255, 0)


def test_the_soft_blend_falls_off_smoothly() -> None:
    mask = soft_mask((100, 100), PixelRect(40, 40, 60, 60), 2, 12, OpenSides())
    row = mask[50, :]
    assert np.all(np.diff(row[:50]) >= -1e-6)  # rises monotonically towards the box
    assert 0.2 < row[32] < 0.9  # a real transition, not a step


def test_blend_is_exact_where_the_mask_is_zero_or_one() -> None:
    a, b = rgb_array(30, 20, 1), rgb_array(30, 20, 2)
    mask = np.zeros((20, 30), np.float32)
    mask[5:10, 5:10] = 1.0
    out = blend(a, b, mask)
    assert np.array_equal(out[mask == 0], a[mask == 0])
    assert np.array_equal(out[mask == 1], b[mask == 1])


def test_a_reply_of_another_size_is_fitted_and_said_so() -> None:
    outcome = run_repair(
        rgb_array(300, 200),
        RepairOrder((0.4, 0.4, 0.6, 0.6), "remove", "x"),
        SolidEngine(size=(64, 128)),
    )
    assert outcome.reply.shape[:2] == (outcome.plan.rect.height, outcome.plan.rect.width)
    assert any("fitted" in n for n in outcome.notes)


def test_a_reply_that_kept_the_red_marker_is_flagged() -> None:
    class Copier(SolidEngine):
        def repair(self, request: EngineRequest) -> EngineReply:
            return EngineReply(request.marked.copy())

    outcome = run_repair(
        rgb_array(300, 200), RepairOrder((0.4, 0.4, 0.6, 0.6), "remove", "x"), Copier()
    )
    assert any("red marker" in w for w in outcome.warnings)


def test_an_empty_reply_is_an_error() -> None:
    with pytest.raises(RepairError, match="empty"):
        run_repair(
            rgb_array(50, 50),
            RepairOrder((0.4, 0.4, 0.6, 0.6), "remove", "x"),
            SolidEngine(size=(0, 0)),
        )


@pytest.mark.parametrize("engine", ["opencv-fsr", "opencv-telea", "opencv-ns"])
def test_opencv_removes_an_object_from_a_flat_background(engine: str) -> None:
    image = np.full((120, 160, 3), 180, np.uint8)
    image[50:70, 70:90] = (20, 20, 200)  # a blue square to remove
    outcome = run_repair(
        image,
        RepairOrder((70 / 160, 50 / 120, 90 / 160, 70 / 120), "remove", "remove the square"),
        ENGINES[engine](),
    )
    patch = outcome.image[50:70, 70:90].astype(int)
    assert np.abs(patch - 180).max() < 12


def test_the_offline_default_restores_texture_where_telea_smears() -> None:
    """An object on a patterned surface, removed: the default (patch-based completion), and
    FSR, the quick preview shown before it, rebuild the pattern under it far closer to the
    truth than Telea's smooth fill does."""
    import cv2

    from sabre_desk.engines.registry import default_engine

    y, x = np.mgrid[0:240, 0:320]
    weave = (127 + 100 * np.sin(x / 3.0) * np.cos(y / 5.0)).astype(np.uint8)
    truth = np.dstack([weave, 255 - weave, weave // 2]).copy()
    pasted = truth.copy()
    cv2.circle(pasted, (160, 120), 22, (250, 30, 30), -1)
    order = RepairOrder((0.4, 0.37, 0.6, 0.63), "remove", "remove the red disc")

    def error(engine: str) -> float:
        repaired = run_repair(pasted, order, ENGINES[engine]()).image
        return float(np.abs(repaired.astype(int) - truth.astype(int))[89:151, 128:192].mean())

    assert default_engine() == PatchMatchEngine.name
    for engine in (PatchMatchEngine.name, FsrEngine.name):
        assert error(engine) < 0.8 * error(TeleaEngine.name), engine


def test_a_large_box_is_filled_at_a_lower_resolution_and_only_inside_the_box() -> None:
    """FSR's cost grows with the pixels to fill: a big box is filled small and scaled up,
    and nothing outside the box changes."""
    from sabre_desk.engines.opencv import FSR_MAX_FILL

    rng = np.random.default_rng(3)
    patch = rng.integers(0, 255, (700, 700, 3), dtype=np.uint8)
    mask = np.zeros((700, 700), np.uint8)
    mask[100:600, 100:600] = 255
    assert int(np.count_nonzero(mask)) > FSR_MAX_FILL
    filled = FsrEngine.fill(patch, mask, 12)
    assert filled.shape == patch.shape
    assert np.array_equal(filled[mask == 0], patch[mask == 0])
    assert not np.array_equal(filled[mask > 0], patch[mask > 0])


def test_opencv_refuses_swap_with_a_clear_reason() -> None:
    with pytest.raises(EngineUnavailableError, match="generative engine"):
        run_repair(rgb_array(100, 100), RepairOrder((0.4, 0.4, 0.6, 0.6), "swap", "x"), FsrEngine())


@pytest.mark.parametrize(
    ("array", "shape"),
    [
        (np.zeros((10, 12), np.uint8), (10, 12, 3)),
        (np.zeros((10, 12, 4), np.uint8), (10, 12, 3)),
        (np.full((10, 12, 3), 65535, np.uint16), (10, 12, 3)),
    ],
)
def test_gray_rgba_and_16_bit_inputs_are_converted(array: np.ndarray, shape: tuple) -> None:
    out = as_rgb8(array)
    assert out.shape == shape and out.dtype == np.uint8


@pytest.mark.parametrize("array", [np.zeros((4, 4, 3), np.float64), np.zeros((4, 4, 2), np.uint8)])
def test_unsupported_inputs_are_refused_clearly(array: np.ndarray) -> None:
    with pytest.raises(RepairError, match="unsupported"):
        as_rgb8(array)


def test_hard_paste_shows_a_seam_soft_blend_does_not() -> None:
    from sabre_desk.imaging.blend import seam_score

    yy, xx = np.mgrid[0:200, 0:200]
    image = np.dstack([100 + xx // 4, 90 + yy // 4, 120 + (xx + yy) // 8]).astype(np.uint8)
    reply = np.clip(image.astype(int) + 25, 0, 255).astype(np.uint8)  # a slightly brighter fill
    box = box_to_pixels((0.4, 0.4, 0.6, 0.6), 200, 200)
    soft = soft_mask((200, 200), box, 2, 16, OpenSides())
    hard = hard_paste_mask((200, 200), box)
    soft_score = seam_score(image, blend(image, reply, soft), soft)
    hard_score = seam_score(image, blend(image, reply, hard), hard)
    assert soft_score < hard_score / 2


def test_default_parameters_scale_with_the_box() -> None:
    small = BlendParams().resolved(PixelRect(0, 0, 20, 20))
    large = BlendParams().resolved(PixelRect(0, 0, 400, 400))
    assert large[1] > small[1] and large[0] >= small[0]
