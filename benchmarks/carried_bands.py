"""A band carried across boxes on real photographs and on the demo: where, and how it looks.

The patch-based engine copies a band of structure that crosses a hole (a launch tower's
lattice) across it and lays it over the fill (``imaging/carried_bands.py``). A band copied
where the photo has none would be a block of foreign structure; so every box of
``carried_edges.py`` (boxes of 80 to 500 pixels on seven of scikit-image's photographs, at
their own size and twice it, three places each) and of ``demo_boxes.py`` (twelve places on
every demo image, as B drops one) is tried, with the patch and the surroundings the repair
pipeline cuts, and the boxes where a band is carried are listed. For each of them the box
is filled whole by the default engine with and without the band, and by Telea's, and
compared with the photo (nothing covers it: the photo is the truth), with the share of the
box's pixels that are steel (far from the sky's median colour) in each, the tower's
lattice being what the band brings back. Also printed: what finding a band costs (the
median and the slowest of all boxes).

Usage (needs scikit-image): python benchmarks/carried_bands.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from dataclasses import replace

import cv2
import numpy as np
from carried_edges import Box, photo_boxes, pipeline_cut
from demo_boxes import PLACES as DEMO_PLACES

from sabre_desk.demo.writer import build_demo_cases
from sabre_desk.imaging.completion import CompletionParams, band_carried, patchmatch_fill


def demo_boxes() -> Iterator[Box]:
    """The boxes ``demo_boxes.py`` drops (B's: 8 % of the image wide, 12 % high)."""
    for case in build_demo_cases():
        role = "base" if "base" in case.images else "image"
        picture = np.ascontiguousarray(case.images[role][:, :, :3])
        h, w = picture.shape[:2]
        for cx, cy in DEMO_PLACES:
            box = (int((cx - 0.04) * w), int((cy - 0.06) * h))
            box += (int((cx + 0.04) * w), int((cy + 0.06) * h))
            yield f"demo {case.case_id} {role} at ({cx}, {cy})", picture, box


def main() -> None:
    times: list[float] = []
    carried = []
    counts = {"photos": [0, 0], "demo": [0, 0]}
    for group, boxes in (("photos", photo_boxes()), ("demo", demo_boxes())):
        for key, img, box in boxes:
            patch, hole, around = pipeline_cut(img, box)
            start = time.perf_counter()
            _, band = band_carried(patch, hole, around)
            times.append(time.perf_counter() - start)
            counts[group][0] += 1
            if band.any():
                counts[group][1] += 1
                carried.append((key, patch, hole, around))
    for group, (boxes, with_band) in counts.items():
        print(f"{group}: {boxes} boxes, a band carried in {with_band}")
    print(
        f"finding a band: median {statistics.median(times) * 1000:.0f} ms, "
        f"slowest {max(times) * 1000:.0f} ms a box"
    )
    print("\nboxes with a band, filled whole: error in the box (levels) / share of steel")
    print(f"  {'box':44} {'band':>11} {'no band':>11} {'Telea':>11} {'photo':>6}")
    for key, patch, hole, around in carried:
        sky = np.median(patch[hole], axis=0)

        def steel(img: np.ndarray, sky: np.ndarray = sky, hole: np.ndarray = hole) -> float:
            return float((np.abs(img[hole].astype(int) - sky).sum(axis=1) > 60).mean())

        def error(img: np.ndarray, patch: np.ndarray = patch, hole: np.ndarray = hole) -> float:
            return float(np.abs(img[hole].astype(int) - patch[hole]).mean())

        with_band = patchmatch_fill(patch, hole, CompletionParams(), surround=around)
        params = replace(CompletionParams(), carry_bands=False)
        without = patchmatch_fill(patch, hole, params, surround=around)
        telea = cv2.inpaint(patch, hole.astype(np.uint8) * 255, 5, cv2.INPAINT_TELEA)
        cells = [f"{error(x):5.1f}/{steel(x):4.2f}" for x in (with_band, without, telea)]
        print(f"  {key:44} {cells[0]:>11} {cells[1]:>11} {cells[2]:>11} {steel(patch):6.2f}")


if __name__ == "__main__":
    main()
