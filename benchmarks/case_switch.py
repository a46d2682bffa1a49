"""Time a case switch (key press → both images painted) on 2048×2048 PNG pairs.

Builds a project of 200 paired cases (10 distinct 2048×2048 pairs, hard-linked so every case
has its own files and is decoded separately), opens the real window offscreen and reports:

* the floor: decoding the same PNG pair with the app's decoder, one after the other;
* cold switches: nothing cached or prefetched (the reviewer jumped somewhere new);
* warm switches: the reviewer looked at the case long enough for the neighbours to be
  prefetched, as when reviewing in order;
* the largest GUI-thread stall while flipping through all 200 cases as fast as keys repeat
  (a 1 ms timer measures how late the event loop runs).

With ``--metadata-cases N`` the project also holds N cases with tiny images (a large project
whose images the reviewer has not reached yet), and it reports what scale costs: project
open → first case painted, a decision → saved and counted (largest GUI-thread stall), and a
filter change → rows shown. ``--trace MS`` prints, for every stall of the flip of at least
MS ms, what the GUI thread was doing (``StallTracer``; it perturbs the figures a little).

Usage: python benchmarks/case_switch.py [--cases 200] [--size 2048] [--metadata-cases 99800]
       [--trace 30]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from sabre_desk.core.desk.workbench import Go

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import cv2
import numpy as np
from PIL import Image

SPEC = {
    "concept_id": "",
    "pressure_test_type": "context_prior",
    "generation_mode": "paired_edit",
    "base_prompt": "a scene",
    "edit_prompt": "change one object",
    "questions": [
        {
            "probe_id": "edited_target",
            "image_role": "edited",
            "question_type": "yes_no",
            "prompt": "Is it there?",
            "answer": "yes",
            "eval_type": "yes_no_exact",
        }
    ],
}


def photo_like(size: int, seed: int) -> np.ndarray:
    """Smooth shading, shapes and fine noise: compresses like a real render, not like noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
    img = np.stack([120 + 90 * xx, 100 + 80 * yy, 140 + 60 * (1 - xx * yy)], axis=2)
    img = img.astype(np.uint8)
    for _ in range(40):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        x, y, r = (int(v) for v in rng.integers(0, size, 3))
        cv2.circle(img, (x, y), r // 8 + 5, c, -1, cv2.LINE_AA)
    noise = rng.normal(0, 3, img.shape[:2])[:, :, None]
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def make_project(root: Path, n: int, size: int) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 1, "name": "switch benchmark"})
    )
    pairs = []
    for k in range(10):
        files = []
        for role, seed in (("base", 2 * k), ("edited", 2 * k + 1)):
            path = root / f"{role}{k}.png"
            buf = io.BytesIO()
            Image.fromarray(photo_like(size, seed)).save(buf, "PNG", compress_level=6)
            path.write_bytes(buf.getvalue())
            files.append(path)
        pairs.append(files)
    for i in range(n):
        folder = root / "cases" / f"case{i:04d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(SPEC | {"concept_id": f"c{i}"}))
        base, edited = pairs[i % 10]
        os.link(base, folder / "base.png")
        os.link(edited, folder / "edited.png")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def to_todays_format(root: Path) -> None:
    """The project brought to today's format, as a reviewer's would be: a project of an
    earlier format is scanned whole before it opens (2.3 s at 100,000 cases), every time
    until it is upgraded."""
    from sabre_desk.core.upgrade.upgrade import upgrade_project

    upgrade_project(root)


def add_metadata_cases(root: Path, n: int) -> None:
    """*n* more cases with 64×48 images, hard-linked (filesystems cap links per file)."""
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (120, 130, 140)).save(buf, "PNG")
    for i in range(n):
        png = root / f"tiny{i // 30_000}.png"
        if i % 30_000 == 0:
            png.write_bytes(buf.getvalue())
        folder = root / "cases" / f"meta{i:06d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(SPEC | {"concept_id": f"m{i}"}))
        os.link(png, folder / "base.png")
        os.link(png, folder / "edited.png")


