"""Everybody's decisions on every case, read once for agreement, progress and the
adjudicators' queue.

A rating is one reviewer's current decision on one case: decisions made on images since
replaced are stale and set apart (they judged other pixels), and an adjudicator's settling
review is not a rating (it was made knowing the others'). Each case is loaded the way
export loads it, so a review that export would ignore is not counted here either.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field

from sabre_desk.core.case.binding import Hashes, image_hashes
from sabre_desk.core.case.project import Case, CaseEntry, Project, Verdict
from sabre_desk.core.case.review import Decision, Review
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.team.counts import (
    UNKNOWN_SUBSET,
    CaseCount,
    Counts,
    counts_as_mine,
    invalid_count,
    my_row,
    release_standing,
    total,
)
from sabre_desk.core.team.final import (
    Final,
    all_reviews,
    current_decisions,
    disputed,
    question_edits,
    settle,
)
from sabre_desk.ground.errors import ReviewError

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class CaseRatings:
    case_id: str
    subset: str
    #: current decisions that count as ratings, per reviewer
    decisions: dict[str, Decision]
    #: current settling decisions of adjudicators, per adjudicator
    adjudications: dict[str, Decision]
    #: reviewers whose decision was made on images since replaced
    stale: tuple[str, ...]
    final: Final
    #: what the case adds to the curator's counts (None: built by hand, as tests do)
    count: CaseCount | None = None
    #: ``case_disputed`` (None: built by hand, and then the decisions alone say it)
    split: bool | None = None

    @property
    def disputed(self) -> bool:
        """The raters disagree and no adjudicator has settled it (``case_disputed``)."""
        if self.split is not None:
            return self.split
        return len(set(self.decisions.values())) > 1 and not self.adjudications


@dataclass
class TeamRatings:
    cases: list[CaseRatings] = field(default_factory=list)
    #: cases that could not be read, "case: why" (counted, never silently dropped)
    problems: list[str] = field(default_factory=list)
    #: invalid cases (not rated), and why each is invalid ("case: why")
    invalid: int = 0
    invalid_cases: list[str] = field(default_factory=list)
    #: what each invalid case adds to the counts (one ``invalid``, and its subset)
    invalid_counts: list[CaseCount] = field(default_factory=list)
    #: the verdict on every case read, valid or not, in the order read: what the index
    #: records (``Project.record_verdict``) so that the case list, the funnel and the
    #: counts say what `validate` says
    verdicts: list[Verdict] = field(default_factory=list)

    def counts(self) -> Counts:
        """The curator's counts (``counts``) of the cases read."""
        return total(self.case_counts())

    def case_counts(self) -> list[CaseCount]:
        """What each case read adds to the counts, valid and invalid ones."""
        rated = [c.count for c in self.cases if c.count is not None]
        return [*rated, *self.invalid_counts]

    @property
    def reviewers(self) -> list[str]:
        names: set[str] = set()
        for case in self.cases:
            names.update(case.decisions, case.adjudications, case.stale)
        return sorted(names)

    def subsets(self) -> list[str]:
        return sorted({c.subset for c in self.cases})


def is_adjudication(review: Review, adjudicators: Collection[str] | None) -> bool:
    """A review that settles a disagreement (None: a project that names no adjudicators
    accepts anyone's, as before they were named)."""
    return review.adjudication and (adjudicators is None or review.reviewer in adjudicators)


def adjudicators_of(project: Project) -> list[str] | None:
    return project.manifest.adjudicators or None


def adjudicator_rule(adjudicators: Collection[str] | None) -> str:
    """Who settles a disagreement, in the words every view uses (the rule of
    ``is_adjudication`` and ``Project.is_adjudicator``)."""
    if adjudicators:
        return f"adjudicators: {', '.join(adjudicators)} (only they settle a disagreement)"
    return "adjudicators: none named (anyone may settle a disagreement)"


def case_disputed(case: Case, hashes: Hashes | None, adjudicators: Collection[str] | None) -> bool:
    """The case's current decisions (everyone's) disagree and no adjudication settles them:
    the one test behind the Team dialog's "disputed" and the adjudicators' queue."""
    current, _ = current_decisions(all_reviews(case), hashes)
    return disputed(current, adjudicators)


def unreadable_review(case: Case) -> str | None:
    """Why a review of *case* is ignored, if one is (it holds the case out of a release)."""
    return next((w.message for w in case.warnings if isinstance(w, ReviewError)), None)


def rate(
    case: Case, subset: str, adjudicators: Collection[str] | None, reviewer: str | None = None
) -> CaseRatings:
    """The ratings of one valid case, and what it adds to the counts (*reviewer*: whose
    decisions count as "decided by me")."""
    reviews = all_reviews(case)
    hashes = image_hashes(case.images)
    current, stale = current_decisions(reviews, hashes)
    split = case_disputed(case, hashes, adjudicators)
    decisions: dict[str, Decision] = {}
    adjudications: dict[str, Decision] = {}
    for name, review in current.items():
        assert review.decision is not None
        target = adjudications if is_adjudication(review, adjudicators) else decisions
        target[name] = review.decision
    final = settle(reviews, hashes, adjudicators)
    standing = release_standing(
        final, len(current), split, unreadable_review(case), question_edits(reviews, final)[1]
    )
    own = reviews.get(reviewer) if reviewer is not None else None
    own_decision = own.decision if own is not None else None
    own_stale = reviewer is not None and reviewer in stale
    count = CaseCount(
        mine=counts_as_mine(own_decision, own_stale, valid=True),
        anyone=bool(current),
        stale=bool(stale),
        disputed=split,
        standing=standing,
        subset=subset,
        mine_row=my_row(own_decision, own_stale, valid=True),
    )
    return CaseRatings(case.case_id, subset, decisions, adjudications, stale, final, count, split)


def collect(
    project: Project,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    validity: Validity | None = None,
    entries: Sequence[CaseEntry] | None = None,
) -> TeamRatings:
    """The ratings of every valid case of the (indexed) project (``validity`` decides which
    are valid: the same rule `validate` and `export` use)."""
    ratings = TeamRatings()
    adjudicators = adjudicators_of(project)
    validity = validity or Validity(project)
    entries = list(project.entries if entries is None else entries)
    for done, entry in enumerate(entries, 1):
        if cancel is not None and cancel.is_set():
            break
        if progress is not None and done % 200 == 0:
            progress(done, len(entries))
        report = validity.check(entry.case_id)
        ratings.verdicts.append(report.verdict)
        if not report.valid or report.case is None:
            ratings.invalid += 1
            ratings.invalid_cases.append(f"{entry.case_id}: {report.reason}")
            ratings.invalid_counts.append(invalid_count(entry.subset))
            continue
        ratings.cases.append(
            rate(report.case, entry.subset or UNKNOWN_SUBSET, adjudicators, project.reviewer)
        )
    return ratings
