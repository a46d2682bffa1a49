"""The final word on a case when one or several reviewers judged it.

One reviewer: their decision. Several: the decision they all agree on; a review marked
``"adjudicated": true`` settles a disagreement. Otherwise the case has no final decision and
is reported, not exported.
"""

from __future__ import annotations

from sabre_desk.core.project import Case
from sabre_desk.core.review import Decision, QuestionEdit, Review


def all_reviews(case: Case) -> dict[str, Review]:
    reviews = dict(case.other_reviews)
    if case.review.decision is not None or case.review_fingerprint is not None:
        reviews[case.review.reviewer] = case.review
    return reviews


def final_decision(reviews: dict[str, Review]) -> tuple[Decision | None, str]:
    """(decision, why) — why names the reviewers or the disagreement."""
    adjudicated = [
        r for r in reviews.values() if getattr(r, "adjudicated", False) and r.decision is not None
    ]
    if adjudicated:
        latest = max(adjudicated, key=lambda r: r.updated_at or "")
        return latest.decision, f"adjudicated by {latest.reviewer}"
    decided = {name: r.decision for name, r in reviews.items() if r.decision is not None}
    if not decided:
        return None, "not reviewed"
    values = set(decided.values())
    if len(values) == 1:
        return values.pop(), "agreed by " + ", ".join(sorted(decided))
    detail = "; ".join(f"{n}: {d.value}" for n, d in sorted(decided.items()))
    return None, f"reviewers disagree ({detail}); add an adjudicated review"


def merged_question_edits(
    reviews: dict[str, Review], decision: Decision
) -> dict[str, QuestionEdit]:
    """Question edits of the reviewers behind the final decision; the latest wins."""
    agreeing = sorted(
        (r for r in reviews.values() if r.decision == decision), key=lambda r: r.updated_at or ""
    )
    merged: dict[str, QuestionEdit] = {}
    for review in agreeing:
        merged.update(review.question_edits)
    return merged
