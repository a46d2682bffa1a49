"""The audit queue without a window: the cases with a flagged question to settle, the
list's "Answers the models dispute" moving one case at a time, and a flag settled by the
reviews as edited exactly as ``project_standing`` settles it once they are saved."""

from __future__ import annotations

from pathlib import Path

from sabre_desk.core.case.project import CaseEntry, Project
from sabre_desk.core.case.review import Decision, QuestionEdit, Review
from sabre_desk.core.desk.audit_queue import AuditQueue, read_audit
from sabre_desk.core.desk.workbench import SHOW_CHOICES, Show, Workbench
from sabre_desk.core.release.audit import (
    Dispute,
    Evaluation,
    audit_standing,
    project_standing,
    write_flags,
)

CASES = Path("/p/cases")


def flag(case_id: str, probe: str, reference: str, agreed: str) -> Dispute:
    return Dispute(
        f"{case_id}:{probe}",
        case_id,
        probe,
        "counting",
        "How many?",
        reference,
        agreed,
        {"m1": agreed, "m2": f"{agreed}."},
    )


def recorder(wb: Workbench) -> list[tuple[str, int]]:
    seen: list[tuple[str, int]] = []
    wb.row_inserted.connect(lambda row: seen.append(("inserted", row)))
    wb.row_removed.connect(lambda row: seen.append(("removed", row)))
    wb.visible_reset.connect(lambda: seen.append(("reset", -1)))
    return seen


def test_the_filter_shows_the_cases_left_to_settle_and_moves_one_at_a_time() -> None:
    assert ("Answers the models dispute", Show.AUDIT) in SHOW_CHOICES
    wb = Workbench()
    wb.set_entries([CaseEntry(f"c{i}", CASES, "counting") for i in range(6)])
    wb.set_audit({"c4", "c1"})
    wb.set_filter(show=Show.AUDIT)
    assert wb.visible_ids() == ["c1", "c4"]
    seen = recorder(wb)
    wb.set_audit({"c4", "c2"})  # c1 settled, c2 flagged by a later audit
    assert seen == [("removed", 0), ("inserted", 0)]
    assert wb.visible_ids() == ["c2", "c4"]
    wb.set_filter(show=Show.ALL)
    wb.set_audit(set())
    assert wb.visible_count == 6  # under another filter nothing moves


def test_a_flag_settles_by_an_edited_answer_or_a_decision_after_it() -> None:
    queue = AuditQueue()
    announced: list[frozenset[str]] = []
    queue.changed.connect(announced.append)
    flags = [
        {**flag("a", "q1", "7", "8").to_json(), "flagged_at": "2026-11-01T10:00:00Z"},
        {**flag("a", "q2", "3", "4").to_json(), "flagged_at": "2026-11-01T10:00:00Z"},
        {**flag("b", "q1", "B", "C").to_json(), "flagged_at": "2026-11-01T10:00:00Z"},
    ]
    queue.set(flags, audit_standing(flags, lambda _case: []))
    assert announced[-1] == {"a", "b"}
    assert queue.flagged("a")["q1"].agreed == "8" and not queue.flagged("a")["q1"].settled
    assert "'8.'" in queue.flagged("a")["q1"].describe()  # each model's own words

    edited = Review(case_id="a", reviewer="alice", question_edits={"q1": QuestionEdit(answer="8")})
    assert queue.case_reviewed("a", [edited])
    assert queue.flagged("a")["q1"].settled and queue.unsettled_cases == {"a", "b"}  # q2 left
    assert not queue.case_reviewed("a", [edited])  # nothing new: nothing announced

    before = Review(
        case_id="b", reviewer="alice", decision=Decision.KEEP, decided_at="2026-10-01T00:00:00Z"
    )
    assert not queue.case_reviewed("b", [before])  # decided before the flag: not settled
    again = before.model_copy(update={"decided_at": "2026-11-02T00:00:00Z"})
    assert queue.case_reviewed("b", [again])
    assert announced[-1] == {"a"}
    assert queue.standing.to_json() == {"flagged": 3, "settled": 2, "unsettled": ["a:q2"]}


def test_what_the_queue_reads_is_what_stats_counts(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    evaluation = Evaluation(demo_project, [], {}, "f" * 64)
    disputes = [
        flag("count01_apples", "apples", "7", "8"),
        flag("spatial02_above_red", "above_red_circle", "B", "C"),
    ]
    write_flags(demo_project, evaluation, disputes)
    case = project.load_case("count01_apples")
    case.review.question_edits["apples"] = QuestionEdit(answer="8")
    project.save_review(case)
    flags, standing = read_audit(project)
    assert standing == project_standing(project)
    queue = AuditQueue()
    queue.set(flags, standing)
    assert queue.unsettled_cases == {"spatial02_above_red"}
    assert queue.flagged("count01_apples")["apples"].settled
