"""Offline repair engines on real photographs whose background under the box is known.

Objects of several shapes — ellipses, irregular blobs, thin strokes — are pasted onto real
photos of several textures (scikit-image's brick, grass and gravel, and its coffee, chelsea
and rocket photographs; no faces), a box is drawn around each, and every offline engine
removes it through the whole repair pipeline (patch, engine, soft blend), side by side in one
run. The photo before the paste is the truth, so each repair is scored against it:

- error in the box: mean absolute error inside the box (0-255, lower is better);
- seam: the same on a ring straddling the box's edge (where a fill meets the photo);
- texture: the distance between the histograms of gradient magnitude in the box, result vs
  truth (0 = the photo's own texture statistics, 1 = nothing in common; a smear is far off),
  and the Laplacian's spread as a share of the truth's ("kept": 1.0 is the photo's texture);
- time per repair and per megapixel of box;
- left: how many objects the repair left more than a tenth of (their visible pixels left
  nearer to the object than to the photo: what a reviewer would still see).

The patch-based engine fills only what stands out in the box; it is also run filling the
whole box, as the other engines do ("patchmatch (whole box)").

Errors are also given as ratios to Telea's, per case then averaged. A second part times the
PatchMatch engine alone on a 256² and a 1,400² hole (after a small warm-up fill, as numba
compiles or loads its loops on first use), and how soon a cancel stops the latter.
The load average is printed at the start and the end (the machine may be shared).

Needs scikit-image for the photographs (only this script does): pip install scikit-image.
Then the textured objects of ``textured_objects.py`` (cut from other photos, removed through
``sabre-desk repair``), unless ``--no-textured``: both sets in one run.

Usage: python benchmarks/offline_inpaint.py [--per-photo 4] [--engines a,b] [--no-speed]
[--no-textured] [--seed N] (the objects' placement; the figures in docs/performance.md are
of the default, and other seeds give scenes no engine's parameters were chosen on)
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from dataclasses import dataclass

import cv2
import numpy as np

from sabre_desk.engines.base import EngineRequest, RepairCancelledError, RepairOp
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.engines.registry import ENGINES, make_engine
from sabre_desk.imaging.patch import PixelRect

PHOTOS = ("brick", "grass", "gravel", "coffee", "chelsea", "rocket")
SHAPES = ("ellipse", "blob", "stroke")
WHOLE_BOX = "patchmatch (whole box)"
#: the seed of the scenes whose figures are reported
DEFAULT_SEED = 20261202


@dataclass
class Scene:
    photo: str
    shape: str
    truth: np.ndarray
    pasted: np.ndarray
    box: tuple[float, float, float, float]


def photo(name: str) -> np.ndarray:
    import skimage.data

    img = getattr(skimage.data, name)()
    if img.ndim == 2:
        img = np.dstack([img] * 3)
    return np.ascontiguousarray(img[:, :, :3])


def _paste(
    truth: np.ndarray, shape: str, rng: np.random.Generator
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """The photo with one object of ``shape`` on it, and the object's pixel bounding box."""
    h, w = truth.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    side = rng.uniform(0.08, 0.16) * min(h, w)
    cx, cy = rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h
    if shape == "ellipse":
        axes = (int(side * rng.uniform(0.35, 0.6)), int(side * rng.uniform(0.35, 0.6)))
        angle = float(rng.uniform(0, 180))
        cv2.ellipse(mask, (int(cx), int(cy)), axes, angle, 0, 360, 255, -1, cv2.LINE_AA)
    elif shape == "blob":
        angles = np.sort(rng.uniform(0, 2 * np.pi, 9))
        radii = side * rng.uniform(0.25, 0.65, 9)
        points = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1)
        cv2.fillPoly(mask, [points.astype(np.int32)], 255, cv2.LINE_AA)
    else:  # a thin stroke: a scratch, a hair, a wire
        length = side * rng.uniform(1.2, 2.0)
        angle = rng.uniform(0, np.pi)
        dx, dy = np.cos(angle) * length / 2, np.sin(angle) * length / 2
        thickness = int(rng.integers(3, 7))
        cv2.line(
            mask,
            (int(cx - dx), int(cy - dy)),
            (int(cx + dx), int(cy + dy)),
            255,
            thickness,
            cv2.LINE_AA,
        )
    ys, xs = np.nonzero(mask)
    color = rng.integers(0, 255, 3).astype(np.float32)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    pasted = truth.astype(np.float32) * (1 - alpha) + color * alpha
    # a 3-pixel margin round the object, as a reviewer draws a box
    box = (
        max(0, int(xs.min()) - 3),
        max(0, int(ys.min()) - 3),
        min(w, int(xs.max()) + 4),
        min(h, int(ys.max()) + 4),
    )
    return np.clip(pasted + 0.5, 0, 255).astype(np.uint8), box


