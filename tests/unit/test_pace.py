"""The loops over a whole project wait while the reviewer moves from case to case, and go
on once they stay on one (or after a bounded wait, for a reviewer who never stops)."""

from __future__ import annotations

import threading
import time

from sabre_desk.core.desk.pace import ReviewerPace
from sabre_desk.core.desk.workbench import Workbench


def _wait_in_thread(pace: ReviewerPace, longest_s: float) -> tuple[threading.Thread, list[float]]:
    returned: list[float] = []

    def wait() -> None:
        pace.wait_until_still(longest_s)
        returned.append(time.monotonic())

    thread = threading.Thread(target=wait)
    thread.start()
    return thread, returned


def test_a_loop_waits_while_the_reviewer_moves_and_goes_on_once_they_stay() -> None:
    pace = ReviewerPace(still_after_s=0.2)
    pace.moved()
    thread, returned = _wait_in_thread(pace, longest_s=30)
    last_move = 0.0
    for _ in range(6):  # a reviewer flipping through cases
        time.sleep(0.05)
        pace.moved()
        last_move = time.monotonic()
        assert not returned and pace.moving
    thread.join(10)
    assert returned and returned[0] >= last_move + 0.2  # only after staying on a case
    assert not pace.moving


def test_a_reviewer_who_never_stops_holds_a_loop_back_only_so_long() -> None:
    pace = ReviewerPace(still_after_s=60)
    pace.moved()
    started = time.monotonic()
    thread, returned = _wait_in_thread(pace, longest_s=0.2)
    thread.join(10)
    assert returned and pace.moving and returned[0] - started < 60


def test_a_reviewer_who_has_not_moved_does_not_hold_anything_back() -> None:
    pace = ReviewerPace()
    assert not pace.moving
    thread, returned = _wait_in_thread(pace, longest_s=60)
    thread.join(10)
    assert returned


def test_each_case_opened_after_another_on_the_workbench_counts_as_a_move() -> None:
    workbench = Workbench()
    workbench.set_current("case0001")  # a project's first case: the reading goes on
    assert not workbench.pace.moving
    workbench.set_current("case0002")
    assert workbench.pace.moving
