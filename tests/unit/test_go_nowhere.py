"""A Go key that cannot move says why, in the reviewer's words (decided without Qt)."""

from __future__ import annotations

from pathlib import Path

from sabre_desk.core.case.project import CaseEntry
from sabre_desk.core.desk.workbench import Go, Workbench

CASES = Path("/p/cases")


def workbench(n: int) -> Workbench:
    wb = Workbench()
    wb.set_entries([CaseEntry(f"c{i}", CASES, "counting", f"k{i}") for i in range(n)])
    return wb


def test_every_go_leads_somewhere_from_the_middle_of_the_list() -> None:
    wb = workbench(5)
    wb.set_current("c2")
    assert all(wb.nowhere(where) is None for where in Go)


def test_at_the_ends_the_keys_that_cannot_move_say_so() -> None:
    wb = workbench(5)
    wb.set_current("c0")
    assert wb.nowhere(Go.PREVIOUS) == "This is the first case in the list."
    assert wb.nowhere(Go.FIRST) == "This is already the first case in the list."
    assert wb.nowhere(Go.NEXT) is None and wb.nowhere(Go.LAST) is None
    wb.set_current("c4")
    assert wb.nowhere(Go.NEXT) == "This is the last case in the list."
    assert wb.nowhere(Go.LAST) == "This is already the last case in the list."


def test_a_project_without_cases_and_a_filter_that_hides_all_are_told_apart() -> None:
    assert workbench(0).nowhere(Go.NEXT) == "The project has no cases yet."
    wb = workbench(3)
    wb.set_current("c1")
    wb.set_filter(text="no such case")
    assert wb.nowhere(Go.FIRST) == "No case in the list: the filter hides them all."
