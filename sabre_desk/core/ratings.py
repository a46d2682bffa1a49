"""Everybody's decisions on every case, read once for agreement, progress and the
adjudicators' queue.

A rating is one reviewer's current decision on one case: decisions made on images since
replaced are stale and set apart (they judged other pixels), and an adjudicator's settling
review is not a rating (it was made knowing the others'). Each case is loaded the way
export loads it, so a review that export would ignore is not counted here either.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from sabre_desk.core.binding import image_hashes
from sabre_desk.core.final import Final, all_reviews, current_decisions, settle
from sabre_desk.core.project import Case, Project
from sabre_desk.core.review import Decision, Review
from sabre_desk.ground.errors import CaseLoadError

UNKNOWN_SUBSET = "(unknown)"
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

    @property
    def disputed(self) -> bool:
        """The raters disagree and no adjudicator has settled it."""
        return len(set(self.decisions.values())) > 1 and not self.adjudications


@dataclass
class TeamRatings:
    cases: list[CaseRatings] = field(default_factory=list)
    #: cases that could not be read, "case: why" (counted, never silently dropped)
    problems: list[str] = field(default_factory=list)
    #: invalid cases (not rated)
    invalid: int = 0

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


def rate(case: Case, subset: str, adjudicators: Collection[str] | None) -> CaseRatings:
    reviews = all_reviews(case)
    hashes = image_hashes(case.images)
    current, stale = current_decisions(reviews, hashes)
    decisions: dict[str, Decision] = {}
    adjudications: dict[str, Decision] = {}
    for name, review in current.items():
        assert review.decision is not None
        target = adjudications if is_adjudication(review, adjudicators) else decisions
        target[name] = review.decision
    final = settle(reviews, hashes, adjudicators)
    return CaseRatings(case.case_id, subset, decisions, adjudications, stale, final)


def collect(
    project: Project, progress: Progress | None = None, cancel: threading.Event | None = None
) -> TeamRatings:
    """The ratings of every valid case of the (indexed) project."""
    ratings = TeamRatings()
    adjudicators = adjudicators_of(project)
    entries = list(project.entries)
    for done, entry in enumerate(entries, 1):
        if cancel is not None and cancel.is_set():
            break
        if progress is not None and done % 200 == 0:
            progress(done, len(entries))
        if entry.problem:
            ratings.invalid += 1
            continue
        try:
            case = project.load_case(entry.case_id)
        except CaseLoadError as exc:
            ratings.problems.append(f"{entry.case_id}: {exc.reason}")
            continue
        ratings.cases.append(rate(case, entry.subset or UNKNOWN_SUBSET, adjudicators))
    return ratings
