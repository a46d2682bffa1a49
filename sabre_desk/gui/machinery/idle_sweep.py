"""A background pass over the project that yields to the reviewer: one job at a time, and
only after the reviewer has not moved between cases for a moment.

The change-map sweep (flags in the case list) and the preview sweep (previews on disk) are
both such passes; each job competes for the machine with the window, so a reviewer flipping
through cases must not feel them.

Cases whose job is quick (a preview already on disk, small images) go in batches: one
round trip between processes and one wake-up of the window for many cases, not one each.
The batch grows while a job takes well under a tenth of a second and shrinks when one takes
longer, so a job stays short whatever the images (with 10,000 small cases, one a job kept
the window awake two hundred times a second for minutes).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from PySide6.QtCore import QObject, QTimer

from sabre_desk.core.jobs.process_pool import run_each

IDLE_MS = 800  # a sweep waits this long after the reviewer's last case switch
GAP_MS = 30
QUICK_S = 0.05  # a batch done faster than this doubles
SLOW_S = 0.2  # one slower than this halves
MAX_BATCH = 64

#: Runs ``fn(*args)`` in the background and calls back on the GUI thread with
#: ``(result, error)``; returns a function that cancels the job.
Submit = Callable[
    [Callable[..., Any], tuple[Any, ...], Callable[[Any, Any], None]], Callable[[], None]
]


class IdleSweep(QObject):
    def __init__(
        self,
        submit: Submit,
        job: Callable[..., Any],
        on_result: Callable[[Any, Any], None] | None = None,
        idle_ms: int = IDLE_MS,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self._submit, self._job, self._on_result = submit, job, on_result
        self._queue: deque[tuple[Any, ...]] = deque()
        self._rest: Iterator[tuple[Any, ...]] | None = None  # jobs not read yet
        #: jobs to do before the queue's (the cases just ahead of the reviewer); each is in
        #: the queue too, and skipped there once done (``_taken``)
        self._first: deque[tuple[Any, ...]] = deque()
        self._taken: set[tuple[Any, ...]] = set()
        self._cancel: Callable[[], None] | None = None
        self._idle_ms = idle_ms
        self._busy: Callable[[], bool] = lambda: False
        self.batch = 1  # cases in the next job
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next)

    @property
    def through(self) -> bool:
        """Every job has been handed out (or the sweep was stopped)."""
        return not self._first and not self._fill(1)

    def upcoming(self, n: int) -> list[tuple[Any, ...]]:
        """The next *n* jobs, in the order they will be handed out."""
        out: list[tuple[Any, ...]] = []
        for args in self._first:
            if len(out) < n and args not in self._taken and args not in out:
                out.append(args)
        index = 0
        while len(out) < n and self._fill(index + 1):
            args = self._queue[index]
            if args not in self._taken and args not in out:
                out.append(args)
            index += 1
        return out

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, items: Iterable[tuple[Any, ...]]) -> None:
        """Replace what is left to do with *items* (argument tuples for the job), read as
        the sweep goes: making 100,000 of them at once, when the index completes, held the
        window for a third of a second."""
        self.stop()
        self._rest = iter(items)
        self._timer.start(self._idle_ms)

    def _fill(self, n: int) -> bool:
        """At least *n* jobs in the queue, if there are as many left; False if not."""
        while len(self._queue) < n and self._rest is not None:
            try:
                self._queue.append(next(self._rest))
            except StopIteration:
                self._rest = None
        return len(self._queue) >= n

    def put_first(self, items: Iterable[tuple[Any, ...]]) -> None:
        """Do *items* (jobs of this sweep, in this order) before the rest: what the
        reviewer is about to reach. Replaces the last such list; costs only its length
        (a scan of 100,000 queued cases at each case switch was itself a stall)."""
        self._first = deque(args for args in items if args not in self._taken)

    def wait_while(self, busy: Callable[[], bool]) -> None:
        """Hand out no job while ``busy()`` (work the reviewer asked for and waits on, a
        repair: on a laptop of two cores a sweep's job in the other worker is a core taken
        from it), looking again after the idle wait."""
        self._busy = busy

    def note_activity(self) -> None:
        """The reviewer did something: hold the sweep back for a moment."""
        if not self.through:
            self._timer.start(self._idle_ms)

    def _take(self, n: int) -> list[tuple[Any, ...]]:
        calls: list[tuple[Any, ...]] = []
        for source in (self._first, self._queue):
            while len(calls) < n and (source or (source is self._queue and self._fill(1))):
                args = source.popleft()
                if args not in self._taken:
                    self._taken.add(args)
                    calls.append(args)
        return calls

    def _next(self) -> None:
        if self._cancel is not None:
            return
        if self._busy():
            self._timer.start(self._idle_ms)
            return
        calls = self._take(self.batch)
        if not calls:
            return
        started = time.monotonic()

        def done(results: Any, error: Any) -> None:
            self._done(calls, results, error, time.monotonic() - started)

        self._cancel = self._submit(run_each, (self._job, calls), done)

    def _done(self, calls: list[tuple[Any, ...]], results: Any, error: Any, seconds: float) -> None:
        self._cancel = None
        if seconds < QUICK_S:
            self.batch = min(MAX_BATCH, 2 * self.batch)
        elif seconds > SLOW_S:
            self.batch = max(1, self.batch // 2)
        if self._on_result is not None:
            if error is not None or not isinstance(results, list):
                results = [None] * len(calls)
            for args, result in zip(calls, results, strict=True):
                self._on_result(args, result)
        if not self.through and not self._timer.isActive():
            self._timer.start(GAP_MS)

    def stop(self) -> None:
        self._timer.stop()
        self._queue, self._first, self._taken = deque(), deque(), set()
        self._rest = None
        cancel, self._cancel = self._cancel, None
        if cancel is not None:
            cancel()
