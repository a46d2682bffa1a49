"""CPU-bound jobs in worker processes, so they can never hold the window's interpreter.

OpenCV's inpainting, the change map and the making of previews spend much of their time in
Python and numpy code that holds the GIL; on a thread of the window's own process they make
the window late by hundreds of milliseconds (measured in ``benchmarks/cpu_jobs.py``). Here
each job runs in a process of its own interpreter, started with ``spawn`` (no copy of the
window's state, Qt never imported: a job is a function of the Qt-free core and its
arguments, sent by pickle), and the pool keeps the window first:

* at most ``workers`` jobs at once, by default one fewer than the machine has cores, while
  the window works; ``spare`` more (by default up to every core) while it waits for the
  reviewer, the extra ones paused (SIGSTOP; suspended on Windows) the moment it works again;
* workers run at a lower OS priority, so a decode the reviewer waits for wins every
  contended core: a job the user asked for and watches (``ASKED_FOR``: a repair) five steps
  below the window, every other job (previews made ahead, change maps) ten, on a thread of
  its own lowered so far (Linux keeps a niceness per thread; elsewhere the whole worker
  runs "below normal"). With every job at ten, two other programs busy on both cores made
  a repair of a 200×200 box take 18 s on screen instead of 1. A job may be queued behind
  the window's and still run at five (``watched``): the engine's warm-up, which the first
  repair waits for if it is still running;
* ``hold`` (the window decodes the case on screen) keeps queued jobs from starting and
  pauses every running one, until ``release``: a jump to a case never shown decodes its two
  images on both cores, and a background job left running on one of them (a change map, a
  preview made ahead) kept the jump's decodes waiting for a core (the scheduler's accounting
  during jumps, in ``docs/performance.md``);
* a worker is lowered the moment it is started, by the pool: a spawned interpreter spends
  its first 150 ms or more importing, and at the window's priority that was enough to delay
  the decode the reviewer was waiting for;
* ``cancel`` reaches a running job: its worker process is terminated (and another started
  when next needed), which is safe because a job only writes files atomically.

Results and errors come back through ``done(result, error)``, called on the pool's own
thread; the caller moves them to wherever it needs them.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

#: How much lower than the window (POSIX nice increments) a worker runs what the user asked
#: for and watches (jobs of ``ASKED_FOR`` priority or more)...
ASKED_NICE = 5
#: ...and every other job
WORKER_NICE = 10
#: The priority of a job the user asked for and watches (a repair of the box on screen).
ASKED_FOR = 10
#: Whether each thread has a niceness of its own (Linux); elsewhere a worker runs every job
#: at ``WORKER_NICE`` ("below normal" on Windows).
PER_THREAD_NICENESS = sys.platform.startswith("linux")

Done = Callable[[Any, BaseException | None], None]


class JobCancelledError(Exception):
    """The job was cancelled before or while it ran."""


def default_workers() -> int:
    """One fewer than the cores: one stays with the window."""
    return max(1, (os.cpu_count() or 2) - 1)


def default_spare(workers: int) -> int:
    """Workers beyond *workers* while the window is idle: up to every core."""
    return max(0, (os.cpu_count() or 2) - workers)


def _pause(process: BaseProcess, paused: bool) -> None:
    """Stop or continue a worker's process where it is (it keeps its memory and its job)."""
    with contextlib.suppress(OSError, ValueError):
        if sys.platform == "win32":
            import psutil

            with contextlib.suppress(psutil.Error):
                target = psutil.Process(process.pid)
                target.suspend() if paused else target.resume()
        elif process.pid is not None:
            os.kill(process.pid, signal.SIGSTOP if paused else signal.SIGCONT)


def worker_niceness(nice: int = WORKER_NICE) -> int:
    """The niceness a worker of this process runs at: *nice* steps below this one's."""
    return min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + nice)


def set_niceness(pid: int, niceness: int) -> None:
    """Lower process *pid* (0: this one) to *niceness*, never raising it (POSIX; does
    nothing where there is no such call, or for a process gone already)."""
    with contextlib.suppress(OSError, AttributeError):
        if os.getpriority(os.PRIO_PROCESS, pid) < niceness:
            os.setpriority(os.PRIO_PROCESS, pid, niceness)


