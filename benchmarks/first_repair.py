"""The first patch-based repair of a session against the next, beside Telea in the same run.

The patch-based engine's loops are compiled by numba and cached on disk; the window warms
them on a worker thread as it opens (``sabre_desk/imaging/warm.py``). Each measurement runs
in a fresh Python process (``--child``), as a repair in a newly opened window does, on the
demo's own repair case (tex01, the edited image with the brick mug and the smear over it),
through the repair pipeline the window and ``sabre-desk repair`` use (patch, standout
search, completion, soft blend), for a 200×200 and a 512×512 box (the latter on the scene
at twice the size):

- first: the first repair in the process, nothing warmed (numba imported, loops loaded
  from the disk cache);
- first after warm-up: ``warm_up()`` run first, as the window does while the reviewer
  draws the box;
- warm: the median of three more repairs in the same process;
- Telea: the median of three OpenCV Telea repairs of the same box in the same process.

Each figure is the median over ``--runs`` fresh processes. The load average is printed at
the start and the end (the machine may be shared): compare the ratios to Telea, measured
side by side, rather than the seconds across machines.

``--cold-cache`` points numba at an empty cache directory for each process (what the very
first repair after an install meets: the loops compiled, not loaded).

``--ahead-of-time`` runs the loops the standalone bundle carries instead of numba's: they are
compiled first, as ``packaging/build.sh`` compiles them (``packaging/compile_loops.py``), and
each process runs with numba made unimportable, as in the bundle.

Usage: python benchmarks/first_repair.py [--runs 3] [--cold-cache] [--ahead-of-time]
       [--sizes 200,512]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SIZES = (200, 512)


def _scene(size: int) -> tuple[object, tuple[float, float, float, float]]:
    import cv2
    import numpy as np

    from sabre_desk.demo import scenes
    from sabre_desk.demo.cases import tex_mug_brick
    from sabre_desk.imaging.geometry import normalize

    case = tex_mug_brick(np.random.default_rng(1))
    image = np.ascontiguousarray(case.images["edited"][:, :, :3])
    scale = 1 if size <= 300 else 2
    if scale > 1:
        image = cv2.resize(image, (scenes.W * scale, scenes.H * scale))
    h, w = image.shape[:2]
    # centred on the demo's smear (150..250 × 360..430 at scale 1), kept inside the image
    cx, cy = 200 * scale, 395 * scale
    x0 = min(max(0, cx - size // 2), w - size)
    y0 = min(max(0, cy - size // 2), h - size)
    return image, normalize((x0, y0, x0 + size, y0 + size), w, h)


def child(size: int, warm_first: bool, ahead_of_time: bool) -> dict[str, float]:
    """One fresh process's figures (seconds)."""
    if ahead_of_time:
        sys.modules["numba"] = None  # type: ignore[assignment]  # as in the bundle
    started = time.perf_counter()
    from sabre_desk.engines.base import RepairOp
    from sabre_desk.engines.pipeline import RepairOrder, run_repair
    from sabre_desk.engines.registry import make_engine

    image, box = _scene(size)
    order = RepairOrder(box, RepairOp.REMOVE, "remove the smear")
    figures: dict[str, float] = {"imports": time.perf_counter() - started}
    if warm_first:
        from sabre_desk.imaging.warm import warm_up

        figures["warm_up"] = warm_up() or 0.0
    patchmatch = make_engine("patchmatch")
    t = time.perf_counter()
    run_repair(image, order, patchmatch)
    figures["first"] = time.perf_counter() - t
    warm = []
    for _ in range(3):
        t = time.perf_counter()
        run_repair(image, order, patchmatch)
        warm.append(time.perf_counter() - t)
    figures["warm"] = statistics.median(warm)
    telea = make_engine("opencv-telea")
    run_repair(image, order, telea)
    times = []
    for _ in range(3):
        t = time.perf_counter()
        run_repair(image, order, telea)
        times.append(time.perf_counter() - t)
    figures["telea"] = statistics.median(times)
    return figures


def load_line() -> str:
    """The load average, printed beside each figure: the machine may be shared."""
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cold-cache", action="store_true")
    parser.add_argument("--ahead-of-time", action="store_true")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="box sides")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--warm-first", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.warm_first, args.ahead_of_time)))
        return
    print(load_line())
    compiled = tempfile.TemporaryDirectory(prefix="compiled-loops-")
    if args.ahead_of_time:
        script = Path(__file__).resolve().parents[1] / "packaging" / "compile_loops.py"
        subprocess.run([sys.executable, str(script), compiled.name], check=True)
    for size in (int(v) for v in args.sizes.split(",")):
        for warm_first in (False, True):
            runs = []
            for _ in range(args.runs):
                env = dict(os.environ)
                if args.ahead_of_time:
                    env["PYTHONPATH"] = compiled.name
                with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
                    if args.cold_cache:
                        env["NUMBA_CACHE_DIR"] = cache
                    cmd = [sys.executable, __file__, "--child", str(size)]
                    cmd += ["--warm-first"] if warm_first else []
                    cmd += ["--ahead-of-time"] if args.ahead_of_time else []
                    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            label = "first after warm-up" if warm_first else "first"
            warmed = f" (warm-up {med['warm_up']:.2f} s)" if warm_first else ""
            print(
                f"{size}×{size} box: {label} {med['first']:.2f} s{warmed}, warm "
                f"{med['warm']:.2f} s, Telea {med['telea'] * 1000:.0f} ms; first/warm "
                f"{med['first'] / med['warm']:.2f}× (median of {args.runs} fresh processes)"
            )
    print(load_line())


if __name__ == "__main__":
    main()