def scenes(per_photo: int, seed: int = DEFAULT_SEED) -> list[Scene]:
    """Objects of every shape in turn on each photo, seeded."""
    rng = np.random.default_rng(seed)
    made = []
    for name in PHOTOS:
        truth = photo(name)
        h, w = truth.shape[:2]
        for i in range(per_photo):
            shape = SHAPES[i % len(SHAPES)]
            pasted, (x0, y0, x1, y1) = _paste(truth, shape, rng)
            made.append(Scene(name, shape, truth, pasted, (x0 / w, y0 / h, x1 / w, y1 / h)))
    return made


def _gradient_hist(img: np.ndarray, inside: np.ndarray) -> np.ndarray:
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.sqrt(gx * gx + gy * gy)[inside]
    hist, _ = np.histogram(np.minimum(magnitude, 255), bins=32, range=(0, 256))
    return hist / max(1, hist.sum())


def _laplacian_spread(img: np.ndarray, inside: np.ndarray) -> float:
    gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return float(cv2.Laplacian(gray, cv2.CV_32F)[inside].std())


@dataclass
class Score:
    error: float
    seam: float
    texture_distance: float
    texture_kept: float
    seconds: float
    box_mp: float


def score(scene: Scene, result: np.ndarray, seconds: float) -> Score:
    h, w = scene.truth.shape[:2]
    x0, y0 = int(scene.box[0] * w), int(scene.box[1] * h)
    x1, y1 = round(scene.box[2] * w), round(scene.box[3] * h)
    inside = np.zeros((h, w), bool)
    inside[y0:y1, x0:x1] = True
    ring_px = max(3, min(x1 - x0, y1 - y0) // 8)
    outer = cv2.dilate(inside.astype(np.uint8), np.ones((2 * ring_px + 1,) * 2, np.uint8))
    inner = cv2.erode(inside.astype(np.uint8), np.ones((2 * ring_px + 1,) * 2, np.uint8))
    ring = (outer > 0) & ~(inner > 0)
    diff = np.abs(result.astype(np.int16) - scene.truth.astype(np.int16))
    truth_hist = _gradient_hist(scene.truth, inside)
    return Score(
        error=float(diff[inside].mean()),
        seam=float(diff[ring].mean()),
        texture_distance=float(np.abs(_gradient_hist(result, inside) - truth_hist).sum() / 2),
        texture_kept=_laplacian_spread(result, inside)
        / max(_laplacian_spread(scene.truth, inside), 1e-6),
        seconds=seconds,
        box_mp=(x1 - x0) * (y1 - y0) / 1e6,
    )


def object_left(scene: Scene, result: np.ndarray) -> float:
    """The share of the object's clearly visible pixels (40 levels off the photo) that the
    repair left nearer to the object than to the photo, by half: what a reviewer would see
    of it still there."""
    pasted, truth, out = (a.astype(np.int16) for a in (scene.pasted, scene.truth, result))
    visible = np.abs(pasted - truth).mean(2) > 40
    if not visible.any():
        return 0.0
    to_object = np.abs(out - pasted).mean(2)
    to_photo = np.abs(out - truth).mean(2)
    return float(np.count_nonzero((to_object < 0.5 * to_photo) & visible) / visible.sum())


def offline_engines(wanted: list[str] | None) -> list[str]:
    names = [
        name
        for name, cls in ENGINES.items()
        if not cls.uses_network
        and cls.cpu_bound
        and not any(p.required for p in cls.params)
        and cls.unavailable_reason() is None
    ]
    return [n for n in names if wanted is None or n in wanted]


def compare(cases: list[Scene], names: list[str]) -> None:
    print(
        f"{len(cases)} objects ({', '.join(SHAPES)}) on {len(PHOTOS)} real photographs "
        f"({', '.join(PHOTOS)}), removed by each engine"
    )
    scores: dict[str, list[Score]] = {}
    left: dict[str, int] = {}
    variants = [(name, make_engine) for name in names]
    if "patchmatch" in names:
        # the same engine filling every pixel of the box, as the others do
        at = names.index("patchmatch") + 1
        variants.insert(at, (WHOLE_BOX, lambda _: PatchMatchEngine(whole_box=True)))
    for name, make in variants:
        engine = make(name)
        run_repair(cases[0].pasted, RepairOrder(cases[0].box, RepairOp.REMOVE, ""), engine)  # warm
        scores[name] = []
        for scene in cases:
            order = RepairOrder(scene.box, RepairOp.REMOVE, "remove the object")
            started = time.perf_counter()
            outcome = run_repair(scene.pasted, order, engine)
            scores[name].append(score(scene, outcome.image, time.perf_counter() - started))
            left[name] = left.get(name, 0) + (object_left(scene, outcome.image) > 0.1)
        engine.close()
    telea = scores.get("opencv-telea")
    print(
        f"{'engine':22} {'box error':>9} {'×Telea':>7} {'seam':>6} {'×Telea':>7} "
        f"{'tex dist':>8} {'kept':>5} {'median':>8} {'s/MP box':>9} {'left':>5}"
    )
    for name, rows in scores.items():
        box_ratio = seam_ratio = float("nan")
        if telea is not None:
            box_ratio = statistics.mean(
                r.error / max(t.error, 1e-6) for r, t in zip(rows, telea, strict=True)
            )
            seam_ratio = statistics.mean(
                r.seam / max(t.seam, 1e-6) for r, t in zip(rows, telea, strict=True)
            )
        print(
            f"{name:22} {statistics.mean(r.error for r in rows):9.2f} {box_ratio:7.2f} "
            f"{statistics.mean(r.seam for r in rows):6.2f} {seam_ratio:7.2f} "
            f"{statistics.mean(r.texture_distance for r in rows):8.3f} "
            f"{statistics.median(r.texture_kept for r in rows):5.2f} "
            f"{statistics.median(r.seconds for r in rows) * 1000:6.0f}ms "
            f"{sum(r.seconds for r in rows) / sum(r.box_mp for r in rows):9.1f} "
            f"{left[name]:5d}"
        )
    print(
        "left: the objects of which the repair left more than a tenth of the visible pixels "
        "nearer to the object than to the photo (by half)"
    )
    if telea is not None:
        print("\nin-box error per photo, × Telea's (mean of per-case ratios):")
        print(f"{'engine':22} " + " ".join(f"{p:>8}" for p in PHOTOS))
        for name, rows in scores.items():
            cells = []
            for p in PHOTOS:
                pairs = [(r, t) for r, t, s in zip(rows, telea, cases, strict=True) if s.photo == p]
                cells.append(statistics.mean(r.error / max(t.error, 1e-6) for r, t in pairs))
            print(f"{name:22} " + " ".join(f"{c:8.2f}" for c in cells))


def _big_request(side: int, cancel: threading.Event, ring: int | None = None) -> EngineRequest:
    """A hole of side² in the middle of a real photo scaled to 1.5 × side, or to side plus
    ``ring`` pixels on each side (a box over nearly all of the photo)."""
    size = int(side * 1.5) if ring is None else side + 2 * ring
    img = cv2.resize(photo("rocket"), (size, size), interpolation=cv2.INTER_CUBIC)
    m = (size - side) // 2
    box = PixelRect(m, m, m + side, m + side)
    return EngineRequest(
        RepairOp.REMOVE, "", img, img, box, PixelRect(0, 0, size, size), (size, size), cancel
    )


def speed(name: str = "patchmatch") -> None:
    if name not in ENGINES or ENGINES[name].unavailable_reason() is not None:
        return
    engine = make_engine(name)
    # numba compiles the loops (or loads them from its disk cache) on their first use in a
    # process: a small fill first, so the times below are of the repair alone
    started = time.perf_counter()
    engine.repair(_big_request(64, threading.Event()))
    print(
        f"\n{name} alone, one process (the window runs one repair per worker), after a "
        f"warm-up fill of 64×64 ({time.perf_counter() - started:.1f} s, numba's compile "
        "or cache load):"
    )
    for side in (256, 1400):
        request = _big_request(side, threading.Event())
        started, cpu = time.perf_counter(), time.process_time()
        engine.repair(request)
        print(
            f"  {side}×{side} hole: {time.perf_counter() - started:.1f} s "
            f"({time.process_time() - cpu:.1f} s of CPU, both threads)"
        )
    # a box over nearly all of the photo: the pyramid cannot go down far on so thin a ring,
    # and the coarsest level's hole is large (its smooth start once took FSR half a minute)
    for side, ring in ((600, 8), (1000, 8)):
        request = _big_request(side, threading.Event(), ring)
        started, cpu = time.perf_counter(), time.process_time()
        engine.repair(request)
        print(
            f"  {side}×{side} hole, {ring} pixels of photo round it: "
            f"{time.perf_counter() - started:.1f} s ({time.process_time() - cpu:.1f} s of CPU)"
        )
    cancel = threading.Event()
    request = _big_request(1400, cancel)
    timer = threading.Timer(2.0, cancel.set)
    timer.start()
    started = time.perf_counter()
    try:
        engine.repair(request)
        print("  1400×1400 cancelled after 2 s: it finished anyway")
    except RepairCancelledError:
        print(
            f"  1400×1400 cancelled after 2 s: stopped after {time.perf_counter() - started:.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-photo", type=int, default=6)
    parser.add_argument(
        "--engines", help="comma-separated engine names (default: every offline one)"
    )
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument(
        "--no-textured",
        action="store_true",
        help="skip the textured objects (benchmarks/textured_objects.py) run after the flat ones",
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help="where the objects go and what they are"
    )
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    wanted = args.engines.split(",") if args.engines else None
    if args.seed != DEFAULT_SEED:
        print(f"seed {args.seed} (not the default {DEFAULT_SEED})")
    compare(scenes(args.per_photo, args.seed), offline_engines(wanted))
    if not args.no_speed:
        speed()
    if not args.no_textured:
        # the textured objects (cut from other photos), scored as these are, beside the script
        import textured_objects

        print()
        textured_objects.measure(18, textured_objects.DEFAULT_SEED)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