def lower_thread(niceness: int) -> None:
    """Lower the calling thread alone to *niceness* (where threads have a niceness of their
    own; elsewhere nothing): the window's pool threads and a worker's sweep jobs."""
    if PER_THREAD_NICENESS:
        set_niceness(threading.get_native_id(), niceness)


def lower_priority(niceness: int) -> None:
    """Make this process yield to the window for the CPU, on one core (OpenCV would
    otherwise spread one job over every core, the window's too)."""
    import cv2

    cv2.setNumThreads(1)
    if sys.platform == "win32":
        with contextlib.suppress(OSError, ImportError):
            import psutil

            psutil.Process().nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
    else:
        set_niceness(0, niceness)


def worker_facts() -> dict[str, Any]:
    """What a worker is: its process id, its niceness, whether Qt was ever imported."""
    return {
        "pid": os.getpid(),
        "nice": os.nice(0) if hasattr(os, "nice") else None,
        "qt": any(name.split(".")[0] == "PySide6" for name in sys.modules),
    }


def run_each(fn: Callable[..., Any], calls: list[tuple[Any, ...]]) -> list[Any]:
    """``fn(*args)`` for each of *calls*, in one job: many quick calls then cost one round
    trip between processes, not one each. A call that fails gives None; the rest go on."""
    out: list[Any] = []
    for args in calls:
        try:
            out.append(fn(*args))
        except Exception:  # one case's failure is that case's, as with one job each
            out.append(None)
    return out


def _call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[bool, Any]:
    try:
        return True, fn(*args)
    except BaseException as exc:  # every failure goes back to the one who asked
        return False, exc


def _call_lowered(fn: Callable[..., Any], args: tuple[Any, ...], niceness: int) -> tuple[bool, Any]:
    """``fn(*args)`` on a thread of its own at *niceness*: the worker's own thread stays
    where it is, as a thread once lowered can never be raised again."""
    outcome: list[tuple[bool, Any]] = []

    def run() -> None:
        lower_thread(niceness)
        outcome.append(_call(fn, args))

    thread = threading.Thread(target=run, name="lowered-job")
    thread.start()
    thread.join()
    return outcome[0]


def _worker_main(conn: Connection, asked: int, niceness: int) -> None:
    """A worker's loop: at *asked* niceness itself, every job below ``ASKED_FOR`` lowered to
    *niceness* on a thread of its own (where threads have none, both are the same)."""
    lower_priority(asked)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job_id, fn, args, watched = message
        if watched or not PER_THREAD_NICENESS:
            ok, value = _call(fn, args)
        else:
            ok, value = _call_lowered(fn, args, niceness)
        reply: tuple[int, bool, Any] = (job_id, ok, value)
        try:
            conn.send(reply)
        except Exception as exc:  # a result or an error that cannot be pickled
            conn.send((job_id, False, RuntimeError(f"{type(exc).__name__}: {exc}")))


@dataclass(eq=False)
class Job:
    id: int
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    priority: int
    done: Done
    #: runs at the niceness of what the user watches (``ASKED_NICE``), whatever its place
    watched: bool
    cancelled: bool = False
    finished: bool = False


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection
    job: Job | None = None
    paused: bool = False
    #: given its job, not yet sent it: never paused then (the send would wait for it)
    sending: bool = False


@dataclass
class _State:
    queue: list[tuple[int, int, Job]] = field(default_factory=list)
    workers: list[_Worker] = field(default_factory=list)
    held_until: float = 0.0
    closed: bool = False


