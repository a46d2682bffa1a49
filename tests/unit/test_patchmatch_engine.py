"""The patch-based offline engine: registered like every other, carries a real texture into
the box better than Telea, stops when cancelled, and runs from the command line."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from sabre_desk.cli import main
from sabre_desk.engines.base import EngineRequest, RepairCancelledError, RepairOp
from sabre_desk.engines.registry import (
    ENGINES,
    STAND_IN_RADIUS,
    make_engine,
    make_stand_in,
    preview_chain,
)
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging import completion
from sabre_desk.imaging.patch import PixelRect

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"
CASE = "ctx03_wrench_banana"
BOX = "0.345,0.595,0.41,0.69"


def brick() -> np.ndarray:
    gray = np.asarray(Image.open(PHOTOS / "brick.png").convert("L"))
    return np.ascontiguousarray(np.dstack([gray] * 3))


def request(patch: np.ndarray, box: PixelRect, cancel: threading.Event) -> EngineRequest:
    h, w = patch.shape[:2]
    return EngineRequest(
        RepairOp.REMOVE, "", patch, patch, box, PixelRect(0, 0, w, h), (w, h), cancel
    )


class CountingCancel(threading.Event):
    """A cancel button pressed once the engine has looked at it ``after`` times."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after, self.looks = after, 0

    def is_set(self) -> bool:
        self.looks += 1
        if self.looks > self.after:
            self.set()
        return super().is_set()


def test_the_patch_engine_is_registered_with_the_quick_engine_before_it() -> None:
    cls = ENGINES["patchmatch"]
    assert cls.unavailable_reason() is None and not cls.uses_network and cls.cpu_bound
    assert preview_chain("patchmatch") == (cls.quick_preview, "patchmatch")
    assert preview_chain("opencv-telea") == ("opencv-telea",)


def test_the_stand_in_is_a_quick_fill_and_telea_asked_for_keeps_its_own_radius() -> None:
    """The stand-in's smooth fill uses a small radius (it is replaced a second later; a
    larger one took a core from the better result for four times as long); Telea chosen by
    the reviewer keeps the radius it picks for the box."""
    patch = brick()[:240, :240].copy()
    box = PixelRect(60, 60, 180, 180)
    stand_in = make_stand_in(ENGINES["patchmatch"].quick_preview or "")
    asked = make_engine("opencv-telea")
    quick = stand_in.repair(request(patch, box, threading.Event()))
    own = asked.repair(request(patch, box, threading.Event()))
    assert quick.notes == [f"opencv-telea, radius {STAND_IN_RADIUS}px"]
    assert own.notes == ["opencv-telea, radius 12px"]
    assert not np.array_equal(quick.patch, own.patch)


