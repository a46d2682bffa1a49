"""Background jobs on the window's pools: outcomes on the GUI thread, nothing kept once
delivered, and a job taken back before its turn never runs."""

from __future__ import annotations

import os
import sys
import threading
import weakref

import numpy as np
import pytest
import shiboken6
from PySide6.QtCore import QObject, QThreadPool

from sabre_desk.gui.machinery.workers import (
    BACKGROUND_NICE,
    POOL_THREAD_NICE,
    Worker,
    screen_pool,
)
from sabre_desk.gui.main_window import MainWindow


def brightest(image: np.ndarray) -> int:
    return int(image.max())


def test_a_delivered_job_keeps_nothing_of_what_it_was_given(qtbot, window: MainWindow) -> None:
    """A session's thousands of decodes and polls must not pile up in memory: once a job's
    outcome is delivered, the images it was given are freed."""
    given: list[weakref.ref[np.ndarray]] = []
    results: list[tuple[int, bool]] = []
    for i in range(12):
        image = np.full((512, 512, 3), i, np.uint8)
        given.append(weakref.ref(image))
        worker = Worker(brightest, image)
        worker.returned.connect(
            lambda value: results.append(
                (value, threading.current_thread() is threading.main_thread())
            )
        )
        worker.start(window.pool)
        del image, worker
    qtbot.waitUntil(lambda: len(results) == 12, timeout=10000)
    assert sorted(results) == [(i, True) for i in range(12)]  # each on the GUI thread
    assert window.wait_for_background(5000)
    assert [ref() is None for ref in given] == [True] * 12
    assert Worker.in_flight() == 0


def test_a_job_taken_back_before_its_turn_never_runs(qtbot) -> None:
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    gate = threading.Event()
    ran: list[str] = []
    first = Worker(gate.wait, 10)
    second = Worker(ran.append, "second")
    reported: list[str] = []
    second.returned.connect(lambda _: reported.append("returned"))
    second.finished.connect(lambda: reported.append("finished"))
    first.start(pool)
    second.start(pool)
    assert Worker.in_flight() >= 2
    assert second.withdraw()  # still waiting behind the first
    assert not second.withdraw()
    gate.set()
    assert pool.waitForDone(5000)
    qtbot.wait(50)
    assert ran == [] and reported == []
    assert not first.withdraw()  # it ran


def test_the_method_of_a_qt_object_deleted_meanwhile_is_not_called(qtbot) -> None:
    """As Qt drops a connection to a deleted receiver: the window went, its decode came."""
    pool = QThreadPool()
    gate = threading.Event()

    got: list[object] = []

    class Receiver(QObject):
        def take(self, value: object) -> None:
            got.append(value)

    gone, kept = Receiver(), []
    worker = Worker(lambda: gate.wait(10) and "decoded")
    worker.returned.connect(gone.take)
    worker.returned.connect(kept.append)
    worker.start(pool)
    shiboken6.delete(gone)
    gate.set()
    qtbot.waitUntil(lambda: kept == ["decoded"], timeout=5000)
    assert got == []
    assert pool.waitForDone(5000)


def _niceness() -> int:
    """The niceness of the calling thread (Linux keeps one per thread)."""
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's"
)


@linux_only
def test_pool_threads_yield_the_cores_to_the_gui_thread(qtbot, window: MainWindow) -> None:
    """A decode on every pool thread must not keep the window waiting for a core: pool
    threads run at a lower priority than the GUI thread (Linux: each thread's niceness)."""
    seen: list[int] = []
    for _ in range(3):
        worker = Worker(_niceness)
        worker.returned.connect(seen.append)
        worker.start(window.pool)
    qtbot.waitUntil(lambda: len(seen) == 3, timeout=5000)
    gui = _niceness()
    assert all(n > gui for n in seen), (gui, seen)


@linux_only
def test_a_pool_thread_stays_at_its_pools_step_below_the_window_job_after_job(qtbot) -> None:
    """Each job lowers its thread to the window's niceness plus its pool's step, not one
    step more than it was (a thread sank to 19 after three jobs, before): after forty jobs
    a screen pool's thread (the images the reviewer waits for) is five below the window,
    every other pool's fifteen, far below those."""
    holder = QObject()
    pools = {"screen": screen_pool(holder, 1), "background": QThreadPool(holder)}
    pools["background"].setMaxThreadCount(1)
    seen: dict[str, list[int]] = {name: [] for name in pools}
    for _ in range(40):
        for name, pool in pools.items():
            worker = Worker(_niceness)
            worker.returned.connect(seen[name].append)
            worker.start(pool)
    qtbot.waitUntil(lambda: all(len(v) == 40 for v in seen.values()), timeout=10000)
    window = os.getpriority(os.PRIO_PROCESS, os.getpid())
    assert set(seen["screen"]) == {min(19, window + POOL_THREAD_NICE)}, seen
    assert set(seen["background"]) == {min(19, window + BACKGROUND_NICE)}, seen
    for pool in pools.values():
        pool.waitForDone(5000)


@linux_only
def test_work_the_user_started_and_waits_for_runs_at_the_screens_step(
    qtbot, window: MainWindow
) -> None:
    """Drawing the demo, opening an evaluation, taking work back from a copy, the Team
    dialog's figures, a repair by a model and a project's upgrade are asked for and
    watched: they run five steps below the window, as the images on screen do, not fifteen
    with the reading ahead. Among the background pools, with two other programs keeping
    the cores busy, the demo took 87 s to open instead of 4 (12 s now)."""
    waited = {
        "demo": window.sources.pool,
        "evaluation": window.evaluation_ui.pool,
        "take back": window.take_back_ui.pool,
        "team figures": window.team_ui.summary_pool,
        "a model's repair": window.repair_ui.jobs.pool,
        "an upgrade": window.upgrades.pool,
    }
    seen: dict[str, int] = {}
    for name, pool in waited.items():
        worker = Worker(_niceness)
        worker.returned.connect(lambda n, name=name: seen.__setitem__(name, n))
        worker.start(pool)
    qtbot.waitUntil(lambda: len(seen) == len(waited), timeout=10000)
    step = min(19, os.getpriority(os.PRIO_PROCESS, os.getpid()) + POOL_THREAD_NICE)
    assert seen == dict.fromkeys(waited, step)
