"""What the preview cache buys: a jump to any case, with and without previews, in one run.

Builds a project of N paired cases of 2048×2048 PNGs (10 distinct pictures; every case has
files of its own, with different bytes, so nothing is shared between cases), stores the
previews of all of them, opens the real window offscreen and reports, as ratios to the
floor (decoding the pair with the app's decoder, one image after the other):

* cold jump (nothing in memory: Ctrl+G, a filter, the disagreement queue), with previews
  and without, interleaved jump by jump;
* warm next (the neighbours prefetched while the reviewer looked), with and without;
* peak memory flipping through 500 cases at key-repeat speed, each variant in a fresh
  process of its own; with ``--labelme PYTHON`` (a Python where labelme is installed, see
  ``labelme_flip.py``) also labelme's, flipping through the same images (both of every
  case) in its own window.

Usage: python benchmarks/preview_cache.py [--cases 500] [--jumps 24] [--size 2048]
           [--labelme /tmp/labelme-venv/bin/python]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from case_switch import SPEC, pct, photo_like, to_todays_format


def png_with_text(png: bytes, text: str) -> bytes:
    """The same picture, other bytes: a tEXt chunk inserted before IEND."""
    body = b"Comment\0" + text.encode()
    chunk = struct.pack(">I", len(body)) + b"tEXt" + body
    chunk += struct.pack(">I", zlib.crc32(b"tEXt" + body))
    return png[:-12] + chunk + png[-12:]


def make_project(root: Path, n: int, size: int) -> None:
    import io

    from PIL import Image

    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 1, "name": "preview benchmark"})
    )
    pictures = []
    for k in range(10):
        pair = []
        for seed in (2 * k, 2 * k + 1):
            buf = io.BytesIO()
            Image.fromarray(photo_like(size, seed)).save(buf, "PNG", compress_level=6)
            pair.append(buf.getvalue())
        pictures.append(pair)
    for i in range(n):
        folder = root / "cases" / f"case{i:04d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(SPEC | {"concept_id": f"c{i}"}))
        base, edited = pictures[i % 10]
        (folder / "base.png").write_bytes(png_with_text(base, folder.name))
        (folder / "edited.png").write_bytes(png_with_text(edited, folder.name))
    to_todays_format(root)


def summary(values: list[float], floor: float) -> str:
    med, p95 = statistics.median(values), pct(values, 0.95)
    return f"{med:7.1f} / {p95:7.1f} ms   {med / floor:5.2f}× / {p95 / floor:5.2f}×"


def open_window(root: Path, previews: bool):  # type: ignore[no-untyped-def]
    from event_loop import AppLoop

    from sabre_desk.gui.app import make_app
    from sabre_desk.gui.main_window import MainWindow
    from sabre_desk.settings import Settings

    app = make_app()
    window = MainWindow("bench", Settings())
    window.resize(1560, 900)
    window.show()
    # When each case's images were painted: the moment the window says so, not when the
    # wait below next looks (by then it may have handled the prefetch that follows).
    shown: dict[str, float] = {}
    window.images_shown.connect(lambda case_id: shown.setdefault(case_id, time.perf_counter()))
    # The loop waits for events as the application's own does (``event_loop.py``).
    loop = AppLoop(app)

    def wait_shown(case_id: str, timeout: float = 30.0) -> float:
        loop.until(lambda: case_id in shown, timeout, case_id)
        return shown[case_id]

    window.open_project(root, "case0000")
    wait_shown("case0000")
    window.previews.sweep.stop()  # previews are made up front here, or not at all
    if not previews:
        window.loader.set_store(None)
    return app, window, shown, wait_shown


def flip_memory(root: Path, previews: bool, cases: int) -> None:
    """In a process of its own: flip through *cases* cases at key-repeat speed; print the
    peak resident memory in MB."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    app, window, _, _ = open_window(root, previews)
    canvas = window.compare.canvases[next(iter(window.compare.canvases))]
    canvas.setFocus()
    for _ in range(cases - 1):
        QTest.keyClick(canvas, Qt.Key.Key_N)
        deadline = time.perf_counter() + 0.03
        while time.perf_counter() < deadline:
            app.processEvents()
    window.wait_for_background(30000)
    app.processEvents()
    print(peak_rss_mb())


