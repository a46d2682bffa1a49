"""CPU-bound work in worker processes: Qt-free, lower priority, at most cores − 1 at once,
held while the case on screen is decoded, and a cancel that reaches a running job."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import pytest

from sabre_desk.core.jobs.process_pool import (
    ASKED_FOR,
    ASKED_NICE,
    WORKER_NICE,
    JobCancelledError,
    ProcessPool,
    default_workers,
    worker_facts,
)
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.io import load_image


class Waiter:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def __call__(self, result: Any, error: BaseException | None) -> None:
        self.result, self.error = result, error
        self.done.set()

    def get(self, timeout: float = 60) -> Any:
        assert self.done.wait(timeout), "the job never came back"
        return self.result


@pytest.fixture
def pool() -> Any:
    pool = ProcessPool(1)
    yield pool
    pool.shutdown()


def run(pool: ProcessPool, fn: Callable[..., Any], *args: Any) -> Waiter:
    waiter = Waiter()
    pool.submit(fn, *args, done=waiter)
    return waiter


def test_a_worker_is_another_process_without_qt_at_lower_priority(pool: ProcessPool) -> None:
    assert "PySide6.QtWidgets" in sys.modules  # this process has Qt
    facts = run(pool, worker_facts).get()
    assert facts["pid"] != os.getpid()
    assert not facts["qt"]  # the window's process has Qt loaded; the worker never does
    if facts["nice"] is not None:
        assert facts["nice"] >= os.nice(0) + 10


def test_a_cancel_ends_the_running_job_and_its_process(pool: ProcessPool) -> None:
    first = run(pool, worker_facts).get()["pid"]
    sleeper = Waiter()
    job = pool.submit(time.sleep, 600, done=sleeper)
    deadline = time.monotonic() + 30
    while pool.running == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pool.running == 1
    pool.cancel(job)
    sleeper.get()
    assert isinstance(sleeper.error, JobCancelledError)
    assert not psutil.pid_exists(first) or psutil.Process(first).status() == "zombie"
    assert run(pool, worker_facts).get()["pid"] != first  # a new worker takes the next job


def test_no_more_jobs_run_at_once_than_the_pool_allows() -> None:
    assert default_workers() == max(1, (os.cpu_count() or 2) - 1)
    pool = ProcessPool(2)
    try:
        waiters = [run(pool, time.sleep, 0.3) for _ in range(5)]
        most = 0
        while not all(w.done.is_set() for w in waiters):
            most = max(most, pool.running)
            time.sleep(0.005)
        assert most == 2
    finally:
        pool.shutdown()


def test_held_jobs_wait_until_the_window_is_done(pool: ProcessPool) -> None:
    run(pool, worker_facts).get()  # the worker is up
    pool.hold(60)
    waiter = run(pool, worker_facts)
    assert not waiter.done.wait(0.5) and pool.running == 0
    pool.release()
    assert waiter.get()["pid"]


def _status(pool: ProcessPool) -> dict[int, str]:
    """The status of each busy worker's process, by pid."""
    return {
        w.process.pid: psutil.Process(w.process.pid).status()
        for w in pool._state.workers
        if w.job is not None and w.process.pid is not None
    }


def _until(condition: Callable[[], bool], what: str) -> None:
    """A signal reaches a process a moment after it is sent."""
    deadline = time.monotonic() + 30
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def test_a_worker_is_lowered_before_its_interpreter_has_started(pool: ProcessPool) -> None:
    """A spawned worker spends its first 150 ms importing: at the window's priority, that
    delayed the decode of the case the reviewer had just jumped to. It starts where what the
    user watches runs (its sweeps' jobs go lower still, each on a thread of its own)."""
    worker = pool._spawn()
    try:
        assert psutil.Process(worker.process.pid).nice() >= os.nice(0) + ASKED_NICE
    finally:
        worker.process.terminate()
        worker.process.join(5)


