"""The workbench state, with no window: filters, the order, counts, navigation, events."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sabre_desk.core.case.project import CaseEntry
from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.workbench import Counts, Show, ViewMode, Workbench

CASES = Path("/p/cases")


def entries(n: int = 6) -> list[CaseEntry]:
    subsets = ["context_prior", "counting"]
    return [CaseEntry(f"c{i}", CASES, subsets[i % 2], f"k{i}") for i in range(n)]


def recorder(wb: Workbench) -> list[tuple[str, object]]:
    seen: list[tuple[str, object]] = []
    wb.row_changed.connect(lambda row: seen.append(("changed", row)))
    wb.row_inserted.connect(lambda row: seen.append(("inserted", row)))
    wb.row_removed.connect(lambda row: seen.append(("removed", row)))
    wb.counts_changed.connect(lambda counts: seen.append(("counts", counts)))
    wb.visible_reset.connect(lambda: seen.append(("reset", None)))
    wb.rows_appended.connect(lambda first, last: seen.append(("appended", (first, last))))
    return seen


def test_a_decision_updates_counts_and_leaves_the_not_reviewed_filter() -> None:
    wb = Workbench()
    wb.set_entries(entries())
    wb.set_filter(show=Show.UNREVIEWED)
    seen = recorder(wb)
    wb.update_entry(replace(wb.entry("c2"), decision=Decision.KEEP))  # type: ignore[arg-type]
    assert ("removed", 2) in seen
    assert ("counts", Counts(cases=6, decided_by_me=1, invalid=0, unchecked=6)) in seen
    assert wb.visible_ids() == ["c0", "c1", "c3", "c4", "c5"]
    wb.update_entry(replace(wb.entry("c2"), decision=None))  # type: ignore[arg-type]
    assert ("inserted", 2) in seen and wb.visible_count == 6


def test_a_change_that_keeps_the_row_is_one_row_changed() -> None:
    wb = Workbench()
    wb.set_entries(entries())
    seen = recorder(wb)
    wb.update_entry(replace(wb.entry("c4"), pending_repair=True))  # type: ignore[arg-type]
    assert seen == [("changed", 4)]


def test_filters_combine_and_clear() -> None:
    wb = Workbench()
    wb.set_entries(entries(10))
    wb.set_filter(subset="counting")
    assert wb.visible_ids() == ["c1", "c3", "c5", "c7", "c9"]
    wb.set_filter(text="C7")
    assert wb.visible_ids() == ["c7"]
    wb.set_filter(text="k")  # the concept id matches too
    assert wb.visible_count == 5
    wb.clear_filter()
    assert wb.visible_count == 10


def test_typing_in_the_filter_narrows_and_backspace_widens_again() -> None:
    wb = Workbench()
    wb.set_entries(entries(30))
    wb.update_entry(replace(wb.entry("c12"), decision=Decision.KEEP))
    shown = []
    for text in ("c", "c1", "c12", "c1", "", "c2"):
        wb.set_filter(text=text)
        shown.append(wb.visible_ids())
    assert shown[1] == ["c1", *(f"c{i}" for i in range(10, 20))] == shown[3]
    assert shown[2] == ["c12"] and len(shown[0]) == len(shown[4]) == 30
    assert shown[5] == ["c2", *(f"c{i}" for i in range(20, 30))]
    wb.set_filter(text="c1", show=Show.UNREVIEWED)  # text and a decision filter at once
    assert "c12" not in wb.visible_ids() and "c13" in wb.visible_ids()
    wb.set_filter(text="c12")  # more text under a decision filter: still none decided
    assert wb.visible_ids() == []


def test_next_previous_stop_at_the_ends_and_next_unreviewed_wraps() -> None:
    wb = Workbench()
    wb.set_entries(entries(5))
    assert wb.step(None, 1) == "c0" and wb.step("c4", 1) == "c4" and wb.step("c0", -1) == "c0"
    assert wb.step("c2", 1) == "c3" and wb.first() == "c0" and wb.last() == "c4"
    for case_id in ("c3", "c4", "c0"):
        wb.update_entry(replace(wb.entry(case_id), decision=Decision.KEEP))  # type: ignore[arg-type]
    assert wb.next_unreviewed("c2") == "c1"  # past the end, around to the start
    assert wb.next_unreviewed("c1") == "c2"
    wb.update_entry(replace(wb.entry("c1"), decision=Decision.KEEP))  # type: ignore[arg-type]
    assert wb.next_unreviewed("c2") is None  # the only undecided case is the current one


def test_an_invalid_case_is_never_next_unreviewed() -> None:
    wb = Workbench()
    es = entries(3)
    es[1] = replace(es[1], problem="broken")
    wb.set_entries(es)
    assert wb.next_unreviewed("c0") == "c2"
    assert wb.counts == Counts(cases=3, decided_by_me=0, invalid=1, unchecked=2)


def test_a_filtered_out_current_case_navigates_from_the_list() -> None:
    wb = Workbench()
    wb.set_entries(entries(6))
    wb.set_filter(subset="counting")
    assert wb.row_of("c2") is None
    assert wb.step("c2", 1) == "c1"
    assert [e.case_id for e in wb.neighbours("c3", 2)] == ["c5", "c1"]


def test_mode_and_current_are_announced_once() -> None:
    wb = Workbench()
    wb.set_entries(entries(2))
    modes: list[ViewMode] = []
    current: list[str] = []
    wb.mode_changed.connect(modes.append)
    wb.current_changed.connect(current.append)
    wb.set_mode(ViewMode.REPAIR_COMPARISON)
    wb.set_mode(ViewMode.REPAIR_COMPARISON)
    wb.set_current("c1")
    wb.set_current("c1")
    assert modes == [ViewMode.REPAIR_COMPARISON] and current == ["c1"]


def test_counts_at_scale_are_kept_not_recounted() -> None:
    wb = Workbench()
    wb.set_entries(entries(100_000))
    wb.set_filter(show=Show.UNREVIEWED)
    for i in range(0, 100_000, 1000):
        wb.update_entry(replace(wb.entry(f"c{i}"), decision=Decision.KEEP))  # type: ignore[arg-type]
    assert wb.counts.decided_by_me == 100 and wb.visible_count == 99_900
    assert wb.next_unreviewed("c999") == "c1001"


def test_more_of_the_index_arrives_behind_the_first_cases() -> None:
    wb = Workbench()
    es = entries(10)
    wb.set_entries(es[:4])
    wb.set_filter(subset="counting")
    seen = recorder(wb)
    wb.append_entries(
        [replace(e, decision=Decision.KEEP) if e.case_id == "c5" else e for e in es[4:]]
    )
    assert ("appended", (2, 4)) in seen and wb.visible_ids() == ["c1", "c3", "c5", "c7", "c9"]
    assert wb.counts == Counts(cases=10, decided_by_me=1, invalid=0, unchecked=10)
    assert wb.next_unreviewed("c3") == "c7"
    assert wb.row_of("c9") == 4


def test_a_case_the_filter_solved_is_out_of_the_queue_but_listed_and_filterable() -> None:
    """Paper §3.4: what the filtering model answers correctly is discarded from review; it
    stays in the list and can be shown with its own filter, as kept and stale ones can."""
    from sabre_desk.core.case.gate import ScreenStatus

    wb = Workbench()
    es = entries(4)
    es[1] = replace(es[1], screening=ScreenStatus.SOLVED)
    es[2] = replace(es[2], screening=ScreenStatus.KEPT)
    es[3] = replace(es[3], screening=ScreenStatus.STALE)
    wb.set_entries(es)
    assert wb.next_unreviewed("c0") == "c2"  # c1 was solved: not to be reviewed
    assert wb.row_of("c1") is not None  # … but still listed
    wb.set_filter(show=Show.SOLVED)
    assert wb.visible_ids() == ["c1"]
    wb.set_filter(show=Show.SCREENING_STALE)
    assert wb.visible_ids() == ["c3"]
    wb.set_filter(show=Show.KEPT)
    assert wb.visible_ids() == ["c2"]


def test_a_recorded_verdict_moves_the_counts_as_validate_counts() -> None:
    """The full check's verdict (``Project.record_verdict``) is one entry change: a case
    found invalid leaves ``decided_by_me`` and ``unchecked`` and joins ``invalid``."""
    wb = Workbench()
    es = entries(3)
    es[0] = replace(es[0], decision=Decision.KEEP)
    wb.set_entries(es)
    assert wb.counts == Counts(cases=3, decided_by_me=1, invalid=0, unchecked=3)
    bad = replace(wb.entry("c0"), problem="corrupt JSON", checked=True)  # type: ignore[arg-type]
    wb.update_entry(bad)
    wb.update_entry(replace(wb.entry("c1"), checked=True))  # type: ignore[arg-type]
    assert wb.counts == Counts(cases=3, decided_by_me=0, invalid=1, unchecked=1)
    assert wb.counts.valid == 2