class ProcessPool:
    def __init__(
        self,
        workers: int | None = None,
        nice: int = WORKER_NICE,
        spare: int = 0,
        asked_nice: int = ASKED_NICE,
    ):
        self.size = workers or default_workers()
        self.spare = spare
        self.nice = nice
        self.asked_nice = min(asked_nice, nice)
        self._ctx = multiprocessing.get_context("spawn")
        self._state = _State()
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._wake_r, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._thread: threading.Thread | None = None
        self._idle = threading.Condition(self._lock)

    # --- the caller's side --------------------------------------------------------------

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        done: Done,
        priority: int = 0,
        watched: bool | None = None,
    ) -> Job:
        """Run ``fn(*args)`` in a worker; higher *priority* first, then first come. It runs
        at the niceness of a job the user watches if *watched*, by default if its priority
        is ``ASKED_FOR`` or more: a job queued last may still be one a watched job will
        wait for (the engine's warm-up, while the first repair is asked for)."""
        if watched is None:
            watched = priority >= ASKED_FOR
        job = Job(next(self._ids), fn, args, priority, done, watched)
        with self._lock:
            if self._state.closed:
                raise RuntimeError("the process pool is shut down")
            heapq.heappush(self._state.queue, (-priority, job.id, job))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="process-pool", daemon=True)
                self._thread.start()
        self._wake()
        return job

    def cancel(self, job: Job) -> None:
        """Stop *job*: taken off the queue, or its worker terminated if it is running.
        ``done`` is then called with a JobCancelledError (unless it had finished)."""
        with self._lock:
            if job.finished or job.cancelled:
                return
            job.cancelled = True
            queued = [entry for entry in self._state.queue if entry[2] is job]
            for entry in queued:
                self._state.queue.remove(entry)
            heapq.heapify(self._state.queue)
            for worker in [w for w in self._state.workers if w.job is job]:
                self._end(worker)
        if queued:
            self._finish(job, None, JobCancelledError("cancelled before it started"))
        self._wake()

    def hold(self, seconds: float) -> None:
        """The window is busy for *seconds* (or until ``release``): start no queued job, and
        pause the running ones where they are (a job being handed over is paused once it
        has been sent)."""
        with self._lock:
            self._state.held_until = time.monotonic() + seconds
            for worker in self._state.workers:
                if worker.job is not None and not worker.paused and not worker.sending:
                    worker.paused = True
                    _pause(worker.process, True)
        self._wake()

    def release(self) -> None:
        with self._lock:
            self._state.held_until = 0.0
        self._wake()

    def _resume_all(self) -> None:
        for worker in self._state.workers:
            if worker.paused:
                worker.paused = False
                _pause(worker.process, False)

    def _end(self, worker: _Worker) -> None:
        """Terminate a worker's process (continued first if paused, or it would not die)."""
        with contextlib.suppress(OSError, AttributeError):
            worker.process.terminate()
        if worker.paused:
            worker.paused = False
            _pause(worker.process, False)

    @property
    def running(self) -> int:
        with self._lock:
            return sum(1 for w in self._state.workers if w.job is not None)

    @property
    def workers(self) -> int:
        """Worker processes alive (busy or idle)."""
        with self._lock:
            return sum(1 for w in self._state.workers if w.process.is_alive())

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._state.queue) + sum(1 for w in self._state.workers if w.job)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no job is queued or running; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._idle:
            while self._state.queue or any(w.job for w in self._state.workers):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(min(left, 0.1))
        return True

    def shutdown(self) -> None:
        """Cancel everything and end the workers."""
        with self._lock:
            self._state.closed = True
            queued = [job for _, _, job in self._state.queue]
            self._state.queue.clear()
            workers = list(self._state.workers)
            for worker in workers:
                if worker.job is not None:
                    worker.job.cancelled = True
                self._end(worker)
        for job in queued:
            job.cancelled = True
            self._finish(job, None, JobCancelledError("the pool was shut down"))
        self._wake()
        if self._thread is not None:
            self._thread.join(5)
        for worker in workers:
            worker.process.join(2)

    # --- the pool's thread --------------------------------------------------------------

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send_bytes(b"!")

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._state.closed and not any(w.job for w in self._state.workers):
                    return
                starting = self._take_jobs()
            # Starting a process and sending a job (pickling its arguments, a write the
            # worker must read) take milliseconds to tens of them: never under the lock the
            # window takes to hold, release, submit or cancel.
            self._hand_over(starting)
            with self._lock:
                busy = {w.conn: w for w in self._state.workers if w.job is not None}
                held = self._state.held_until - time.monotonic()
                waiting = self._state.queue or any(w.paused for w in self._state.workers)
            timeout = held if held > 0 and waiting else None
            ready = wait([self._wake_r, *busy], timeout)
            for conn in ready:
                if conn is self._wake_r:
                    while self._wake_r.poll():
                        self._wake_r.recv_bytes()
                else:
                    self._collect(busy[conn])  # type: ignore[index]

    def _take_jobs(self) -> list[tuple[_Worker | None, Job]]:
        """(under the lock) The jobs that may start now, each with the idle worker it is
        given (reserved), or None where a worker is to be started for it."""
        state = self._state
        if state.closed or state.held_until > time.monotonic():
            return []
        self._resume_all()
        state.workers = [w for w in state.workers if w.job is not None or w.process.is_alive()]
        idle = [w for w in state.workers if w.job is None]
        busy = len(state.workers) - len(idle)
        taken: list[tuple[_Worker | None, Job]] = []
        while state.queue and busy < self.size + self.spare:
            _, _, job = heapq.heappop(state.queue)
            worker = idle.pop(0) if idle else None
            if worker is not None:
                worker.job, worker.sending = job, True
            taken.append((worker, job))
            busy += 1
        return taken

    def _hand_over(self, starting: list[tuple[_Worker | None, Job]]) -> None:
        """Send each job to its worker, starting a worker where it has none; a job that
        cannot be sent (arguments that cannot be pickled, no process to be had) ends with
        that error, and its worker is free again (or dropped, if it is gone)."""
        for reserved, job in starting:
            worker = reserved
            try:
                if job.cancelled:  # meanwhile: a reserved worker was ended by the cancel
                    raise JobCancelledError("cancelled before it started")
                if worker is None:
                    worker = self._spawn()
                    with self._lock:
                        worker.job, worker.sending = job, True
                        self._state.workers.append(worker)
                        if self._state.closed:
                            self._end(worker)
                            raise JobCancelledError("the pool was shut down")
                worker.conn.send((job.id, job.fn, job.args, job.watched))
                with self._lock:
                    worker.sending = False
                    if self._state.held_until > time.monotonic() and not worker.paused:
                        worker.paused = True  # held while it was being sent
                        _pause(worker.process, True)
            except Exception as exc:
                if worker is not None:
                    with self._lock:
                        worker.job, worker.sending = None, False
                        if not worker.process.is_alive() and worker in self._state.workers:
                            self._state.workers.remove(worker)
                cancelled = job.cancelled and not isinstance(exc, JobCancelledError)
                self._finish(job, None, JobCancelledError("cancelled") if cancelled else exc)

    def _spawn(self) -> _Worker:
        """A new worker process (not yet among the pool's workers)."""
        parent, child = self._ctx.Pipe()
        niceness = worker_niceness(self.nice)
        asked = worker_niceness(self.asked_nice) if PER_THREAD_NICENESS else niceness
        process = self._ctx.Process(
            target=_worker_main,
            args=(child, asked, niceness),
            name="sabre-desk-worker",
            daemon=True,
        )
        process.start()
        if process.pid is not None and sys.platform != "win32":
            set_niceness(process.pid, asked)  # before its interpreter has even started
        child.close()
        return _Worker(process, parent)

    def _collect(self, worker: _Worker) -> None:
        job = worker.job
        try:
            _, ok, value = worker.conn.recv()
        except (EOFError, OSError):  # the worker ended: cancelled, killed or crashed
            with self._lock:
                worker.job = None
                self._state.workers.remove(worker)
            worker.process.join(2)
            if job is not None:
                error = (
                    JobCancelledError("cancelled while it ran")
                    if job.cancelled
                    else RuntimeError(
                        f"a worker process ended (exit code {worker.process.exitcode})"
                    )
                )
                self._finish(job, None, error)
            return
        with self._lock:
            worker.job = None
        if job is not None:
            if job.cancelled:
                self._finish(job, None, JobCancelledError("cancelled while it ran"))
            else:
                self._finish(job, value if ok else None, None if ok else value)

    def _finish(self, job: Job, result: Any, error: BaseException | None) -> None:
        with self._lock:
            if job.finished:
                return
            job.finished = True
        try:
            job.done(result, error)
        finally:
            with self._idle:
                self._idle.notify_all()
