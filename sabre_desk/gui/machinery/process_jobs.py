"""The window's side of the process pool: jobs submitted from the GUI thread, results
delivered back on it (queued signals), and a hold while the case on screen is decoded."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from sabre_desk.core.jobs.process_pool import ProcessPool, default_spare, default_workers

#: Queued jobs wait at most this long for the case on screen to be painted.
HOLD_S = 2.0


class ProcessJobs(QObject):
    _arrived = Signal(object, object, object)  # done callback, result, error

    def __init__(self, workers: int | None = None, parent: QObject | None = None):
        super().__init__(parent)
        size = workers or default_workers()
        # Every core while the window waits for the reviewer; one left to it while it works.
        self.pool = ProcessPool(size, spare=default_spare(size))
        # The pool calls back on its own thread; the queued connection brings it here.
        self._arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    def submit(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        done: Callable[[Any, Any], None],
        priority: int = 0,
        watched: bool | None = None,
    ) -> Callable[[], None]:
        """Run ``fn(*args)`` in a worker process; ``done(result, error)`` on the GUI thread.
        Returns the function that cancels the job (running or not). *priority* and
        *watched* as ``ProcessPool.submit`` takes them."""
        job = self.pool.submit(
            fn, *args, done=lambda r, e: self._send(done, r, e), priority=priority, watched=watched
        )
        return lambda: self.pool.cancel(job)

    def _send(self, done: Callable[[Any, Any], None], result: Any, error: Any) -> None:
        with contextlib.suppress(RuntimeError):  # the window is gone (quitting)
            self._arrived.emit(done, result, error)

    @Slot(object, object, object)
    def _deliver(self, done: Callable[[Any, Any], None], result: Any, error: Any) -> None:
        done(result, error)

    def hold(self) -> None:
        """The window is decoding the case on screen: start no background job for now, and
        pause the ones running on the core left to the window."""
        self.pool.hold(HOLD_S)

    def release(self) -> None:
        self.pool.release()

    def wait_idle(self, timeout_ms: int) -> bool:
        return self.pool.wait_idle(timeout_ms / 1000)

    def shutdown(self) -> None:
        self.pool.shutdown()
