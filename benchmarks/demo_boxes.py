"""Boxes dropped at twelve places on every image of the demo, as **B** drops one.

A reviewer who presses B gets a box in the middle of the view, wherever that is: on the
plain cloth, across the line where a wall meets a desk, over a bottle. Each box (8 % of
the image wide, 12 % high, at a grid of 4 × 3 places) is filled whole by the default engine
and by Telea's, through the repair pipeline, on the demo's own pictures (no defect in the
box), and compared with the picture itself: a box on a plain surface should come back as
it was; one over an object loses it, as a removal should. The boxes the default engine
leaves farthest from the picture, and those where it is much farther off than Telea's
smooth fill, are the ones to look at.

Usage: python benchmarks/demo_boxes.py [--worst 15]
"""

from __future__ import annotations

import argparse
import statistics

import numpy as np

from sabre_desk.demo.writer import build_demo_cases
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import make_engine

PLACES = [(x, y) for x in (0.2, 0.4, 0.6, 0.8) for y in (0.25, 0.5, 0.75)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worst", type=int, default=15)
    args = parser.parse_args()
    default, telea = PatchMatchEngine(whole_box=True), make_engine("opencv-telea")
    rows = []
    for case in build_demo_cases():
        role = "base" if "base" in case.images else "image"
        picture = np.ascontiguousarray(case.images[role][:, :, :3])
        h, w = picture.shape[:2]
        for cx, cy in PLACES:
            box = (cx - 0.04, cy - 0.06, cx + 0.04, cy + 0.06)
            order = RepairOrder(box, "remove", "")
            x0, y0, x1, y1 = int(box[0] * w), int(box[1] * h), int(box[2] * w), int(box[3] * h)
            errors = []
            for engine in (default, telea):
                out = run_repair(picture, order, engine).image
                errors.append(
                    float(np.abs(out[y0:y1, x0:x1].astype(int) - picture[y0:y1, x0:x1]).mean())
                )
            rows.append((errors[0], errors[1], case.case_id, role, (cx, cy)))
    print(
        f"{len(rows)} boxes on {len(rows) // len(PLACES)} demo images: error in the box against "
        f"the picture, default {statistics.mean(r[0] for r in rows):.1f}, "
        f"Telea {statistics.mean(r[1] for r in rows):.1f} levels (means)"
    )
    print(f"\nthe {args.worst} farthest off:")
    for e, t, case_id, role, place in sorted(rows, key=lambda r: -r[0])[: args.worst]:
        print(f"  {e:6.1f}  Telea {t:6.1f}  {case_id} {role} at {place}")
    worse = [r for r in rows if r[0] > 2 * r[1] + 5]
    print(f"\nfarther off than twice Telea's, and 5 levels more: {len(worse)}")
    for e, t, case_id, role, place in worse:
        print(f"  {e:6.1f}  Telea {t:6.1f}  {case_id} {role} at {place}")


if __name__ == "__main__":
    main()
