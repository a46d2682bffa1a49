"""A jump to a case never shown, without previews: its two images decoded side by side.

Builds N paired cases of 2048×2048 PNGs (every case with files of its own), opens the real
window offscreen with no preview cache, and jumps to random cases with nothing in memory.
Two variants, interleaved jump by jump in one run:

* side by side (what the window does): the pair's two images decoded on two threads, each
  painted as it lands;
* one after the other (as before): both images queued on the one decoding thread that
  leaves the window a core of its own;

and between the jumps, the floor: decoding a pair with the app's decoder, one image after
the other; and what two cores give at best: the window's own work for the pair (decode for
the screen and its pyramid) on two bare threads while the window is quiet. Figures are
medians and 95th percentiles, as ratios to that floor, with the time to the Base image
landing (the first thing a reviewer sees) and the load average at the start and the end
(the machine is shared).

Usage: python benchmarks/cold_jump.py [--cases 40] [--jumps 20] [--size 2048]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from case_switch import pct
from preview_cache import make_project, open_window


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option, default in (("--cases", 40), ("--jumps", 20), ("--size", 2048)):
        parser.add_argument(option, type=int, default=default)
    args = parser.parse_args()
    from sabre_desk.gui.machinery.qimage import decode_for_display
    from sabre_desk.imaging.io import load_image

    def bare_pair(folder: Path) -> float:
        """The pair's decodes for the screen on two plain threads: the best two cores do."""
        threads = [
            threading.Thread(target=decode_for_display, args=(folder / name,))
            for name in ("base.png", "edited.png")
        ]
        t0 = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return (time.perf_counter() - t0) * 1e3

    with tempfile.TemporaryDirectory(prefix="sabre-cold-") as tmp:
        os.environ["SABRE_DESK_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "project"
        make_project(root, args.cases, args.size)
        case_ids = sorted(p.name for p in (root / "cases").iterdir())
        load_start = _load()
        app, window, shown, wait_shown = open_window(root, previews=False)
        loader = window.loader
        request = loader.request
        landed: dict[str, float] = {}
        loader.loaded.connect(
            lambda key, _image: landed.setdefault(Path(key[0]).stem, time.perf_counter())
        )

        def one_thread(path: Path, full: bool = False, now: bool = False) -> object:
            return request(path, full)  # as before: wanted now or not, the one thread

        rng = random.Random(11)
        targets = [rng.choice(case_ids[1:]) for _ in range(2 * args.jumps)]
        floor: list[float] = []
        bare: list[float] = []
        both: dict[bool, list[float]] = {True: [], False: []}
        base: dict[bool, list[float]] = {True: [], False: []}
        for i, case_id in enumerate(targets):
            side_by_side = i % 2 == 0
            loader.request = request if side_by_side else one_thread  # type: ignore[method-assign]
            window.wait_for_background(30000)
            app.processEvents()
            loader.clear()
            shown.clear()
            landed.clear()
            if window.controller.case.case_id == case_id:  # a jump goes somewhere else
                window.case_list.select(case_ids[0])
                wait_shown(case_ids[0])
                window.wait_for_background(30000)
                app.processEvents()
                loader.clear()
                shown.clear()
                landed.clear()
            t0 = time.perf_counter()
            window.case_list.select(case_id)
            both[side_by_side].append((wait_shown(case_id) - t0) * 1e3)
            base[side_by_side].append((landed["base"] - t0) * 1e3)
            if side_by_side:  # the floor, on other files of the same kind, between jumps
                window.wait_for_background(30000)  # the neighbours read ahead, first
                other = root / "cases" / rng.choice(case_ids)
                t0 = time.perf_counter()
                load_image(other / "base.png")
                load_image(other / "edited.png")
                floor.append((time.perf_counter() - t0) * 1e3)
                bare.append(bare_pair(root / "cases" / rng.choice(case_ids)))
        window.close()
        app.processEvents()
        load_end = _load()

    f = statistics.median(floor)

    def line(label: str, values: list[float]) -> str:
        med, p95 = statistics.median(values), pct(values, 0.95)
        return f"  {label:<44} {med:7.1f} / {p95:7.1f} ms   {med / f:5.2f}× / {p95 / f:5.2f}×"

    print(
        f"cold jump without previews, {args.cases} paired cases of {args.size}×{args.size} "
        f"PNGs, {os.cpu_count()} cores (shared), offscreen; median / p95, ratio to the floor"
    )
    print(line("floor: decode the pair, one after the other", floor))
    print(line("two bare threads, the window quiet: the pair", bare))
    print(line("side by side: both painted", both[True]))
    print(line("side by side: Base landed", base[True]))
    print(line("one thread (as before): both painted", both[False]))
    print(line("one thread (as before): Base landed", base[False]))
    print(f"  load average (1/5/15 min): start {load_start}, end {load_end}")


if __name__ == "__main__":
    main()
