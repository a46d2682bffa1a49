"""Background jobs: a plain function run on a thread pool, its outcome handed to callbacks
on the GUI thread.

The function runs on a pool thread and must not touch widgets. A job is plain Python and
owns no Qt object, so whichever thread lets go of it last, nothing of Qt's is destroyed
there. The one QObject a pool thread emits on is its pool's relay, a child of the pool:
Qt deletes it only after the pool has waited for its threads, so no emit can be under
way when it goes, and neither a garbage collection nor a dropped reference can end it
sooner. A job whose pool is deleted before its outcome arrives (its window was closed)
reports nothing.

Jobs are started as callables: a QRunnable handed to ``QThreadPool.start`` is kept by
PySide as a child of the pool until the pool itself goes, and with it everything the job
holds — every image decode of a long session. A job taken back before it started
(``withdraw``) is passed over when its turn comes.

A pool thread runs below the GUI thread's CPU priority (``yield_to_gui_thread``), a screen
pool's less far below than the others (``screen_pool``): on two
cores, two decoding threads at the window's own priority left the GUI thread waiting for a
core for half of its longest stalls (the scheduler's accounting, measured by
``benchmarks/stall_scenarios.py --trace``); at a lower priority they lose nothing when the
cores are otherwise free.
"""

from __future__ import annotations

import contextlib
import enum
import sys
import threading
import weakref
from collections.abc import Callable
from typing import Any, ClassVar

import shiboken6
from PySide6.QtCore import QObject, Qt, QThread, QThreadPool, Signal, Slot

from sabre_desk.core.jobs.process_pool import PER_THREAD_NICENESS, lower_thread, worker_niceness

#: How many steps of niceness the threads of a screen pool (``screen_pool``: the images the
#: reviewer is waiting for, and every job the user started and watches) run below the GUI
#: thread (Linux); a weight about a third of the GUI thread's, so the window gets a core
#: whenever it wants one.
POOL_THREAD_NICE = 5
#: ...and the threads of every other pool (reading ahead, hashing, indexing, the team's
#: reads): far below those (a weight about a thirtieth of the GUI thread's), so none of
#: them takes a core from the two decodes of a jump or from the window; with the cores
#: free they run at full speed. (Until each job lowered its thread from where it was, they
#: all sank to 19 within three jobs, the images on screen included.)
BACKGROUND_NICE = 15

_screen_pools: weakref.WeakSet[QThreadPool] = weakref.WeakSet()


def screen_pool(parent: QObject, threads: int) -> QThreadPool:
    """A pool for work the reviewer is waiting to see: the images on screen, and what the
    user started and watches (the demo, an Edited image, a model's repair, an upgrade…),
    its threads at POOL_THREAD_NICE; keep it for that alone, as a thread once lowered
    cannot be raised again. Among the background pools such work crawled whenever other
    programs kept the cores busy (the demo: 87 s instead of 4)."""
    pool = QThreadPool(parent)
    pool.setMaxThreadCount(threads)
    _screen_pools.add(pool)
    return pool


def yield_to_gui_thread(step: int = POOL_THREAD_NICE) -> None:
    """Run the calling thread *step* steps below the window's CPU priority.

    Linux keeps a niceness per thread (``setpriority`` on the thread's id). The target is
    the window's niceness (its main thread's: the process id) plus the step, never the
    thread's own plus the step: a pool thread's Python state (and anything kept in it) is
    made anew for each job, and a thread lowered again from where it was sank a step per
    job, to the floor. Never raises: a thread that cannot be lowered runs as before."""
    if PER_THREAD_NICENESS:
        lower_thread(worker_niceness(step))
        return
    thread = QThread.currentThread()
    if thread is not None:
        thread.setPriority(QThread.Priority.LowPriority)


