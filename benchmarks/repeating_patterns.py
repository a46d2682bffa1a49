"""A pattern that repeats round the box: the demo's gingham, with its brick mug and plain.

The patch-based engine continues such a pattern from its own copies (``imaging/repeats.py``)
where the completion alone lays pieces of it offset against one another. Here each scene is
repaired in this process through the engine's own path (``run_repair``, as the window and
``sabre-desk repair`` do) by the default engine, by the same engine with the copies off
(``PatchMatchEngine(follow_repeats=False)``) and by Telea's fill, and scored against the
picture without the mug (or, on the plain cloth, the cloth itself): the error in the box.

- mug: the demo's repair case (``tex_mug_brick``) in three scenes, each boxed two ways
  round the whole mug, the default engine filling what stands out;
- cloth: boxes drawn on the plain cloth of the same table (``kitchen_table``), filled whole,
  one of them under the plate (too little check round it to follow) and one against the
  tiled wall.

Then, with scikit-image installed, how often something is taken for a repeat where nothing
repeats: 240 boxes (a tenth to three tenths of the picture's side, drawn at random with half
their size round them, as the repair's patch has) on twenty of its pictures (photographs,
and a drawn checkerboard, logo, colour wheel and page of text).

Usage: python benchmarks/repeating_patterns.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from sabre_desk.demo.cases import tex_mug_brick
from sabre_desk.demo.scenes import kitchen_table
from sabre_desk.engines.base import RepairEngine, RepairOp
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import SURROUND_SHARE, RepairOrder, run_repair, surround_rect
from sabre_desk.engines.registry import make_engine
from sabre_desk.imaging.geometry import normalize
from sabre_desk.imaging.patch import PixelRect
from sabre_desk.imaging.repeats import repeat_offsets, repeat_search

MUG_BOXES = ((0.121816, 0.581395, 0.3433, 0.880399), (0.125, 0.59, 0.34, 0.87))
CLOTH_BOXES = (
    (520, 420, 581, 481),
    (620, 380, 700, 470),
    (40, 210, 100, 300),
    (300, 440, 400, 500),
)


def _scenes() -> list[tuple[str, np.ndarray, np.ndarray, tuple[float, float, float, float], bool]]:
    """(name, picture to repair, truth, box, fill the whole box)."""
    made = []
    for seed in (3, 4, 5):
        edited = tex_mug_brick(np.random.default_rng(seed)).images["edited"][:, :, :3]
        cloth = kitchen_table(np.random.default_rng(seed))
        for i, box in enumerate(MUG_BOXES):
            made.append((f"mug {seed}.{i}", np.ascontiguousarray(edited), cloth, box, False))
    for seed in (3, 5):
        cloth = kitchen_table(np.random.default_rng(seed))
        h, w = cloth.shape[:2]
        for i, px in enumerate(CLOTH_BOXES):
            made.append((f"cloth {seed}.{i}", cloth, cloth, normalize(px, w, h), True))
    return made


ENGINES: dict[str, Callable[[bool], RepairEngine]] = {
    "patch-based (default)": lambda whole: PatchMatchEngine(whole_box=whole),
    "copies off": lambda whole: PatchMatchEngine(whole_box=whole, follow_repeats=False),
    "Telea": lambda whole: make_engine("opencv-telea"),
}


def compare() -> None:
    scenes = _scenes()
    errors: dict[str, list[float]] = {name: [] for name in ENGINES}
    seconds: dict[str, list[float]] = {name: [] for name in ENGINES}
    warm = scenes[0]
    run_repair(warm[1], RepairOrder(warm[3], RepairOp.REMOVE, ""), PatchMatchEngine())
    for _, picture, truth, box, whole in scenes:
        h, w = truth.shape[:2]
        x0, y0, x1, y1 = int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)
        order = RepairOrder(box, RepairOp.REMOVE, "remove it")
        for name, make in ENGINES.items():
            engine = make(whole)
            started = time.perf_counter()
            repaired = run_repair(picture, order, engine).image
            seconds[name].append(time.perf_counter() - started)
            engine.close()
            diff = repaired[y0:y1, x0:x1].astype(float) - truth[y0:y1, x0:x1]
            errors[name].append(float(np.abs(diff).mean()))
    names = list(ENGINES)
    print("error in the box (levels), against the picture without the mug / the cloth")
    print(f"{'scene':12} " + " ".join(f"{n:>22}" for n in names))
    for i, (scene, *_) in enumerate(scenes):
        print(f"{scene:12} " + " ".join(f"{errors[n][i]:22.1f}" for n in names))
    for group in ("mug", "cloth"):
        rows = [i for i, s in enumerate(scenes) if s[0].startswith(group)]
        cells = []
        for n in names:
            mean = statistics.mean(errors[n][i] for i in rows)
            ratio = statistics.mean(errors[n][i] / errors["Telea"][i] for i in rows)
            cells.append(f"{mean:6.1f} ({ratio:4.2f}× Telea)")
        print(f"{group + ' mean':12} " + " ".join(f"{c:>22}" for c in cells))
    print(
        "median seconds a repair: "
        + ", ".join(f"{n} {statistics.median(seconds[n]):.2f}" for n in names)
    )


def taken_for_a_repeat() -> None:
    try:
        import skimage.data
    except ImportError:
        print("(scikit-image is not installed: the count on real photographs is skipped)")
        return
    names = (
        "astronaut", "brick", "camera", "cat", "checkerboard", "chelsea", "coffee", "coins",
        "colorwheel", "grass", "gravel", "horse", "hubble_deep_field", "immunohistochemistry",
        "logo", "moon", "page", "retina", "rocket", "text",
    )  # fmt: skip
    rng = np.random.default_rng(1)
    followed: list[str] = []
    around_only: list[str] = []
    boxes = 0
    for name in names:
        picture = np.asarray(getattr(skimage.data, name)())
        if picture.ndim == 2:
            picture = np.dstack([picture] * 3)
        picture = picture[..., :3]
        if picture.dtype != np.uint8:
            picture = (255 * picture.astype(float) / max(1, picture.max())).astype(np.uint8)
        h, w = picture.shape[:2]
        for _ in range(12):
            side = int(rng.uniform(0.1, 0.3) * min(h, w))
            x, y = int(rng.uniform(0, w - side)), int(rng.uniform(0, h - side))
            margin = max(16, side // 2)
            x0, y0 = max(0, x - margin), max(0, y - margin)
            patch = np.ascontiguousarray(picture[y0 : y + side + margin, x0 : x + side + margin])
            hole = np.zeros(patch.shape[:2], bool)
            hole[y - y0 : y - y0 + side, x - x0 : x - x0 + side] = True
            boxes += 1
            search = repeat_search(patch, hole)
            if search.offsets is not None:
                followed.append(name)
                continue
            if not search.seen:
                continue
            # where the patch shows a repeat it cannot follow, the engine looks wider
            patch_rect = PixelRect(x0, y0, min(w, x + side + margin), min(h, y + side + margin))
            wide = surround_rect(PixelRect(x, y, x + side, y + side), patch_rect, w, h)
            around = np.ascontiguousarray(picture[wide.slices])
            wide_hole = np.zeros(around.shape[:2], bool)
            wide_hole[y - wide.y0 : y - wide.y0 + side, x - wide.x0 : x - wide.x0 + side] = True
            if repeat_offsets(around, wide_hole) is not None:
                around_only.append(name)
    print(
        f"taken for a repeat: {len(followed)} of {boxes} boxes on {len(names)} of "
        f"scikit-image's pictures ({', '.join(followed) or 'none'}); where the patch shows "
        f"a repeat it cannot follow, in the surroundings the engine looks at then (the box "
        f"grown by {SURROUND_SHARE:g}× its size): {len(around_only)} more "
        f"({', '.join(around_only) or 'none'})"
    )


if __name__ == "__main__":
    compare()
    taken_for_a_repeat()
