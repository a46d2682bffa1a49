"""Counts for `sabre-desk stats`: the curator's counts, cases per subset and this
reviewer's decisions, all from one reading of the project (``ratings.collect``, which
applies ``validity``); and each reviewer's progress, from the team's ratings and the
assignments."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sabre_desk.core.case.assignments import Assignments
from sabre_desk.core.case.project import Project
from sabre_desk.core.team.activity import TimeReport, activity
from sabre_desk.core.team.agreement import BOOTSTRAP, AgreementReport, agreement
from sabre_desk.core.team.counts import Counts
from sabre_desk.core.team.ratings import TeamRatings, collect


@dataclass
class ProjectStats:
    """What `sabre-desk stats` reports: the curator's ``counts`` (one meaning per name),
    cases per subset, and this reviewer's own decisions per subset and per decision: every
    case in one row (``counts.my_row``: ``invalid``, ``not decided``, ``stale`` or the
    decision), so the rows add up to ``cases`` and the decisions' to ``decided_by_me``.
    The text (``lines``) and ``to_json`` say the same figures."""

    counts: Counts = field(default_factory=Counts)
    by_subset: dict[str, int] = field(default_factory=dict)
    my_decisions: dict[str, int] = field(default_factory=dict)
    my_decisions_by_subset: dict[str, dict[str, int]] = field(default_factory=dict)
    #: each reviewer's progress (filled when the team's reviews were read)
    reviewers: list[ReviewerProgress] = field(default_factory=list)
    #: (case, why) for each invalid case: `validate`'s first problem, in its words
    invalid_cases: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "counts": self.counts.to_json(),
            "by_subset": self.by_subset,
            "my_decisions": self.my_decisions,
            "my_decisions_by_subset": self.my_decisions_by_subset,
            "reviewers": [r.to_json() for r in self.reviewers],
            "invalid_cases": [{"case_id": c, "reason": why} for c, why in self.invalid_cases],
        }

    def lines(self, name: str, reviewer: str) -> list[str]:
        """The report `sabre-desk stats` prints."""
        out = [f"{name} (counts; 'me' is {reviewer}):"]
        out += [f"  {line}" for line in self.counts.lines()]
        out += ["", "per subset (cases; my decisions):"]
        for subset, n in self.by_subset.items():
            detail = ", ".join(f"{k} {v}" for k, v in self.my_decisions_by_subset[subset].items())
            out.append(f"  {subset:24} {n:6}   ({detail})")
        out += ["", "my decisions:"]
        out += [f"  {decision:24} {n:6}" for decision, n in self.my_decisions.items()]
        if self.reviewers:
            out += ["", "per reviewer:"]
            out += [f"  {r.text()}" for r in self.reviewers]
        if self.invalid_cases:
            out += ["", "invalid cases (`validate` says why):"]
            out += [f"  {case_id}: {why}" for case_id, why in self.invalid_cases]
        return out


@dataclass(frozen=True)
class ReviewerProgress:
    """How far one reviewer has come: decided cases (current decisions: a decision on an
    image since replaced is counted as stale instead), and of their assigned cases."""

    reviewer: str
    decided: int = 0
    stale: int = 0
    adjudicated: int = 0
    assigned: int | None = None  # None: the project has no assignments
    assigned_decided: int | None = None

    @property
    def remaining(self) -> int | None:
        if self.assigned is None or self.assigned_decided is None:
            return None
        return self.assigned - self.assigned_decided

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewer": self.reviewer,
            "decided": self.decided,
            "stale": self.stale,
            "adjudicated": self.adjudicated,
            "assigned": self.assigned,
            "assigned_decided": self.assigned_decided,
            "remaining": self.remaining,
        }

    def text(self) -> str:
        parts = [f"{self.reviewer:24} decided {self.decided:6}"]
        if self.assigned is not None:
            parts.append(f"assigned {self.assigned_decided} / {self.assigned} done")
        if self.stale:
            parts.append(f"{self.stale} stale (decided on earlier images)")
        if self.adjudicated:
            parts.append(f"{self.adjudicated} adjudicated")
        return ", ".join(parts)


def reviewer_progress(
    ratings: TeamRatings, assignments: Assignments | None, names: list[str] | None = None
) -> list[ReviewerProgress]:
    """The progress of every reviewer who decided anything, was assigned anything, or is
    named in *names* (the project's reviewers)."""
    decided: Counter[str] = Counter()
    stale: Counter[str] = Counter()
    adjudicated: Counter[str] = Counter()
    done: dict[str, set[str]] = {}
    for case in ratings.cases:
        for name in [*case.decisions, *case.adjudications]:
            decided[name] += 1
            done.setdefault(name, set()).add(case.case_id)
        adjudicated.update(case.adjudications)
        stale.update(case.stale)
    everyone = {*decided, *stale, *(names or [])}
    assigned = assignments.by_reviewer() if assignments is not None else None
    if assigned is not None:
        everyone.update(assigned)
    progress = []
    for name in sorted(everyone):
        mine = None if assigned is None else assigned.get(name, set())
        progress.append(
            ReviewerProgress(
                name,
                decided[name],
                stale[name],
                adjudicated[name],
                None if mine is None else len(mine),
                None if mine is None else len(mine & done.get(name, set())),
            )
        )
    return progress


def compute_stats(ratings: TeamRatings) -> ProjectStats:
    """The stats of the team's *ratings* (read by ``ratings.collect``, which applies
    ``validity``): the counts, and the subsets and this reviewer's decisions of the very
    cases they count."""
    by_subset: Counter[str] = Counter()
    by_decision: Counter[str] = Counter()
    matrix: dict[str, Counter[str]] = {}
    cases = ratings.case_counts()
    for case in cases:
        by_subset[case.subset] += 1
        by_decision[case.mine_row] += 1
        matrix.setdefault(case.subset, Counter())[case.mine_row] += 1
    return ProjectStats(
        counts=ratings.counts(),
        by_subset=dict(sorted(by_subset.items())),
        my_decisions=dict(sorted(by_decision.items())),
        my_decisions_by_subset={k: dict(sorted(v.items())) for k, v in sorted(matrix.items())},
        invalid_cases=[(v.case_id, v.text) for v in ratings.verdicts if v.text is not None],
    )


@dataclass
class TeamSummary:
    """Everything the Team dialog shows, computed at once (on a worker thread)."""

    ratings: TeamRatings
    agreement: AgreementReport
    progress: list[ReviewerProgress]
    time: TimeReport

    @property
    def counts(self) -> Counts:
        return self.ratings.counts()


def team_summary(project: Project, bootstrap: int = BOOTSTRAP) -> TeamSummary:
    ratings = collect(project)
    return TeamSummary(
        ratings,
        agreement(ratings, bootstrap),
        reviewer_progress(ratings, project.assignments, project.manifest.reviewers),
        activity(project),
    )