def decode_floor(root: Path, pairs: int = 3) -> list[float]:
    """Milliseconds to decode each of the first *pairs* pairs, one image after the other."""
    from sabre_desk.imaging.io import load_image

    floor = []
    for k in range(pairs):
        t0 = time.perf_counter()
        load_image(root / f"base{k}.png")
        load_image(root / f"edited{k}.png")
        floor.append((time.perf_counter() - t0) * 1e3)
    return floor


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, max(0, round(q * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--size", type=int, default=2048)
    parser.add_argument("--metadata-cases", type=int, default=0)
    parser.add_argument("--trace", type=float, default=0.0, metavar="MS")
    args = parser.parse_args()

    from event_loop import AppLoop
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from stall_meter import StallMeter
    from stall_tracer import StallTracer

    from sabre_desk.gui.app import make_app
    from sabre_desk.gui.main_window import MainWindow
    from sabre_desk.imaging.io import load_image
    from sabre_desk.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabre-switch-") as tmp:
        os.environ["SABRE_DESK_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "project"
        make_project(root, args.cases, args.size)
        add_metadata_cases(root, args.metadata_cases)
        to_todays_format(root)
        total = args.cases + args.metadata_cases
        mb = (root / "base0.png").stat().st_size / 1e6

        floor = []
        for k in range(5):
            t0 = time.perf_counter()
            load_image(root / f"base{k}.png")
            load_image(root / f"edited{k}.png")
            floor.append((time.perf_counter() - t0) * 1e3)

        load_start = _load()
        app = make_app()
        window = MainWindow("bench", Settings())
        window.show()
        shown: list[str] = []
        window.images_shown.connect(shown.append)
        indexed: list[object] = []
        window.index_reader.finished.connect(indexed.append)

        loop = AppLoop(app)

        def wait_shown(case_id: str, timeout: float = 30.0) -> None:
            loop.until(lambda: case_id in shown, timeout, case_id)

        t_open = time.perf_counter()
        window.open_project(root, "case0000")
        wait_shown("case0000")
        open_ms = (time.perf_counter() - t_open) * 1e3
        canvas = window.compare.canvases[next(iter(window.compare.canvases))]

        def switch(key: Qt.Key) -> float:
            before = window.controller.case.case_id
            shown.clear()
            t0 = time.perf_counter()
            QTest.keyClick(canvas, key)
            target = window.controller.case.case_id
            assert target != before
            wait_shown(target)
            return (time.perf_counter() - t0) * 1e3

        canvas.setFocus()
        warm = []
        for _ in range(30):  # reviewing in order: neighbours prefetched while looking
            window.pool.waitForDone()
            app.processEvents()
            warm.append(switch(Qt.Key.Key_N))
        cold = []
        for _ in range(15):  # jumping to somewhere new: nothing cached
            window.pool.waitForDone()
            app.processEvents()
            window.loader.clear()
            cold.append(switch(Qt.Key.Key_N))

        # Flip through every case as fast as the keys come; a 1 ms timer measures stalls.
        window.case_list.go(Go.FIRST)
        window.pool.waitForDone()
        app.processEvents()
        meter = StallMeter()
        tracer = StallTracer(report_ms=args.trace) if args.trace else None
        meter.start()
        if tracer is not None:
            tracer.start()
        for _ in range(args.cases - 1):
            QTest.keyClick(canvas, Qt.Key.Key_N)
            loop.run_for(0.03)  # ~33 key repeats per second
        meter.stop()
        if tracer is not None:
            tracer.stop_and_report(f"flipping through {args.cases} cases")
        gaps = meter.gaps
        window.pool.waitForDone()
        flipped = window.controller.case.case_id

        # A decision: saved (the status says so) and counted, while a meter watches; the
        # counts are whole once the index is (it is read behind, a few seconds at 100,000).
        loop.until(lambda: bool(indexed), 120, "the index")
        decision_stalls = []
        window.case_list.go(Go.FIRST)
        wait_shown(window.controller.case.case_id)
        for _ in range(10):
            window.pool.waitForDone()
            app.processEvents()
            before = window.case_list.progress.text()
            meter = StallMeter()
            meter.start()
            QTest.keyClick(canvas, Qt.Key.Key_2)  # Needs recheck: no validity verdict first
            loop.until(
                lambda before=before: (
                    window.status.save_label.property("state") == "saved"
                    and window.case_list.progress.text() != before
                ),
                what="the decision saved and counted",
            )
            loop.run_for(0.05)
            meter.stop()
            decision_stalls.append(meter.largest)
            QTest.keyClick(canvas, Qt.Key.Key_N)
            wait_shown(window.controller.case.case_id)

        # Filters: time from the change to the list painted with its first rows.
        filters = []
        for change in (
            lambda: window.case_list.filter.setText("case01"),
            lambda: window.case_list.filter.setText(""),
            lambda: window.case_list.decision_filter.setCurrentIndex(1),  # Not reviewed
            lambda: window.case_list.decision_filter.setCurrentIndex(0),
        ):
            t0 = time.perf_counter()
            change()
            window.case_list.view.viewport().repaint()
            app.processEvents()
            filters.append((time.perf_counter() - t0) * 1e3)
        window.close()
        QApplication.processEvents()

    print(
        f"case switch, {total:,} cases ({args.cases} with {args.size}×{args.size} PNG pairs, "
        f"{mb:.1f} MB each), {os.cpu_count()} cores, offscreen"
    )
    f = statistics.median(floor)
    print(f"  project open → first case painted          {open_ms:8.1f} ms")
    print(f"  floor: decode the pair        median {f:6.1f} ms")
    print(
        f"  warm (prefetched)  median {statistics.median(warm):6.1f} ms   "
        f"p95 {pct(warm, 0.95):6.1f} ms = {pct(warm, 0.95) / f:.2f}× the floor   (n={len(warm)})"
    )
    print(
        f"  cold (nothing cached) median {statistics.median(cold):6.1f} ms   "
        f"p95 {pct(cold, 0.95):6.1f} ms = {pct(cold, 0.95) / f:.2f}× the floor   (n={len(cold)})"
    )
    print(
        f"  flipping through {args.cases} cases: largest GUI-thread stall "
        f"{max(gaps):.1f} ms = {max(gaps) / f:.2f}× the floor, p99 {pct(gaps, 0.99):.1f} ms "
        f"(ended on {flipped})"
    )
    print(
        f"  a decision → saved and counted: largest GUI-thread stall median "
        f"{statistics.median(decision_stalls):.1f} ms, max {max(decision_stalls):.1f} ms"
    )
    print(
        "  filter change → rows painted: "
        + ", ".join(f"{ms:.0f} ms" for ms in filters)
        + " (text 'case01', cleared, Not reviewed, all)"
    )
    print(f"  load average (1/5/15 min): start {load_start}, end {_load()}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
