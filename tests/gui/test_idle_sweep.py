"""The idle sweep reads its jobs as it goes: a project of 100,000 cases does not make them
all on the window's thread the moment its index completes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import QTimer

from sabre_desk.gui.machinery.idle_sweep import IdleSweep


def _submit(fn: Callable[..., Any], args: tuple[Any, ...], done: Callable[[Any, Any], None]):
    """Run the job at once and answer on the next turn of the event loop, as a pool would."""
    result = fn(*args)
    QTimer.singleShot(0, lambda: done(result, None))
    return lambda: None


def test_jobs_are_read_as_the_sweep_goes_and_all_are_done_in_order(qtbot) -> None:
    made: list[int] = []

    def jobs(n: int) -> Iterator[tuple[int]]:
        for i in range(n):
            made.append(i)
            yield (i,)

    results: list[tuple[tuple[Any, ...], Any]] = []
    sweep = IdleSweep(_submit, lambda i: i * i, lambda args, r: results.append((args, r)), 10)
    sweep.start(jobs(100_000))
    assert len(made) <= 1  # nothing made up front
    assert sweep.upcoming(3) == [(0,), (1,), (2,)] and len(made) <= 4
    sweep.put_first([(99_999,)])  # the case the reviewer is about to reach
    qtbot.waitUntil(lambda: len(results) >= 200, timeout=10000)
    assert results[0] == ((99_999,), 99_999**2)
    assert [args for args, _ in results[1:200]] == [(i,) for i in range(199)]
    assert len(made) < 2_000  # read only as far as handed out (batches of up to 64)
    assert not sweep.through
    sweep.stop()
    assert sweep.through


def test_a_sweep_of_a_few_jobs_gets_through_them(qtbot) -> None:
    results: list[Any] = []
    sweep = IdleSweep(_submit, lambda i: -i, lambda args, r: results.append(r), 10)
    sweep.start((i,) for i in range(5))
    qtbot.waitUntil(lambda: sweep.through and len(results) == 5, timeout=10000)
    assert results == [0, -1, -2, -3, -4]


def test_a_sweep_hands_out_nothing_while_the_reviewer_waits_on_other_work(qtbot) -> None:
    """While a repair is on its way the sweep waits (its job would take a core from the
    repair), then carries on where it was."""
    results: list[Any] = []
    waiting = [True]
    sweep = IdleSweep(_submit, lambda i: i, lambda args, r: results.append(r), 10)
    sweep.wait_while(lambda: waiting[0])
    sweep.start((i,) for i in range(3))
    qtbot.wait(100)  # ten idle waits
    assert results == [] and not sweep.running
    waiting[0] = False
    qtbot.waitUntil(lambda: results == [0, 1, 2], timeout=5000)
