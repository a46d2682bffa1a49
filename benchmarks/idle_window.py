"""What an open window costs while nobody touches it: CPU and wake-ups of an idle window.

Generates a project of 10,000 cases (tiny images: the index, the live poll and the
background sweeps are what scale with the project, not the pixels), starts the real window
on it in a child process (offscreen), lets it settle, then samples ``/proc`` for a while:

* CPU: ``utime + stime`` of the window's process and of every process it started (the
  worker processes of background jobs), as a percentage of one core;
* wake-ups: voluntary context switches summed over every thread of the window's process
  (a thread that sleeps and is woken again counts one), per second;
* the load average at the start and the end (the machine is shared: read the figures
  against it).

With ``--timeline`` it prints each ``--step`` seconds of the settling too, so one can see
the background sweeps finish and the window fall asleep.

Usage: python benchmarks/idle_window.py [--cases 10000] [--settle 20] [--seconds 30]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from index_speed import make_project

TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)


def _descendants(pid: int) -> list[int]:
    """*pid* and every live process below it."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(parents.get(p, []))
    return out


def _wakeups(pid: int) -> dict[int, int]:
    """Voluntary context switches of each thread of *pid*, by thread id."""
    out: dict[int, int] = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return out
    for task in tasks:
        try:
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    out[int(task.name)] = int(line.split()[1])
        except OSError:
            continue
    return out


class Sample:
    def __init__(self, pid: int):
        self.at = time.monotonic()
        self.own = _cpu_ticks(pid)
        self.tree = {p: _cpu_ticks(p) for p in _descendants(pid)}
        self.wakeups = _wakeups(pid)


def _between(a: Sample, b: Sample) -> tuple[float, float, float]:
    """% of a core (window), % of a core (window and its workers), wake-ups a second."""
    seconds = b.at - a.at
    own = (b.own - a.own) / TICKS / seconds * 100
    tree = sum(t - a.tree.get(p, 0) for p, t in b.tree.items()) / TICKS / seconds * 100
    woken = sum(n - a.wakeups.get(tid, 0) for tid, n in b.wakeups.items())  # threads come, go
    return own, tree, woken / seconds


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=10_000)
    ap.add_argument("--settle", type=float, default=20.0, help="seconds before measuring, at least")
    ap.add_argument(
        "--settle-max",
        type=float,
        default=900.0,
        help="seconds to wait at most for the background sweeps to finish (the window and its "
        "workers below 3 %% of a core over one step)",
    )
    ap.add_argument("--seconds", type=float, default=30.0, help="seconds measured")
    ap.add_argument("--timeline", action="store_true", help="also print the settling")
    ap.add_argument("--step", type=float, default=5.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        print(f"making {args.cases:,} cases…", flush=True)
        make_project(root, args.cases)
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SABRE_DESK_CONFIG_DIR=tmp)
        child = subprocess.Popen(
            [sys.executable, "-m", "sabre_desk", "open", str(root), "--reviewer", "bench"],
            env=env,
            cwd=tmp,  # sabre_desk from PYTHONPATH or the installed package, not from here
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            start = Sample(child.pid)
            mark, quiet = start, False
            while True:
                elapsed = time.monotonic() - start.at
                if (elapsed >= args.settle and quiet) or elapsed >= args.settle_max:
                    break
                time.sleep(args.step)
                now = Sample(child.pid)
                own, tree, wake = _between(mark, now)
                quiet = tree < 3.0
                if args.timeline:
                    print(
                        f"  t={now.at - start.at:5.1f} s: window {own:6.2f} % of a core, "
                        f"with workers {tree:6.2f} %, {wake:6.1f} wake-ups/s",
                        flush=True,
                    )
                mark = now
            settled = time.monotonic() - start.at
            load_start = _load()
            a = Sample(child.pid)
            time.sleep(args.seconds)
            b = Sample(child.pid)
            load_end = _load()
            if child.poll() is not None:
                sys.exit(f"the window exited early (code {child.returncode})")
            own, tree, wake = _between(a, b)
            print(
                f"idle window, {args.cases:,} cases, {args.seconds:.0f} s after "
                f"{settled:.0f} s of settling (background sweeps "
                f"{'finished' if quiet else 'still running'}):"
            )
            print(f"  CPU: {own:.2f} % of a core (goal ≤ 0.5 %); with its workers {tree:.2f} %")
            print(f"  wake-ups: {wake:.1f} a second, all threads (goal ≤ 5)")
            print(f"  load average (1/5/15 min): start {load_start}, end {load_end}")
        finally:
            child.terminate()
            try:
                child.wait(15)
            except subprocess.TimeoutExpired:
                child.kill()


if __name__ == "__main__":
    main()
