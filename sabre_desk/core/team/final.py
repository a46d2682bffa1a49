"""The final word on a case when one or several reviewers judged it.

Only current decisions count: a decision made on images that have since been replaced is
stale (``binding``). One reviewer: their decision. Several: the decision they all agree on.
A disagreement is settled by an adjudicator's review (``"adjudication": true``); a project
that names its adjudicators accepts settling reviews from them only, a project that names
none (written before adjudicators existed) from anyone, as before. A case may also be
required to rest on a minimum number of reviews. Otherwise the case has no final decision
and the reason says why.

Question edits follow the decision: those of the reviewers behind it, and where two of them
edited the same probe differently, the adjudicator's edit; without one the conflict is
reported, never merged by taking the latest.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sabre_desk.core.case.binding import Hashes, is_stale
from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import Decision, QuestionEdit, Review


@dataclass(frozen=True)
class Final:
    """A case's final decision (None: it has none) and why, in a reviewer's words."""

    decision: Decision | None
    why: str
    #: the reviewers whose current decision it is (the adjudicator first when settled)
    behind: tuple[str, ...] = ()
    #: the adjudicator whose review settled a disagreement
    settled_by: str | None = None
    #: reviewers whose decision was made on images since replaced (they do not count)
    stale: tuple[str, ...] = ()


def all_reviews(case: Case) -> dict[str, Review]:
    reviews = dict(case.other_reviews)
    if case.review.decision is not None or case.review_fingerprint is not None:
        reviews[case.review.reviewer] = case.review
    return reviews


def current_decisions(
    reviews: dict[str, Review], hashes: Hashes | None
) -> tuple[dict[str, Review], tuple[str, ...]]:
    """The reviews with a decision about the images as they are now, and the names of
    those whose decision is stale."""
    decided = {name: r for name, r in reviews.items() if r.decision is not None}
    stale = tuple(sorted(name for name, r in decided.items() if is_stale(r, hashes)))
    return {n: r for n, r in decided.items() if n not in stale}, stale


def settling(current: dict[str, Review], adjudicators: Collection[str] | None) -> Review | None:
    """The latest adjudication among *current* reviews that may settle a disagreement."""
    settling = [
        r
        for r in current.values()
        if r.adjudication and (adjudicators is None or r.reviewer in adjudicators)
    ]
    return max(settling, key=lambda r: r.decided_at or r.updated_at or "", default=None)


def disputed(current: dict[str, Review], adjudicators: Collection[str] | None) -> bool:
    """Whether the *current* decisions disagree with no adjudication settling them."""
    if settling(current, adjudicators) is not None:
        return False
    return len({r.decision for r in current.values()}) > 1


def settle(
    reviews: dict[str, Review],
    hashes: Hashes | None = None,
    adjudicators: Collection[str] | None = None,
    min_reviews: int = 1,
) -> Final:
    """The final decision of a case from all its *reviews* (see the module docstring).

    *hashes* are the case's images now (None: not checked, nothing is stale);
    *adjudicators* None accepts an adjudication from anyone (a project naming none).
    """
    current, stale = current_decisions(reviews, hashes)
    stale_note = f" (decided on earlier images: {', '.join(stale)})" if stale else ""
    adjudication = settling(current, adjudicators)
    if adjudication is not None and adjudication.decision is not None:
        behind = [n for n, r in sorted(current.items()) if r.decision == adjudication.decision]
        behind.remove(adjudication.reviewer)
        return Final(
            adjudication.decision,
            f"adjudicated by {adjudication.reviewer}",
            (adjudication.reviewer, *behind),
            adjudication.reviewer,
            stale,
        )
    if not current:
        if stale:
            return Final(None, f"needs a new review after a repair{stale_note}", stale=stale)
        return Final(None, "not decided")
    if len(current) < min_reviews:
        return Final(
            None,
            f"{len(current)} current review(s), {min_reviews} required{stale_note}",
            stale=stale,
        )
    decided = {name: r.decision for name, r in current.items() if r.decision is not None}
    values = set(decided.values())
    if len(values) == 1:
        names = tuple(sorted(decided))
        return Final(values.pop(), "agreed by " + ", ".join(names), names, stale=stale)
    detail = "; ".join(f"{n}: {d.value}" for n, d in sorted(decided.items()))
    return Final(
        None,
        f"reviewers disagree ({detail}); an adjudicator settles it{stale_note}",
        stale=stale,
    )


def final_decision(
    reviews: dict[str, Review],
    hashes: Hashes | None = None,
    adjudicators: Collection[str] | None = None,
    min_reviews: int = 1,
) -> tuple[Decision | None, str]:
    """(decision, why) — why names the reviewers or the disagreement."""
    final = settle(reviews, hashes, adjudicators, min_reviews)
    return final.decision, final.why


def edit_text(edit: QuestionEdit) -> str:
    """A question edit in words: "answer 'no'; prompt 'Is …?'"."""
    return "; ".join(f"{k} {v!r}" for k, v in edit.model_dump(exclude_none=True).items())


def edit_conflicts(reviews: dict[str, Review], settled_by: str | None = None) -> list[str]:
    """Probes that two of *reviews* edited differently, in words; a probe the adjudicator
    *settled_by* edited is settled by that edit."""
    settled = reviews[settled_by].question_edits if settled_by in reviews else {}
    edits: dict[str, dict[str, QuestionEdit]] = {}
    for name, review in sorted(reviews.items()):
        for probe, edit in review.question_edits.items():
            edits.setdefault(probe, {})[name] = edit
    conflicts = []
    for probe, by in sorted(edits.items()):
        if probe in settled or len({e.model_dump_json() for e in by.values()}) < 2:
            continue
        detail = " / ".join(f"{n}: {edit_text(e)}" for n, e in by.items())
        conflicts.append(f"{probe} ({detail})")
    return conflicts


def question_edits(
    reviews: dict[str, Review], final: Final
) -> tuple[dict[str, QuestionEdit], list[str]]:
    """The question edits of the reviewers behind *final*, and their conflicts (probes two
    of them edited differently, unless the adjudicator edited it)."""
    behind = {name: reviews[name] for name in final.behind if name in reviews}
    conflicts = edit_conflicts(behind, final.settled_by)
    merged: dict[str, QuestionEdit] = {}
    for name in reversed(final.behind):  # the adjudicator (first) has the last word
        if name in behind:
            merged.update(behind[name].question_edits)
    return merged, conflicts
