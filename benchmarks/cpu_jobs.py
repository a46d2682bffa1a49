"""CPU-bound work while the reviewer flips through cases: does the window stay first?

One run, on the real window offscreen with 200 paired cases of 2048×2048 PNGs (key N every
500 ms, full decodes: no previews), scenarios interleaved over several repetitions:

* baseline: nothing else running;
* 4 OpenCV (Telea) repairs of large boxes on threads of the window's process (as before);
* the same 4 repairs in worker processes (as now: a spare worker while the window is idle);
* the same with no spare worker (one core left to the window at all times, as before);
* the change-map sweep running flat out (no idle wait) in a worker process.

For each: case switch median / p95 (key press → both images painted), the largest GUI-thread
stall (a 1 ms timer), and for the repairs the time until all 4 landed; ratios to baseline.

Usage: python benchmarks/cpu_jobs.py [--reps 3] [--cases 200]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

from case_switch import decode_floor, make_project, pct

SCENARIOS = (
    "baseline",
    "repairs on threads",
    "repairs in processes",
    "repairs, no spare",
    "change-map sweep",
)
BOX = (0.3, 0.3, 0.55, 0.55)  # 512×512 pixels of a 2048×2048 image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--switches", type=int, default=16)
    parser.add_argument(
        "--only", nargs="+", choices=SCENARIOS, default=SCENARIOS, help="run these (baseline kept)"
    )
    parser.add_argument(
        "--trace-stalls",
        type=float,
        metavar="MS",
        help="print the GUI thread's stack during every stall longer than MS (perturbs timing)",
    )
    args = parser.parse_args()
    scenarios = [s for s in SCENARIOS if s == "baseline" or s in args.only]

    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtTest import QTest
    from stall_meter import StallMeter
    from stall_tracer import StallTracer

    from sabre_desk.core.case.spec import ImageRole
    from sabre_desk.engines.base import RepairOp
    from sabre_desk.engines.opencv import TeleaEngine
    from sabre_desk.engines.pipeline import RepairOrder
    from sabre_desk.gui.app import make_app
    from sabre_desk.gui.main_window import MainWindow
    from sabre_desk.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabre-cpu-") as tmp:
        os.environ["SABRE_DESK_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = Path(tmp) / "project"
        make_project(root, args.cases, 2048)
        floor = decode_floor(root)

        app = make_app()
        ticker = QTimer()  # wakes the loop below every 2 ms: it waits, it does not spin
        ticker.start(2)

        def wait_for_events() -> None:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents)

        window = MainWindow("bench", Settings())
        window.resize(1560, 900)
        window.show()
        shown: list[str] = []
        window.images_shown.connect(shown.append)

        def pump_until(ok, timeout: float = 120.0) -> None:  # type: ignore[no-untyped-def]
            deadline = time.perf_counter() + timeout
            while not ok():
                wait_for_events()
                if time.perf_counter() > deadline:
                    raise TimeoutError

        window.open_project(root, "case0000")
        pump_until(lambda: "case0000" in shown)
        window.previews.sweep.stop()
        window.changes_ui.shutdown()
        window.loader.set_store(None)  # full decodes, as before the preview cache
        canvas = window.compare.canvases[ImageRole.EDITED]
        jobs = window.repair_ui.jobs
        processes = jobs.processes
        spare = getattr(window.jobs.pool, "spare", 0)  # (the code before the spare worker)
        project = window.project
        engine = TeleaEngine()
        order = RepairOrder(BOX, RepairOp.REMOVE, "")
        # warm the worker process up (spawn and imports) before anything is timed
        warm: list[object] = []
        window.jobs.submit(len, ((),), lambda r, e: warm.append(r))
        pump_until(lambda: bool(warm))

        landed: list[float] = []
        results = {name: {"switch": [], "stall": [], "total": []} for name in scenarios}
        position = 0
        for rep in range(args.reps):
            for name in scenarios:
                window.wait_for_background(60000)
                landed.clear()
                started = time.perf_counter()
                if hasattr(window.jobs.pool, "spare"):
                    window.jobs.pool.spare = 0 if name == "repairs, no spare" else spare
                if name.startswith("repairs"):
                    jobs.processes = None if name.endswith("threads") else processes
                    for k in range(4):
                        case = project.load_case(f"case{(position + 100 + 7 * k) % args.cases:04d}")
                        job = jobs.submit(case, ImageRole.EDITED, order, engine)
                        del job
                    jobs.landed.connect(lambda *a: landed.append(time.perf_counter()))
                    jobs.failed.connect(lambda j, m: print("repair failed:", m))
                if name == "change-map sweep":
                    window.changes_ui.idle_sweep._idle_ms = 0
                    window.changes_ui.sweep(project)
                meter = StallMeter()
                meter.start()
                tracer = StallTracer(report_ms=args.trace_stalls) if args.trace_stalls else None
                if tracer is not None:
                    tracer.start()
                switches = 0
                while switches < args.switches or (name.startswith("repairs") and len(landed) < 4):
                    canvas.setFocus()
                    before = window.controller.case.case_id
                    shown.clear()
                    t0 = time.perf_counter()
                    QTest.keyClick(canvas, Qt.Key.Key_N)
                    target = window.controller.case.case_id
                    if target == before:  # the end of the list: back to the start
                        window.case_list.select("case0000")
                        pump_until(lambda: "case0000" in shown)
                        continue
                    pump_until(lambda t=target: t in shown)
                    results[name]["switch"].append((time.perf_counter() - t0) * 1e3)
                    switches += 1
                    position += 1
                    deadline = t0 + 0.5
                    while time.perf_counter() < deadline:
                        wait_for_events()
                meter.stop()
                if tracer is not None:
                    tracer.stop()
                    print(f"rep {rep + 1} {name}:", file=sys.stderr)
                    tracer.report()
                results[name]["stall"].append(meter.largest)
                if landed:
                    results[name]["total"].append(max(landed) - started)
                    jobs.landed.disconnect()
                    jobs.failed.disconnect()
                if name == "change-map sweep":
                    window.changes_ui.shutdown()
                print(f"rep {rep + 1} {name}: done", file=sys.stderr)
        window.close()
        app.processEvents()

    base = results["baseline"]
    b_med, b_p95 = statistics.median(base["switch"]), pct(base["switch"], 0.95)
    b_stall = max(base["stall"])
    print(
        f"CPU-bound work while flipping cases: {args.cases} cases of 2048×2048 PNG pairs, key N "
        f"every 500 ms, {args.reps} repetitions interleaved, {os.cpu_count()} cores (shared); "
        f"decode floor of a pair {statistics.median(floor):.0f} ms"
    )
    print(
        f"  {'':24} {'switch median':>16} {'switch p95':>16} {'largest stall':>16} "
        f"{'4 repairs landed':>18}"
    )
    for name in scenarios:
        r = results[name]
        med, p95, stall = statistics.median(r["switch"]), pct(r["switch"], 0.95), max(r["stall"])
        total = f"{statistics.median(r['total']):7.1f} s" if r["total"] else "—"
        print(
            f"  {name:24} {med:6.0f} ms {med / b_med:4.2f}× {p95:6.0f} ms {p95 / b_p95:4.2f}× "
            f"{stall:6.0f} ms {stall / b_stall:4.2f}× {total:>18}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
