"""Draw docs/guide/img/repair-offline.png: the demo's two defects removed by each offline engine.

One row per defect — tex01's smear over the brick mug and the gingham, ctx03's leftover
wrench jaw — each a crop round the box: the edited image with the box in red, then the
repair by Telea, FSR and the patch-based default, through the whole pipeline (patch,
engine, blend), as the window would show them.

    python tools/repair_offline_picture.py [OUT.png]
"""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np

from sabre_desk.demo.writer import build_demo_cases
from sabre_desk.engines.base import RepairOp
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import make_engine

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "guide" / "img" / "repair-offline.png"
ENGINES = ("opencv-telea", "opencv-fsr", "patchmatch")
#: (case, box as x0,y0,x1,y1 fractions, crop in pixels x0,y0,x1,y1, scale of the crop)
DEFECTS = (
    ("tex01_mug_brick", (0.17, 0.66, 0.35, 0.875), (70, 290, 420, 512), 1.0),
    ("ctx03_wrench_banana", (0.345, 0.595, 0.41, 0.69), (230, 270, 360, 400), 2.0),
)
LABEL_PX = 28
GAP = 6


def _tile(img: np.ndarray, crop: tuple[int, int, int, int], scale: float, label: str) -> np.ndarray:
    x0, y0, x1, y1 = crop
    part = cv2.resize(img[y0:y1, x0:x1], None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
    head = np.full((LABEL_PX, part.shape[1], 3), 255, np.uint8)
    cv2.putText(head, label, (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    return np.vstack([head, part])


def _row(tiles: list[np.ndarray]) -> np.ndarray:
    h = tiles[0].shape[0]
    gap = np.full((h, GAP, 3), 255, np.uint8)
    parts: list[np.ndarray] = []
    for t in tiles:
        parts += [t, gap]
    return np.hstack(parts[:-1])


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    cases = {c.case_id: c for c in build_demo_cases()}
    engines = {name: make_engine(name) for name in ENGINES}
    rows = []
    for case_id, box, crop, scale in DEFECTS:
        edited = np.ascontiguousarray(cases[case_id].images["edited"][:, :, :3])
        h, w = edited.shape[:2]
        marked = edited.copy()
        bx = (round(box[0] * w), round(box[1] * h), round(box[2] * w), round(box[3] * h))
        cv2.rectangle(marked, bx[:2], (bx[2] - 1, bx[3] - 1), (230, 0, 0), 2)
        tiles = [_tile(marked, crop, scale, "before")]
        for name, engine in engines.items():
            order = RepairOrder(box, RepairOp.REMOVE, "remove the defect")
            tiles.append(_tile(run_repair(edited, order, engine).image, crop, scale, name))
        rows.append(_row(tiles))
    width = max(r.shape[1] for r in rows)
    padded = [
        np.pad(r, ((0, GAP), (0, width - r.shape[1]), (0, 0)), constant_values=255) for r in rows
    ]
    picture = np.vstack(padded)[:-GAP]
    cv2.imwrite(
        str(out), cv2.cvtColor(picture, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 9]
    )
    print(f"wrote {out} ({picture.shape[1]}×{picture.shape[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
