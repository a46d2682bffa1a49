"""Edges carried across boxes on real photographs, where nothing is pasted: what would be drawn.

The patch-based engine draws the edges that cross a hole before it fills it
(``imaging/carried_edges.py``). An edge drawn where the photo has none is a block of foreign
structure: an arc across gravel, an elbow between two joints of mortar. Here boxes of 80 to
500 pixels are laid on seven of scikit-image's photographs (gravel, grass, a cat, a cup of
coffee, a launch pad, a brick wall, an astronaut), at their own size and twice it, three
places each, the patch round each box as the repair pipeline cuts it (``plan_repair``: the
box grown by half its size), and the edges the engine would carry through the box are drawn
(``completion.edges_carried``: followed on into the surroundings the pipeline hands the
engine where the patch gives none).
Nothing covers the photo, so the photo is the truth: for each box that gets an edge, the
share of the drawn pixels more than 40 levels off the photo's (a few pixels' shift of a
sharp edge counts too, so a right edge is rarely 0).

With ``--other CHECKOUT`` the same boxes are drawn by another version too, and the boxes
where the two differ are listed.

Usage (needs scikit-image): python benchmarks/carried_edges.py [--other CHECKOUT]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parents[1]
PHOTOS = ("gravel", "grass", "chelsea", "coffee", "rocket", "brick", "astronaut")
SCALES = (1, 2)
HALF_SIDES = (40, 80, 150, 250)
PLACES = ((0.5, 0.5), (0.33, 0.6), (0.66, 0.4))
#: a drawn pixel this far off the photo's (largest difference over RGB) is off
OFF_LEVELS = 40


#: a box's name, the image it lies on (RGB), and the box (x0, y0, x1, y1 in pixels)
Box = tuple[str, np.ndarray, tuple[int, int, int, int]]
#: the patch the repair pipeline cuts round a box, the box in it (the hole), and the
#: surroundings it hands the engine (their pixels, and where the patch lies in them)
Cut = tuple[np.ndarray, np.ndarray, tuple[np.ndarray, tuple[int, int]]]


def photo_boxes() -> Iterator[Box]:
    """Every box: on each photograph at each scale, each size at each place it fits."""
    import cv2
    import skimage.data

    for name in PHOTOS:
        photo = getattr(skimage.data, name)()
        if photo.ndim == 2:
            photo = np.dstack([photo] * 3)
        photo = np.ascontiguousarray(photo[..., :3])
        for scale in SCALES:
            img = photo if scale == 1 else cv2.resize(
                photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC
            )  # fmt: skip
            h, w = img.shape[:2]
            for half in HALF_SIDES:
                for fx, fy in PLACES:
                    cx, cy = int(w * fx), int(h * fy)
                    if min(cx, cy) < half or cx + half > w or cy + half > h:
                        continue
                    box = (cx - half, cy - half, cx + half, cy + half)
                    yield f"{name} ×{scale}, box {2 * half} px at ({fx}, {fy})", img, box


def pipeline_cut(img: np.ndarray, box: tuple[int, int, int, int]) -> Cut:
    """What the repair pipeline hands the engine for ``box`` on ``img``: the patch it cuts
    round the box, the box in it, and the surroundings (where the edges are followed on
    when the patch gives none to carry)."""
    from sabre_desk.engines.pipeline import plan_repair, surround_rect
    from sabre_desk.imaging.geometry import normalize
    from sabre_desk.imaging.patch import PixelRect

    h, w = img.shape[:2]
    plan = plan_repair(w, h, normalize(box, w, h))
    r, b = plan.rect, plan.box
    patch = np.ascontiguousarray(img[r.y0 : r.y1, r.x0 : r.x1])
    hole = np.zeros(patch.shape[:2], bool)
    hole[b.y0 : b.y1, b.x0 : b.x1] = True
    wide = surround_rect(PixelRect(*box), r, w, h)
    return patch, hole, (img[wide.slices], (r.x0 - wide.x0, r.y0 - wide.y0))


def measure() -> dict[str, float | None]:
    """For every box: None when no edge is carried, else the share of drawn pixels off."""
    from sabre_desk.imaging.carried_edges import carry_edges

    try:
        from sabre_desk.imaging.completion import edges_carried
    except ImportError:  # a version (--other) that carried edges on the patch alone

        def edges_carried(
            patch: np.ndarray, hole: np.ndarray, _: object
        ) -> tuple[np.ndarray, np.ndarray]:
            return carry_edges(patch, hole)

    found: dict[str, float | None] = {}
    for key, img, box in photo_boxes():
        patch, hole, around = pipeline_cut(img, box)
        drawn, band = edges_carried(patch, hole, around)
        if not band.any():
            found[key] = None
            continue
        off = np.abs(drawn.astype(int) - patch).max(axis=2)[band] > OFF_LEVELS
        found[key] = float(off.mean())
    return found


def _in(checkout: Path) -> dict[str, float | None]:
    """``measure`` run by the code of ``checkout``, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    code = f"import json, sys; sys.path.insert(0, {str(HERE / 'benchmarks')!r}); "
    code += "import carried_edges; print(json.dumps(carried_edges.measure()))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=checkout,  # else the directory it is run from comes first on the path
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, float | None] = json.loads(out.stdout)
    return result


def _summary(label: str, found: dict[str, float | None]) -> None:
    carried = {k: v for k, v in found.items() if v is not None}
    mostly_off = sum(v > 0.2 for v in carried.values())
    print(
        f"{label}: {len(found)} boxes, an edge carried in {len(carried)}, "
        f"of them {mostly_off} with more than a fifth of the drawn pixels off"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--other", type=Path, help="another checkout, to compare with")
    args = parser.parse_args()
    now = _in(HERE)
    _summary("now", now)
    if args.other is None:
        for key, off in now.items():
            if off is not None:
                print(f"  {key}: {off:.0%} of the drawn pixels off")
        return
    other = _in(args.other.resolve())
    _summary("other", other)
    for key in now:
        if now[key] != other.get(key):
            a, b = (("none" if v is None else f"{v:.0%} off") for v in (other.get(key), now[key]))
            print(f"  {key}: other {a}, now {b}")


if __name__ == "__main__":
    main()
