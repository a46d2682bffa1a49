"""What a case switch costs the GUI thread, and how much of it is reading the case.

Opens a generated project (``index_speed.make_project``: tiny images) in the real window
offscreen and switches case by case (``show_case``), letting the event loop run 150 ms
between switches; prints the median GUI-thread time of a switch and, of it, the time in
``Project.load_case`` (spec, reviews, screening, image headers) on the GUI thread. With
``--profile`` it also prints where the switches' time went (cProfile, cumulative).

Usage: python benchmarks/switch_share.py [--cases 10000] [--switches 40] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import make_project

from sabre_desk.core.case.project import Project
from sabre_desk.gui.app import make_app
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.settings import load_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--switches", type=int, default=40)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    root = Path(tempfile.mkdtemp(prefix="switch-share-")) / "project"
    make_project(root, args.cases)
    os.environ["HOME"] = tempfile.mkdtemp(prefix="switch-share-home-")
    app = make_app()
    window = MainWindow("bench", load_settings()[0])
    window.resize(1366, 768)
    window.show()
    reading: list[float] = []
    load_case = Project.load_case

    def timed(project: Project, case_id: str):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        case = load_case(project, case_id)
        if threading.current_thread() is threading.main_thread():
            reading.append(time.perf_counter() - start)
        return case

    Project.load_case = timed  # type: ignore[method-assign]

    def run_loop(ms: float) -> None:
        end = time.perf_counter() + ms / 1000
        while time.perf_counter() < end:
            app.processEvents()

    window.open_project(root)
    run_loop(3000)
    profile = cProfile.Profile()
    switches: list[tuple[float, float]] = []
    for i in range(1, args.switches + 1):
        reading.clear()
        start = time.perf_counter()
        if args.profile:
            profile.enable()
        window.show_case(f"case{i:06d}")
        if args.profile:
            profile.disable()
        switches.append((time.perf_counter() - start, sum(reading)))
        run_loop(150)
    whole = statistics.median(s for s, _ in switches) * 1000
    read = statistics.median(r for _, r in switches) * 1000
    share = statistics.median(r / s for s, r in switches)
    print(
        f"a switch on the GUI thread: {whole:.1f} ms median; reading the case "
        f"(load_case): {read:.2f} ms median, {share:.0%} of the switch"
    )
    if args.profile:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
