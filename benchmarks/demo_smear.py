"""The demo's own defect, repaired as a reviewer boxes it: tex01's smear over the brick mug
and the gingham.

The demo draws the smear last, so the same case built without it is the truth. Three boxes,
as reviewers draw them: close round the smear, a few pixels wider, and the guide's (which
takes in a third of the mug). Each is repaired through the engine's own path (patch,
engine, soft blend) by the default engine, by it filling the whole box, and by Telea's, and
scored:

- left as it was: the share of the smear's pixels (those more than 20 levels off the truth)
  that the repair did not change (at most 2 levels): the defect still there;
- error in the box: mean absolute difference from the truth (0-255).

And the default engine's next fills of each box (as Repair again makes them): the error in
the box of each, and the share of the box's pixels more than 10 levels off the first fill.

Usage: python benchmarks/demo_smear.py
"""

from __future__ import annotations

import numpy as np

from sabre_desk.demo.writer import SMEAR_BOXES, smear_and_truth
from sabre_desk.engines.base import RepairOp
from sabre_desk.engines.patchmatch import PatchMatchEngine, fill_whole_box
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import make_engine
from sabre_desk.imaging.geometry import normalize

#: (name, box in pixels x0, y0, x1, y1)
BOXES = tuple(SMEAR_BOXES.items())


def main() -> None:
    edited, truth = smear_and_truth()
    h, w = edited.shape[:2]
    smear = np.abs(edited.astype(int) - truth).mean(axis=2) > 20
    engines = {
        "patch-based (default)": PatchMatchEngine(),
        "patch-based, whole box": fill_whole_box(PatchMatchEngine()),
        "Telea": make_engine("opencv-telea"),
    }
    print(f"tex01's smear: {int(smear.sum())} pixels; left as it was / error in the box")
    print(f"{'box':24}" + "".join(f"{name:>26}" for name in engines))
    for name, (x0, y0, x1, y1) in BOXES:
        order = RepairOrder(normalize((x0, y0, x1, y1), w, h), RepairOp.REMOVE, "remove")
        cells = []
        for engine in engines.values():
            out = run_repair(edited, order, engine).image.astype(int)
            left = ((np.abs(out - edited).max(axis=2) <= 2) & smear).sum() / smear.sum()
            error = np.abs(out[y0:y1, x0:x1] - truth[y0:y1, x0:x1]).mean()
            cells.append(f"{left:6.0%} / {error:4.1f}")
        print(f"{name:24}" + "".join(f"{cell:>26}" for cell in cells))
    print("the default's fills 1-4 of each box: error in the box / share of it changed from fill 1")
    for name, (x0, y0, x1, y1) in BOXES:
        box = normalize((x0, y0, x1, y1), w, h)
        orders = [RepairOrder(box, RepairOp.REMOVE, "remove", variant=v) for v in range(4)]
        fills = [
            run_repair(edited, order, PatchMatchEngine()).image[y0:y1, x0:x1].astype(int)
            for order in orders
        ]
        cells = [
            f"{np.abs(f - truth[y0:y1, x0:x1]).mean():4.1f} / "
            f"{(np.abs(f - fills[0]).max(axis=2) > 10).mean():4.0%}"
            for f in fills
        ]
        print(f"{name:24}" + "".join(f"{cell:>14}" for cell in cells))


if __name__ == "__main__":
    main()
