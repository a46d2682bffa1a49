"""Offline repair engines on real photographs whose background under the box is known.

An object is pasted onto a real photo (scikit-image's bundled astronaut, coffee, chelsea and
rocket photographs), a box is drawn around it, and each offline engine removes it through the
whole repair pipeline (patch, engine, soft blend). Because the photo before the paste is the
truth, the repair can be scored: the mean absolute error inside the box against the truth
(0-255, lower is better), how much of the true texture the fill keeps (the standard
deviation of the Laplacian inside the box, as a share of the truth's: 1.0 is the photo's own
texture, a smooth smear is near 0), the pipeline's seam score, and the time per repair.

Needs scikit-image for the photographs: pip install scikit-image.
Usage: python benchmarks/offline_inpaint.py [--boxes-per-photo 6]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from sabre_desk.engines.base import RepairOp
from sabre_desk.engines.opencv import OpenCVEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import ENGINES

PHOTOS = ("astronaut", "coffee", "chelsea", "rocket")


def texture(img: np.ndarray, inside: np.ndarray) -> float:
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(cv2.Laplacian(gray, cv2.CV_32F)[inside].std())


def scenes(per_photo: int) -> list[tuple[np.ndarray, np.ndarray, tuple[float, ...]]]:
    """(truth, pasted, normalized box) for a few boxes on each photo, seeded."""
    import skimage.data

    rng = np.random.default_rng(20261130)
    made = []
    for name in PHOTOS:
        truth = np.ascontiguousarray(getattr(skimage.data, name)()[:, :, :3])
        h, w = truth.shape[:2]
        for _ in range(per_photo):
            bw, bh = rng.uniform(0.06, 0.14, 2)
            x0, y0 = rng.uniform(0.05, 0.95 - bw), rng.uniform(0.05, 0.95 - bh)
            pasted = truth.copy()
            center = (int((x0 + bw / 2) * w), int((y0 + bh / 2) * h))
            axes = (int(bw * w * 0.42), int(bh * h * 0.42))
            color = tuple(int(c) for c in rng.integers(0, 255, 3))
            cv2.ellipse(pasted, center, axes, 0, 0, 360, color, -1, cv2.LINE_AA)
            made.append((truth, pasted, (x0, y0, x0 + bw, y0 + bh)))
    return made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--boxes-per-photo", type=int, default=6)
    cases = scenes(parser.parse_args().boxes_per_photo)
    print(f"{len(cases)} pasted objects on {len(PHOTOS)} real photographs, removed by each engine")
    print(
        f"{'engine':14} {'error in box':>12} {'texture kept':>13} {'seam':>6} {'time (median)':>14}"
    )
    results = {}
    for name, cls in ENGINES.items():
        if not issubclass(cls, OpenCVEngine):
            continue
        engine = cls()
        errors, textures, seams, times = [], [], [], []
        for truth, pasted, box in cases:
            order = RepairOrder(box, RepairOp.REMOVE, "remove the object")
            started = time.perf_counter()
            outcome = run_repair(pasted, order, engine)
            times.append(time.perf_counter() - started)
            h, w = truth.shape[:2]
            inside = np.zeros((h, w), bool)
            inside[int(box[1] * h) : int(box[3] * h), int(box[0] * w) : int(box[2] * w)] = True
            diff = np.abs(outcome.image.astype(int) - truth.astype(int))
            errors.append(float(diff[inside].mean()))
            textures.append(texture(outcome.image, inside) / max(texture(truth, inside), 1e-6))
            seams.append(outcome.seam)
        results[name] = statistics.mean(errors)
        print(
            f"{name:14} {statistics.mean(errors):12.2f} {statistics.median(textures):13.2f} "
            f"{statistics.mean(seams):6.2f} {statistics.median(times) * 1000:11.0f} ms"
        )
    best = min(results, key=results.__getitem__)
    telea = results["opencv-telea"]
    print(f"lowest error: {best} ({results[best] / telea:.2f}x Telea's)")


if __name__ == "__main__":
    main()