def peak_rss_mb() -> float:
    """This process's own peak resident memory. (``ru_maxrss`` would not do: Linux carries
    the parent's figure at the fork over the exec into the child.)"""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--jumps", type=int, default=24)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--labelme", metavar="PYTHON", help="also measure labelme's memory")
    parser.add_argument("--flip", nargs=2, metavar=("ROOT", "PREVIEWS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flip:
        flip_memory(Path(args.flip[0]), args.flip[1] == "1", args.cases)
        return

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from sabre_desk.core.case.preview_cache import PreviewStore, cache_folder
    from sabre_desk.imaging.io import load_image

    started_at = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="sabre-previews-") as tmp:
        os.environ["SABRE_DESK_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "project"
        make_project(root, args.cases, args.size)
        case_ids = sorted(p.name for p in (root / "cases").iterdir())

        store = PreviewStore(cache_folder(root))
        made = []
        for case_id in case_ids:
            t0 = time.perf_counter()
            for role in ("base", "edited"):
                store.make(root / "cases" / case_id / f"{role}.png")
            made.append((time.perf_counter() - t0) * 1e3 / 2)
        info = store.info()

        app, window, shown, wait_shown = open_window(root, True)
        canvas = window.compare.canvases[next(iter(window.compare.canvases))]
        canvas.setFocus()
        rng = random.Random(7)
        targets = rng.sample(case_ids[1:], 2 * args.jumps)
        floor, cold = [], {True: [], False: []}
        for i, case_id in enumerate(targets):
            with_previews = i % 2 == 0
            window.loader.set_store(store if with_previews else None)
            window.wait_for_background(30000)
            app.processEvents()  # results of the last prefetch delivered, then forgotten
            window.loader.clear()
            shown.clear()
            t0 = time.perf_counter()
            window.case_list.select(case_id)
            cold[with_previews].append((wait_shown(case_id) - t0) * 1e3)
            if with_previews:  # the floor, on the same files, between the jumps
                other = root / "cases" / targets[(i + 1) % len(targets)]
                t0 = time.perf_counter()
                load_image(other / "base.png")
                load_image(other / "edited.png")
                floor.append((time.perf_counter() - t0) * 1e3)

        warm = {True: [], False: []}
        shown.clear()
        window.case_list.select(case_ids[1])
        wait_shown(case_ids[1])
        canvas.setFocus()
        for i in range(min(2 * args.jumps, args.cases - 2)):
            with_previews = i % 2 == 0
            window.loader.set_store(store if with_previews else None)
            window.wait_for_background(30000)
            app.processEvents()
            before = window.controller.case.case_id
            shown.clear()
            t0 = time.perf_counter()
            QTest.keyClick(canvas, Qt.Key.Key_N)
            target = window.controller.case.case_id
            assert target != before
            warm[with_previews].append((wait_shown(target) - t0) * 1e3)
        window.close()
        app.processEvents()

        memory = {}
        for with_previews in (True, False):
            done = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--cases",
                    str(args.cases),
                    "--flip",
                    str(root),
                    "01"[with_previews],
                ],
                capture_output=True,
                text=True,
                check=True,
                env=os.environ,
            )
            memory[with_previews] = float(done.stdout.split()[-1])
        if args.labelme:
            images = 2 * args.cases
            done = subprocess.run(
                [
                    args.labelme,
                    str(Path(__file__).with_name("labelme_flip.py")),
                    str(root / "cases"),
                    str(images),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                check=True,
            )
            memory["labelme"] = float(done.stdout.split()[-1])

    f = statistics.median(floor)
    print(
        f"preview cache, {args.cases} paired cases of {args.size}×{args.size} PNGs, "
        f"{os.cpu_count()} cores (shared), offscreen; median / p95 and as ratios to the floor"
    )
    print(f"  floor: decode the pair, one image after the other    {summary(floor, f)}")
    print(f"  cold jump, with previews                             {summary(cold[True], f)}")
    print(f"  cold jump, without previews                          {summary(cold[False], f)}")
    print(f"  warm next, with previews                             {summary(warm[True], f)}")
    print(f"  warm next, without previews                          {summary(warm[False], f)}")
    print(
        f"  peak memory flipping {args.cases} cases: with previews {memory[True]:.0f} MB, "
        f"without {memory[False]:.0f} MB ({memory[True] / memory[False]:.2f}×)"
    )
    if "labelme" in memory:
        print(
            f"  labelme flipping the same {2 * args.cases} images: {memory['labelme']:.0f} MB; "
            f"with previews / labelme {memory[True] / memory['labelme']:.2f}×"
        )
    print(
        f"  making a preview: median {statistics.median(made):.0f} ms per image; the cache "
        f"holds {info.files} previews, {info.bytes / 1e6:.0f} MB "
        f"({info.bytes / info.files / 1e3:.0f} KB each)"
    )
    ended_at = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"  load average (1/5/15 min): start {started_at}, end {ended_at}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
