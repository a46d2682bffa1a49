"""What the GUI thread was doing when it was late: its Python stack, sampled from another
thread while the event loop stalls.

A 1 ms timer on the GUI thread beats a heartbeat; a watcher thread looks every
millisecond and, once the heartbeat is more than ``threshold_ms`` old, samples the GUI
thread's stack (``sys._current_frames``) until the loop runs again. Each stall longer than
``report_ms`` is reported with its length and the stacks seen during it, most frequent first.

The watcher needs the interpreter lock to sample: a stall spent in C code that holds it
shows up as the first Python frame after it (or as no sample at all, which says as much).
It perturbs what it measures a little, so figures are taken without it; use it to find a
stall, then measure with ``StallMeter``.

On Linux each stall also says where the GUI thread's time went, from the scheduler's own
accounting (``/proc/self/task/TID/schedstat``): on a core (running Qt's C++ or Python),
waiting for a core (runnable, but the cores were busy with other threads and processes), and
the rest asleep (blocked on the interpreter lock, a mutex or I/O). The first is work to cut,
the second is contention to take off the window's cores, the third is a lock to shorten.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QTimer

Stack = tuple[str, ...]


@dataclass
class Stall:
    started: float
    length_ms: float = 0.0
    stacks: Counter[Stack] = field(default_factory=Counter)
    #: where the other threads were (their innermost frames), sampled with the GUI thread's
    others: Counter[str] = field(default_factory=Counter)
    #: the GUI thread's (time on a core, time waiting for one), ns, at the stall's start
    sched_start: tuple[int, int] | None = None
    on_core_ms: float | None = None
    waiting_ms: float | None = None

    def where(self) -> str:
        if self.on_core_ms is None or self.waiting_ms is None:
            return ""
        asleep = max(0.0, self.length_ms - self.on_core_ms - self.waiting_ms)
        return (
            f": on a core {self.on_core_ms:.0f} ms, waiting for a core "
            f"{self.waiting_ms:.0f} ms, asleep {asleep:.0f} ms"
        )


def _schedstat(tid: int) -> tuple[int, int] | None:
    """(ns on a core, ns runnable but waiting) of thread ``tid`` so far; None off Linux."""
    try:
        run, wait, _ = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    return int(run), int(wait)


def _stack(frame: object, depth: int) -> Stack:
    frames = traceback.extract_stack(frame)[-depth:]  # type: ignore[arg-type]
    return tuple(f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno} {f.name}" for f in frames)


class StallTracer:
    def __init__(self, threshold_ms: float = 15.0, report_ms: float = 40.0, depth: int = 14):
        self.threshold, self.report_ms, self.depth = threshold_ms / 1e3, report_ms, depth
        self.stalls: list[Stall] = []
        self._beat = time.perf_counter()
        self._main = threading.get_ident()
        self._tid = threading.get_native_id()
        self._sched = _schedstat(self._tid)
        self._timer = QTimer()
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._tick)
        self._stop = threading.Event()
        self._current: Stall | None = None
        self._watcher = threading.Thread(target=self._watch, name="stall-tracer", daemon=True)

    def start(self) -> None:
        self._beat = time.perf_counter()
        self._timer.start()
        self._watcher.start()

    def stop(self) -> None:
        self._timer.stop()
        self._stop.set()
        self._watcher.join(1)

    def _tick(self) -> None:
        now = time.perf_counter()
        stall = self._current
        if stall is not None:
            stall.length_ms = (now - stall.started) * 1e3
            end = _schedstat(self._tid)
            if stall.sched_start is not None and end is not None:
                stall.on_core_ms = (end[0] - stall.sched_start[0]) / 1e6
                stall.waiting_ms = (end[1] - stall.sched_start[1]) / 1e6
            self._current = None
        self._beat = now

    def _watch(self) -> None:
        seen = 0.0
        while not self._stop.wait(0.001):
            beat = self._beat
            if beat != seen:
                # the accounting within a millisecond of the loop's last beat: where a
                # stall that follows it starts
                seen, self._sched = beat, _schedstat(self._tid)
            if time.perf_counter() - beat < self.threshold:
                continue
            stall = self._current
            if stall is None or stall.started != beat:
                stall = self._current = Stall(beat, sched_start=self._sched)
                self.stalls.append(stall)
            frames = sys._current_frames()
            frame = frames.pop(self._main, None)
            if frame is not None:
                stall.stacks[_stack(frame, self.depth)] += 1
            mine = threading.get_ident()
            for ident, other in frames.items():
                if ident != mine:
                    stall.others[" < ".join(_stack(other, 3)[::-1])] += 1

    def stop_and_report(self, title: str, out=sys.stderr) -> None:  # type: ignore[no-untyped-def]
        self.stop()
        print(f"=== {title}", file=out)
        self.report(out)

    def report(self, out=sys.stderr) -> None:  # type: ignore[no-untyped-def]
        long = [s for s in self.stalls if s.length_ms >= self.report_ms]
        print(f"stalls ≥ {self.report_ms:.0f} ms: {len(long)}", file=out)
        for stall in sorted(long, key=lambda s: -s.length_ms):
            samples = sum(stall.stacks.values())
            print(f"--- {stall.length_ms:.0f} ms, {samples} samples{stall.where()}", file=out)
            for stack, count in stall.stacks.most_common(3):
                print(f"  {count} ×", file=out)
                for line in stack:
                    print(f"      {line}", file=out)
            busy = [(w, n) for w, n in stall.others.most_common() if "wait" not in w][:4]
            if busy:
                print("  other threads (samples):", file=out)
                for where, count in busy:
                    print(f"    {count} × {where}", file=out)
