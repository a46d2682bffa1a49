"""The whole-run deadline and the give-up rule, without a server (the clock is the run's)."""

from __future__ import annotations

import threading

import pytest

from sabre_desk.core.jobs.run_guard import LONGEST_RATE_LIMIT_WAIT_S, RunGuard, RunLimits

RESUME = "run the same command again to ask only what is missing"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_run_past_its_deadline_stops_with_one_line_saying_why_and_how_to_resume() -> None:
    clock, cancel = Clock(), threading.Event()
    guard = RunGuard(RunLimits(deadline_s=60), cancel, RESUME, clock)
    assert guard.check() and guard.seconds_left() == 60
    clock.now += 59.5
    assert guard.check() and guard.seconds_left() == pytest.approx(0.5)
    clock.now += 1
    assert not guard.check()
    assert cancel.is_set()
    assert guard.stop_reason == (
        "stopped: the run's deadline of 60 s has passed; "
        "run the same command again to ask only what is missing"
    )


def test_the_same_failure_in_a_row_gives_up_and_a_success_or_another_kind_resets() -> None:
    cancel = threading.Event()
    guard = RunGuard(RunLimits(give_up_after=3), cancel, RESUME, Clock())
    guard.failed("timed out")
    guard.failed("timed out")
    guard.succeeded()
    guard.failed("timed out")
    guard.failed("refused by the service")
    guard.failed("timed out")
    guard.failed("timed out")
    assert guard.stop_reason is None and guard.check()
    guard.failed("timed out")
    assert not guard.check() and cancel.is_set()
    assert guard.stop_reason is not None
    assert guard.stop_reason.startswith("stopped: 3 calls in a row failed (timed out); run")
    guard.failed("timed out")
    assert "3 calls" in guard.stop_reason  # the first reason stays


def test_a_long_rate_limit_is_recorded_not_waited_for() -> None:
    guard = RunGuard(RunLimits(deadline_s=30, give_up_after=2), threading.Event(), RESUME, Clock())
    assert guard.rate_limit(5)  # a short wait within the deadline: wait and retry
    assert not guard.rate_limit(LONGEST_RATE_LIMIT_WAIT_S + 1)
    assert not guard.rate_limit(None)  # unknown wait: move on
    assert guard.rate_limited == 2
    assert guard.stop_reason is not None and "(rate-limited)" in guard.stop_reason


def test_a_wait_longer_than_what_remains_of_the_deadline_is_not_taken() -> None:
    clock = Clock()
    guard = RunGuard(RunLimits(deadline_s=30), threading.Event(), RESUME, clock)
    clock.now += 25
    assert not guard.rate_limit(10)
    assert guard.rate_limited == 1


@pytest.mark.parametrize("limits", [{"deadline_s": 0}, {"deadline_s": -1}, {"give_up_after": 0}])
def test_limits_that_could_never_let_a_run_start_are_refused(limits: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        RunLimits(**limits)  # type: ignore[arg-type]
