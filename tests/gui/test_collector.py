"""Reference cycles are freed on the GUI thread, never on a pool thread in the middle of
its work, and they are still freed while the window runs."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest

from sabre_desk.core.desk.workbench import Go
from sabre_desk.gui.machinery.collector import IDLE_CHECK_MS
from sabre_desk.gui.machinery.workers import Worker
from sabre_desk.gui.main_window import MainWindow


@pytest.fixture
def eager_collection() -> Iterator[None]:
    """Thresholds so low that almost any allocation makes a collection due."""
    before = gc.get_threshold()
    gc.set_threshold(1, 1, 1)
    try:
        yield
    finally:
        gc.set_threshold(*before)


class Cycle:
    """Garbage only a collection frees: it refers to itself."""

    def __init__(self, freed_on: list[str]) -> None:
        self.me = self
        weakref.finalize(self, lambda: freed_on.append(threading.current_thread().name))


def leave_a_cycle_then_allocate(freed_on: list[str]) -> int:
    """A pool job that drops a cycle, then makes many small objects (as decoding and
    polling do): with Python's automatic collection, this thread would free the cycle."""
    Cycle(freed_on)
    made = [[i] for i in range(200_000)]
    return len(made)


def test_cycles_are_freed_on_the_gui_thread_not_on_the_pool_thread_at_work(
    qtbot, window: MainWindow, eager_collection: None
) -> None:
    freed_on: list[str] = []
    Worker(leave_a_cycle_then_allocate, freed_on).start(window.pool)
    window.pool.waitForDone()
    qtbot.waitUntil(lambda: bool(freed_on), timeout=2 * IDLE_CHECK_MS + 2000)  # still freed
    assert freed_on == [threading.main_thread().name]


def test_the_open_projects_index_is_set_aside_from_full_collections(
    qtbot, window: MainWindow, demo_project, open_case
) -> None:
    """The index lives as long as the project: once it is whole, a full collection no
    longer walks its entries (the GUI-thread stall grows with the project otherwise);
    a cycle made later is still freed, and closing the window hands everything back."""
    open_case(window, demo_project)
    qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=10000)
    project = window.controller.project if window.controller else None
    assert project is not None and project.entries
    entry = project.entries[0]
    assert not any(o is entry for o in gc.get_objects())  # walked by no collection
    freed_on: list[str] = []
    Cycle(freed_on)
    gc.collect()
    assert freed_on == [threading.main_thread().name]
    window.close()
    assert gc.get_freeze_count() == 0


def test_a_full_collection_waits_while_the_reviewer_moves_from_case_to_case(
    qtbot, window: MainWindow, demo_project, open_case, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full collection due in the middle of a flip through cases waits until the reviewer
    stays on one case for a moment; young garbage is still collected meanwhile."""
    from sabre_desk.gui.machinery import collector as collector_module

    monkeypatch.setattr(collector_module, "QUIET_S", 0.5)
    open_case(window, demo_project)
    collector = window.collector

    def full_collections() -> int:
        return int(gc.get_stats()[2]["collections"])

    def make_full_due() -> None:
        collector._pending = max(1, collector._long_lived // 4)  # Python's rule: due
        for _ in range(gc.get_threshold()[2] + 1):
            gc.collect(1)  # each bumps the oldest generation's count

    make_full_due()
    before = full_collections()
    window.case_list.go(Go.NEXT)  # the reviewer moves on
    collector.collect_due()
    assert full_collections() == before  # not in the middle of a flip
    qtbot.wait(600)  # (the window's own timer may collect now too)
    make_full_due()
    collector.collect_due()
    assert full_collections() > before  # once they stayed on a case