def test_repair_help_lists_the_patch_engine(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["repair", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"patchmatch: {ENGINES['patchmatch'].label}" in text


def test_on_a_real_brick_wall_it_leaves_less_error_than_telea() -> None:
    truth = brick()
    pasted = truth.copy()
    cv2.ellipse(pasted, (80, 78), (20, 14), 30, 0, 360, (200, 40, 40), -1)
    box = PixelRect(56, 60, 104, 96)
    errors = {}
    for name in ("patchmatch", "opencv-telea"):
        reply = make_engine(name).repair(request(pasted, box, threading.Event()))
        inside = np.abs(reply.patch.astype(int) - truth.astype(int))[60:96, 56:104]
        errors[name] = float(inside.mean())
        # nothing outside the box (and its 2-pixel pad) is touched
        outside = np.ones(truth.shape[:2], bool)
        outside[58:98, 54:106] = False
        assert np.array_equal(reply.patch[outside], pasted[outside])
    assert errors["patchmatch"] < 0.9 * errors["opencv-telea"], errors


def test_a_cancel_stops_it_between_iterations_before_it_completes() -> None:
    truth = brick()
    box = PixelRect(40, 40, 120, 120)
    finished = CountingCancel(after=10**9)
    make_engine("patchmatch").repair(request(truth, box, finished))
    # a whole run looks at the button at every level and iteration of its completion
    assert finished.looks > 12

    pressed = CountingCancel(after=2)
    with pytest.raises(RepairCancelledError):
        make_engine("patchmatch").repair(request(truth, box, pressed))
    # pressed at the third look, it stopped at the next look
    assert pressed.looks <= pressed.after + 1 < finished.looks


def test_repair_with_the_patch_engine_on_the_demo(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = demo_project / "cases" / CASE
    before = np.asarray(Image.open(folder / "edited.png").convert("RGB"))
    code = main(
        [
            "repair",
            str(demo_project),
            CASE,
            "--reviewer",
            "alice",
            "--box",
            BOX,
            "--engine",
            "patchmatch",
        ]
    )
    assert code == 0, capsys.readouterr().err
    (record,) = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    assert record["engine"] == "patchmatch" and record["status"] == "preview"
    after = np.asarray(Image.open(folder / record["preview"]).convert("RGB"))
    h, w = before.shape[:2]
    box = (slice(int(0.595 * h), int(0.69 * h)), slice(int(0.345 * w), int(0.41 * w)))
    assert np.abs(after[box].astype(int) - before[box].astype(int)).mean() > 5  # filled
    assert np.array_equal(after[: h // 3], before[: h // 3])  # far from the box: untouched


def test_a_sliver_on_the_image_s_edge_gets_a_fill() -> None:
    """A box of 4×3 pixels on the image's left edge: a result of the patch's size, the box
    no longer the pasted colour."""
    box = PixelRect(0, 70, 4, 73)
    pasted = brick()
    pasted[box.y0 : box.y1, box.x0 : box.x1] = (0, 255, 0)
    reply = make_engine("patchmatch").repair(request(pasted, box, threading.Event()))
    assert reply.patch.shape == pasted.shape
    inside = reply.patch[box.y0 : box.y1, box.x0 : box.x1].reshape(-1, 3)
    assert not (inside == (0, 255, 0)).all(axis=1).any()


@pytest.mark.parametrize("name", ["patchmatch", "opencv-telea", "opencv-fsr"])
def test_a_box_over_the_whole_image_is_refused_with_its_reason(name: str) -> None:
    """Nothing is left round the box to fill it from: FSR made up a magenta box (after
    minutes on a photo of 768×512), Telea left the box as it was. The reviewer is told why."""
    pasted = brick()
    h, w = pasted.shape[:2]
    with pytest.raises(RepairError, match="the box covers the whole image"):
        make_engine(name).repair(request(pasted, PixelRect(0, 0, w, h), threading.Event()))


def test_a_box_over_nearly_all_of_the_image_asks_no_slow_smooth_fill(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A box leaving 3 pixels of photo round it: too thin a ring for the pyramid to go down,
    so the coarsest level's hole is large. Its smooth start was FSR's, whose time grows with
    the hole and which cannot be cancelled (half a minute for a box of 0.96 of a 768×512
    image, where an ordinary box takes a second); past the limit it is Telea's, as the edge's
    smooth fill is. Every hole FSR is asked to fill is counted."""
    asked: list[int] = []
    real = completion.fsr_inpaint

    def counted(image: np.ndarray, hole: np.ndarray) -> np.ndarray:
        asked.append(int(np.count_nonzero(hole)))
        return real(image, hole)

    monkeypatch.setattr(completion, "fsr_inpaint", counted)
    pasted = brick()
    h, w = pasted.shape[:2]
    box = PixelRect(3, 3, w - 3, h - 3)
    pasted[box.y0 : box.y1, box.x0 : box.x1] = (0, 255, 0)
    reply = make_engine("patchmatch").repair(request(pasted, box, threading.Event()))
    inside = reply.patch[box.y0 : box.y1, box.x0 : box.x1].reshape(-1, 3)
    assert not (inside == (0, 255, 0)).all(axis=1).any()
    assert max(asked, default=0) <= completion.CompletionParams().edge_fill_pixels


def test_a_box_on_smooth_shading_is_filled_along_it_with_no_step_at_its_edge() -> None:
    """A sky-like ramp (brighter to the right and down, a little grain): the fill carries
    the ramp through the box, and the box's edge shows no step against the photo."""
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:160, 0:160].astype(np.float32)
    ramp = 60 + 0.5 * xx + 0.3 * yy
    truth = np.clip(
        np.dstack([ramp, ramp + 20, ramp + 40]) + rng.normal(0, 1.5, (160, 160, 3)), 0, 255
    )
    truth = truth.astype(np.uint8)
    box = PixelRect(50, 40, 110, 120)
    pasted = truth.copy()
    pasted[box.y0 : box.y1, box.x0 : box.x1] = (200, 30, 160)
    reply = make_engine("patchmatch").repair(request(pasted, box, threading.Event()))
    error = np.abs(reply.patch.astype(int) - truth.astype(int))
    assert error[box.y0 : box.y1, box.x0 : box.x1].mean() < 4
    # the box's outermost rows and columns of pixels, where a step would show
    edge = np.ones((box.y1 - box.y0, box.x1 - box.x0), bool)
    edge[2:-2, 2:-2] = False
    assert error[box.y0 : box.y1, box.x0 : box.x1][edge].mean() < 3
