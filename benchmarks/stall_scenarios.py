"""The largest GUI-thread stall in each of the reviewer's everyday scenarios, in one run.

Builds a project of paired 2048×2048 PNG cases inside a larger one of small cases (as
``case_switch.py --metadata-cases``), opens the real window offscreen and measures, with a
1 ms timer on the GUI thread (``StallMeter``), the largest gap in its event loop during:

* paced next: N, then a second looking at the case, ten times;
* fast flip: N at key-repeat speed (every 30 ms) through 60 cases;
* a decision with auto-advance: Needs recheck, saved, on to the next case, ten times;
* a filter with text, then cleared;
* the live poll of the whole project (what every poll of other people's changes costs);
* a full garbage collection on the GUI thread (what the collector's oldest pass costs).

Each is printed in milliseconds and in frames of a 60 Hz screen (16.7 ms), with the floor
(decoding one pair, one image after the other) of the same run and the load average at the
start and the end. Between key presses the script sleeps in Qt's event loop as the
application does (``event_loop.py``). ``--trace MS`` also prints, for every stall of at
least MS ms, what the GUI thread was doing (``StallTracer``; it perturbs the figures a
little).

Usage: python benchmarks/stall_scenarios.py [--cases 40] [--metadata-cases 10000] [--trace 30]
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from case_switch import add_metadata_cases, decode_floor, make_project, to_todays_format

FRAME_MS = 1000 / 60


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _project(tmp: Path, cases: int, size: int, small: int) -> tuple[Path, list[float]]:
    """The project (and the settings folder) in *tmp*, and the floor measured on it."""
    os.environ["SABRE_DESK_CONFIG_DIR"] = str(tmp / "config")
    root = tmp / "project"
    make_project(root, cases, size)
    add_metadata_cases(root, small)
    to_todays_format(root)
    return root, decode_floor(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option, default in (("--cases", 40), ("--metadata-cases", 10_000), ("--size", 2048)):
        parser.add_argument(option, type=int, default=default)
    parser.add_argument("--trace", type=float, default=0.0, metavar="MS")
    args = parser.parse_args()

    from event_loop import AppLoop
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from stall_meter import StallMeter
    from stall_tracer import StallTracer

    from sabre_desk.core.desk.workbench import Go
    from sabre_desk.gui.app import make_app
    from sabre_desk.gui.main_window import MainWindow
    from sabre_desk.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabre-stalls-") as tmp:
        root, floor = _project(Path(tmp), args.cases, args.size, args.metadata_cases)
        load_start = _load()
        app = make_app()
        window = MainWindow("bench", Settings(auto_advance=True))
        window.resize(1560, 900)
        window.show()
        shown: list[str] = []
        window.images_shown.connect(shown.append)

        loop = AppLoop(app)
        run_for = loop.run_for

        def wait_shown(case_id: str, timeout: float = 30.0) -> None:
            loop.until(lambda: case_id in shown, timeout, case_id)

        window.open_project(root, "case0000")
        wait_shown("case0000")
        run_for(3.0)  # the index read behind, the first sweeps queued
        canvas = window.compare.canvases[next(iter(window.compare.canvases))]
        canvas.setFocus()
        results: dict[str, float] = {}

        def measure(name: str, scenario: Callable[[], None]) -> None:
            window.wait_for_background(30000)
            run_for(0.3)
            meter, tracer = StallMeter(), StallTracer(report_ms=args.trace) if args.trace else None
            if tracer is not None:
                tracer.start()
            meter.start()
            scenario()
            meter.stop()
            if tracer is not None:
                tracer.stop_and_report(name)
            results[name] = meter.largest

        def paced() -> None:
            for _ in range(10):
                QTest.keyClick(canvas, Qt.Key.Key_N)
                run_for(1.0)

        def flip() -> None:
            for _ in range(60):
                QTest.keyClick(canvas, Qt.Key.Key_N)
                run_for(0.03)
            run_for(0.5)

        def decide() -> None:
            for _ in range(10):
                QTest.keyClick(canvas, Qt.Key.Key_2)  # Needs recheck, then auto-advance
                run_for(0.4)

        def filter_text() -> None:
            window.case_list.filter.setText("case001")
            run_for(0.3)
            window.case_list.filter.setText("")
            run_for(0.3)

        def live_poll() -> None:
            live = window.team_ui.live
            for _ in range(3):
                live.poll_project()
                run_for(1.0)

        def collection() -> None:
            for _ in range(3):
                gc.collect()
                run_for(0.2)

        measure("paced next (1 s dwell)", paced)
        window.case_list.go(Go.FIRST)
        measure("fast flip (30 ms a key)", flip)
        window.case_list.go(Go.FIRST)
        measure("decision, auto-advance", decide)
        measure("filter with text, cleared", filter_text)
        measure("live poll of the project", live_poll)
        measure("full garbage collection", collection)
        window.close()
        app.processEvents()
        load_end = _load()

    f = statistics.median(floor)
    total = args.cases + args.metadata_cases
    print(
        f"GUI-thread stalls, {total:,} cases ({args.cases} with {args.size}² PNG pairs), "
        f"{os.cpu_count()} cores (shared), offscreen; floor (decode a pair) {f:.0f} ms"
    )
    for name, ms in results.items():
        print(
            f"  {name:<28} largest stall {ms:6.1f} ms = {ms / FRAME_MS:4.1f} frames "
            f"= {ms / f:4.2f}× the floor"
        )
    print(f"  load average (1/5/15 min): start {load_start}, end {load_end}")


if __name__ == "__main__":
    main()