def test_a_spare_worker_runs_while_the_window_is_idle_and_all_pause_while_it_decodes() -> None:
    pool = ProcessPool(1, spare=1)
    try:
        pids = [run(pool, worker_facts).get()["pid"]]
        sleepers = [run(pool, time.sleep, 600) for _ in range(2)]
        deadline = time.monotonic() + 30
        while pool.running < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert pool.running == 2  # both cores while the reviewer looks
        pool.hold(60)  # a case switch: the window decodes its images on both cores
        stopped = psutil.STATUS_STOPPED
        _until(
            lambda: list(_status(pool).values()) == [stopped, stopped],
            "the workers were not paused",
        )
        assert pids[0] in _status(pool)  # the first worker too, not only the spare one
        waiter = run(pool, worker_facts)
        assert not waiter.done.wait(0.3)  # and nothing new starts
        pool.release()
        _until(lambda: stopped not in _status(pool).values(), "the spare was not continued")
        pool.hold(60)  # a cancel reaches a paused worker too
        for job in [w.job for w in pool._state.workers if w.job is not None]:
            pool.cancel(job)
        for sleeper in sleepers:
            sleeper.get()
            assert isinstance(sleeper.error, JobCancelledError)
        pool.release()
        waiter.get()
    finally:
        pool.shutdown()


def test_a_worker_error_names_the_file_and_the_reason(pool: ProcessPool, tmp_path: Path) -> None:
    missing = tmp_path / "base.png"
    waiter = run(pool, load_image, missing)
    waiter.get()
    assert isinstance(waiter.error, ImageError)
    assert waiter.error.path == missing and "missing" in waiter.error.reason


def test_the_window_runs_its_jobs_in_workers_and_ends_them_on_close(
    qtbot, make_window, open_case, demo_project: Path
) -> None:
    window = make_window()
    open_case(window, demo_project, "ctx01_tape_bagel")
    got: list[Any] = []
    window.jobs.submit(worker_facts, (), lambda result, error: got.append((result, error)))
    qtbot.waitUntil(lambda: bool(got), timeout=30000)
    facts, error = got[0]
    assert error is None and facts["pid"] != os.getpid() and not facts["qt"]
    window.close()
    assert not psutil.pid_exists(facts["pid"]) or psutil.Process(facts["pid"]).status() in (
        "zombie",
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a niceness per thread")
def test_a_job_the_user_watches_runs_above_the_sweeps_in_the_same_worker(
    pool: ProcessPool,
) -> None:
    """A repair (``ASKED_FOR``) runs five steps below the window, the sweeps' jobs ten, one
    after the other in the one worker, in any order: lowering a sweep's job never lowers
    the repair after it. With every job ten below, two other programs busy on both cores
    made a 200×200 repair take 18 s on screen instead of 1."""
    window = os.getpriority(os.PRIO_PROCESS, 0)
    seen = []
    for priority in (0, ASKED_FOR, -10, ASKED_FOR):
        waiter = Waiter()
        pool.submit(worker_facts, done=waiter, priority=priority)
        seen.append((priority, waiter.get()))
    assert len({facts["pid"] for _, facts in seen}) == 1  # one worker ran them all
    assert [facts["nice"] for _, facts in seen] == [
        min(19, window + n) for n in (WORKER_NICE, ASKED_NICE, WORKER_NICE, ASKED_NICE)
    ]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a niceness per thread")
def test_a_job_queued_last_can_still_run_as_one_the_user_watches(pool: ProcessPool) -> None:
    """Where a job waits in the queue and how low it runs are two things: the engine's
    warm-up goes behind every job of the window's, yet the first repair waits for it if it
    is still running, so it runs as a watched job does (and a job of high priority can be
    said not to be watched)."""
    window = os.getpriority(os.PRIO_PROCESS, 0)
    seen = []
    for priority, watched in ((-1, True), (ASKED_FOR, False), (-1, None)):
        waiter = Waiter()
        pool.submit(worker_facts, done=waiter, priority=priority, watched=watched)
        seen.append(waiter.get()["nice"])
    assert seen == [min(19, window + n) for n in (ASKED_NICE, WORKER_NICE, WORKER_NICE)]
