"""A background pass over the project that yields to the reviewer: one job at a time, and
only after the reviewer has not moved between cases for a moment.

The change-map sweep (flags in the case list) and the preview sweep (previews on disk) are
both such passes; each job competes for the machine with the window, so a reviewer flipping
through cases must not feel them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QObject, QTimer

IDLE_MS = 800  # a sweep waits this long after the reviewer's last case switch
GAP_MS = 30

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
        self._queue: list[tuple[Any, ...]] = []
        self._cancel: Callable[[], None] | None = None
        self._idle_ms = idle_ms
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._next)

    @property
    def remaining(self) -> int:
        return len(self._queue)

    @property
    def running(self) -> bool:
        return self._cancel is not None

    def start(self, items: Iterable[tuple[Any, ...]]) -> None:
        """Replace what is left to do with *items* (argument tuples for the job)."""
        self.stop()
        self._queue = list(items)
        self._timer.start(self._idle_ms)

    def note_activity(self) -> None:
        """The reviewer did something: hold the sweep back for a moment."""
        if self._queue:
            self._timer.start(self._idle_ms)

    def _next(self) -> None:
        if self._cancel is not None or not self._queue:
            return
        args = self._queue.pop(0)

        def done(result: Any, error: Any) -> None:
            self._done(args, result, error)

        self._cancel = self._submit(self._job, args, done)

    def _done(self, args: tuple[Any, ...], result: Any, error: Any) -> None:
        self._cancel = None
        if self._on_result is not None:
            self._on_result(args, result if error is None else None)
        if self._queue and not self._timer.isActive():
            self._timer.start(GAP_MS)

    def stop(self) -> None:
        self._timer.stop()
        self._queue = []
        cancel, self._cancel = self._cancel, None
        if cancel is not None:
            cancel()