class Callbacks:
    """What to call with one kind of outcome, in the order connected (on the GUI thread)."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[..., object]] = []

    def connect(self, callback: Callable[..., object]) -> None:
        self._callbacks.append(callback)

    def __call__(self, *args: object) -> None:
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            receiver = getattr(callback, "__self__", None)
            if isinstance(receiver, shiboken6.Object) and not shiboken6.isValid(receiver):
                continue  # a method of a Qt object deleted meanwhile, as Qt would drop it
            try:
                callback(*args)
            except Exception:  # one failing callback neither stops the others nor the job
                sys.excepthook(*sys.exc_info())


class _State(enum.Enum):
    QUEUED = "queued"
    RUNNING = "running"
    WITHDRAWN = "withdrawn"


class Worker:
    """``Worker(fn, *args).start(pool)``; ``returned``/``errored`` get the result or the
    exception, then ``finished`` is called either way (not for a withdrawn job)."""

    def __init__(self, fn: Callable[..., Any], *args: Any, **kwargs: Any):
        self._call: tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]] | None = (
            fn,
            args,
            kwargs,
        )
        self.returned, self.errored, self.finished = Callbacks(), Callbacks(), Callbacks()
        self._lock = threading.Lock()
        self._state = _State.QUEUED
        self._relay: _Relay | None = None
        self._step = BACKGROUND_NICE  # set by ``start`` from the pool it is given
        self._outcome: tuple[bool, Any] | None = None

    def start(self, pool: QThreadPool, priority: int = 0) -> None:
        """Queue the job on *pool* (from the GUI thread)."""
        relay = pool.findChild(_Relay, options=Qt.FindChildOption.FindDirectChildrenOnly)
        self._relay = relay if relay is not None else _Relay(pool)
        self._relay.pending.add(self)
        self._step = POOL_THREAD_NICE if pool in _screen_pools else BACKGROUND_NICE
        pool.start(self._run, priority)

    def _run(self) -> None:
        """On a pool thread: call the function unless the job was withdrawn, and send the
        outcome to the GUI thread. Never raises (the pool would not report it)."""
        with self._lock:
            if self._state is not _State.QUEUED or self._call is None:
                return
            self._state = _State.RUNNING
        yield_to_gui_thread(self._step)
        fn, args, kwargs = self._call
        try:
            self._outcome = (True, fn(*args, **kwargs))
        except BaseException as exc:  # every failure reaches the GUI thread
            self._outcome = (False, exc)
        relay = self._relay
        if relay is not None:
            with contextlib.suppress(RuntimeError):  # the application is quitting
                relay.arrived.emit(self)

    def withdraw(self) -> bool:
        """Take the job back if it has not started; True when it never will."""
        with self._lock:
            if self._state is not _State.QUEUED:
                return False
            self._state = _State.WITHDRAWN
        self._let_go()
        return True

    def _deliver(self) -> None:
        """On the GUI thread, from the relay: hand the outcome to the callbacks."""
        outcome = self._outcome
        returned, errored, finished = self.returned, self.errored, self.finished
        self._let_go()
        if outcome is not None:
            ok, value = outcome
            (returned if ok else errored)(value)
        finished()

    def _let_go(self) -> None:
        """Drop what the job holds, here on the GUI thread: a pool thread may hold the job
        itself a moment longer, but then nothing in it."""
        if self._relay is not None:
            self._relay.pending.discard(self)
        self._call = self._relay = self._outcome = None
        self.returned, self.errored, self.finished = Callbacks(), Callbacks(), Callbacks()

    @classmethod
    def in_flight(cls) -> int:
        """Jobs started and neither delivered nor withdrawn, on pools still alive."""
        return sum(len(r.pending) for r in list(_Relay.every) if shiboken6.isValid(r))


class _Relay(QObject):
    """A pool's outcomes, carried to the GUI thread by one queued signal."""

    arrived = Signal(object)  # the Worker whose outcome is ready
    every: ClassVar[weakref.WeakSet[_Relay]] = weakref.WeakSet()

    def __init__(self, pool: QThreadPool):
        super().__init__(pool)
        self.pending: set[Worker] = set()
        self.arrived.connect(self._deliver, Qt.ConnectionType.QueuedConnection)
        _Relay.every.add(self)

    @Slot(object)
    def _deliver(self, worker: Worker) -> None:
        worker._deliver()
