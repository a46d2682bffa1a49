"""What the window's entry imports before its first paint, and how long that takes.

Runs ``python -c "import sabre_desk.gui.app"`` (what ``sabre-desk open`` and the windowed
launcher import before they build the window) in fresh processes, interleaved with the
floor: ``import PySide6.QtWidgets`` alone, which any Qt window pays. With ``--other PATH``
(a checkout of another version of sabre-desk) that version's import runs interleaved too,
for a ratio in one run. Prints medians, the ratio to the floor, the load average at the
start and end, whether OpenCV, the Gemini client or numba were loaded, and the slowest
imports of sabre-desk's own modules (``-X importtime``, cumulative).

Usage: python benchmarks/startup_imports.py [--runs 7] [--other /path/to/old/checkout]
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

ENTRY = "import sabre_desk.gui.app"
FLOOR = "import PySide6.QtWidgets"
DEFERRED = ("cv2", "google.genai", "numba")
HERE = str(Path(__file__).resolve().parents[1])


def _run(code: str, path: str) -> float:
    env = dict(os.environ, PYTHONPATH=path)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, cwd=tempfile.gettempdir(), check=True)
    return (time.perf_counter() - t0) * 1e3


def _loaded(path: str) -> list[str]:
    code = f"{ENTRY}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    env = dict(os.environ, PYTHONPATH=path)
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    )
    modules = set(json.loads(done.stdout.splitlines()[-1]))
    return [name for name in DEFERRED if name in modules]


def _slowest(path: str, n: int = 8) -> list[tuple[int, str]]:
    env = dict(os.environ, PYTHONPATH=path)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", ENTRY],
        env=env,
        cwd=tempfile.gettempdir(),
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[2].strip().startswith("sabre_desk"):
            try:
                rows.append((int(parts[1]), parts[2].strip()))
            except ValueError:
                continue
    return sorted(rows, reverse=True)[:n]


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--other", help="another checkout's root, measured interleaved")
    args = parser.parse_args()
    variants = {"floor (PySide6.QtWidgets)": (FLOOR, HERE), "this checkout": (ENTRY, HERE)}
    if args.other:
        variants["other checkout"] = (ENTRY, args.other)
    times: dict[str, list[float]] = {name: [] for name in variants}
    load_start = _load()
    for code, path in variants.values():  # warm the file cache first
        _run(code, path)
    for _ in range(args.runs):
        for name, (code, path) in variants.items():
            times[name].append(_run(code, path))
    load_end = _load()
    floor = statistics.median(times["floor (PySide6.QtWidgets)"])
    print(f"start-up imports ({ENTRY}), {args.runs} runs interleaved, median:")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"  {name:<28} {med:7.0f} ms   {med / floor:5.2f}× the floor")
    if args.other:
        ratio = statistics.median(times["this checkout"]) / statistics.median(
            times["other checkout"]
        )
        print(f"  this checkout / other checkout: {ratio:.2f}×")
    for name, (code, path) in variants.items():
        if code == ENTRY:
            print(f"  {name}: loads {', '.join(_loaded(path)) or 'none'} of {', '.join(DEFERRED)}")
    print("  slowest of sabre-desk's own imports here (cumulative, one run):")
    for us, module in _slowest(HERE):
        print(f"    {us / 1e3:7.0f} ms  {module}")
    print(f"  load average (1/5/15 min): start {load_start}, end {load_end}")


if __name__ == "__main__":
    main()
