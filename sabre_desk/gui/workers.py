"""Background jobs: a QRunnable that calls a plain function and reports by signals.

The function runs on a pool thread and must not touch widgets; its result or exception is
delivered to the GUI thread through queued signals. Each job keeps itself alive (a strong
reference in ``_running``) until its thread is past its last emit, so Python never collects
a job, or destroys its signals object, while a pool thread is still emitting on it: the
"finished" slot can run on the GUI thread before ``emit`` has returned on the pool thread,
and a garbage collection then would destroy a QObject in the middle of its own emission.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal

#: How often the GUI thread looks again whether a finished job's thread is past its emits.
RELEASE_RETRY_MS = 5


class WorkerSignals(QObject):
    returned = Signal(object)
    errored = Signal(object)
    finished = Signal()


class Worker(QRunnable):
    _running: ClassVar[set[Worker]] = set()

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any):
        super().__init__()
        self.setAutoDelete(False)
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.signals = WorkerSignals()
        self._emitted = threading.Event()  # run() is past its last emit

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Exception as exc:  # every failure reaches the GUI's one error handler
            self._emit(self.signals.errored, exc)
        else:
            self._emit(self.signals.returned, result)
        finally:
            self._emit(self.signals.finished)
            self._emitted.set()

    @staticmethod
    def _emit(signal: Any, *args: object) -> None:
        # RuntimeError: the signals object is gone (the application is quitting).
        with contextlib.suppress(RuntimeError):
            signal.emit(*args)

    def start(self, pool: QThreadPool, priority: int = 0) -> None:
        Worker._running.add(self)
        self.signals.finished.connect(self._release)
        pool.start(self, priority)

    def _release(self) -> None:
        """On the GUI thread, once "finished" arrived: let go of the job when its thread has
        returned from the emit, else look again in a moment."""
        if self._emitted.is_set():
            Worker._running.discard(self)
        else:
            QTimer.singleShot(RELEASE_RETRY_MS, self._release)

    def forget(self) -> None:
        """Release a job taken back from the pool before it ran."""
        Worker._running.discard(self)

    def withdraw(self, pool: QThreadPool) -> bool:
        """Take the job back if it has not started; True when it never will."""
        if pool.tryTake(self):
            self.forget()
            return True
        return False

    @classmethod
    def in_flight(cls) -> int:
        return len(cls._running)
