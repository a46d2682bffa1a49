"""The bundle's loops (compiled ahead of time) against numba's, repair for repair.

The loops are compiled as ``packaging/build.sh`` compiles them (``packaging/compile_loops.py``);
then processes of each kind run in turn (numba's, then the ahead-of-time module's with numba
made unimportable, as in the bundle), each timing ``--repeats`` repairs of a 200×200 box on
the demo's tex01 through the repair pipeline after one untimed repair, and printing the
median. Run in turn, the two meet the same load on a shared machine.

Usage: python benchmarks/compiled_loops.py [--rounds 3] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(ahead_of_time: bool, repeats: int) -> float:
    """The median seconds of ``repeats`` repairs in this process."""
    if ahead_of_time:
        sys.modules["numba"] = None  # type: ignore[assignment]  # as in the bundle
    from first_repair import _scene

    from sabre_desk.engines.base import RepairOp
    from sabre_desk.engines.pipeline import RepairOrder, run_repair
    from sabre_desk.engines.registry import make_engine
    from sabre_desk.imaging.loops import compiled_loops

    assert (type(compiled_loops()).__name__ == "_Checked") == ahead_of_time
    image, box = _scene(200)
    order = RepairOrder(box, RepairOp.REMOVE, "remove the smear")
    engine = make_engine("patchmatch")
    run_repair(image, order, engine)  # loads (or compiles) the loops
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run_repair(image, order, engine)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--child", choices=("numba", "ahead"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(child(args.child == "ahead", args.repeats))
        return
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="compiled-loops-") as folder:
        script = ROOT / "packaging" / "compile_loops.py"
        subprocess.run([sys.executable, str(script), folder], check=True)
        figures: dict[str, list[float]] = {"numba": [], "ahead": []}
        for _ in range(args.rounds):
            for kind in figures:
                env = {**os.environ, "PYTHONPATH": folder} if kind == "ahead" else None
                out = subprocess.run(
                    [sys.executable, __file__, "--child", kind, "--repeats", str(args.repeats)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                figures[kind].append(float(out.stdout.strip().splitlines()[-1]))
    for kind, label in (("numba", "numba's loops"), ("ahead", "compiled ahead of time")):
        seconds = ", ".join(f"{s:.2f}" for s in figures[kind])
        print(f"200×200 repair, {label}: {seconds} s (median of {args.repeats} per process)")
    ratio = statistics.median(figures["ahead"]) / statistics.median(figures["numba"])
    print(f"ahead of time / numba: {ratio:.2f}×")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
