"""Counts for `sabre-desk stats` and the case list's progress line, from the index alone;
and each reviewer's progress, from the team's ratings and the assignments."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sabre_desk.core.activity import TimeReport, activity
from sabre_desk.core.agreement import BOOTSTRAP, AgreementReport, agreement
from sabre_desk.core.assignments import Assignments
from sabre_desk.core.project import CaseEntry, Project
from sabre_desk.core.ratings import TeamRatings, collect


@dataclass
class ProjectStats:
    total: int = 0
    reviewed: int = 0
    invalid: int = 0
    by_subset: dict[str, int] = field(default_factory=dict)
    by_decision: dict[str, int] = field(default_factory=dict)
    decisions_by_subset: dict[str, dict[str, int]] = field(default_factory=dict)
    #: each reviewer's progress (filled when the team's reviews were read)
    reviewers: list[ReviewerProgress] = field(default_factory=list)

    @property
    def unreviewed(self) -> int:
        return self.total - self.reviewed

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "reviewed": self.reviewed,
            "unreviewed": self.unreviewed,
            "invalid": self.invalid,
            "by_subset": self.by_subset,
            "by_decision": self.by_decision,
            "decisions_by_subset": self.decisions_by_subset,
            "reviewers": [r.to_json() for r in self.reviewers],
        }

    def lines(self, name: str, reviewer: str) -> list[str]:
        """The report `sabre-desk stats` prints."""
        out = [
            f"{name}: {self.total} cases, reviewed {self.reviewed} / {self.total} "
            f"by {reviewer}, {self.invalid} invalid",
            "",
            "per subset:",
        ]
        for subset, n in self.by_subset.items():
            detail = ", ".join(f"{k} {v}" for k, v in self.decisions_by_subset[subset].items())
            out.append(f"  {subset:24} {n:6}   ({detail})")
        out += ["", "per decision:"]
        out += [f"  {decision:24} {n:6}" for decision, n in self.by_decision.items()]
        if self.reviewers:
            out += ["", "per reviewer:"]
            out += [f"  {r.text()}" for r in self.reviewers]
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
            parts.append(f"{self.stale} stale after a repair")
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
    if assignments is not None:
        everyone.update(assignments.reviewers)
    progress = []
    for name in sorted(everyone):
        mine = assignments.cases_of(name) if assignments is not None else None
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


UNREVIEWED = "unreviewed"
UNKNOWN_SUBSET = "(unknown)"


def compute_stats(entries: list[CaseEntry]) -> ProjectStats:
    by_subset: Counter[str] = Counter()
    by_decision: Counter[str] = Counter()
    matrix: dict[str, Counter[str]] = {}
    reviewed = invalid = 0
    for e in entries:
        subset = e.subset or UNKNOWN_SUBSET
        decision = e.decision.value if e.decision else UNREVIEWED
        by_subset[subset] += 1
        by_decision[decision] += 1
        matrix.setdefault(subset, Counter())[decision] += 1
        reviewed += e.decision is not None
        invalid += e.problem is not None
    return ProjectStats(
        total=len(entries),
        reviewed=reviewed,
        invalid=invalid,
        by_subset=dict(sorted(by_subset.items())),
        by_decision=dict(sorted(by_decision.items())),
        decisions_by_subset={k: dict(sorted(v.items())) for k, v in sorted(matrix.items())},
    )


@dataclass
class TeamSummary:
    """Everything the Team dialog shows, computed at once (on a worker thread)."""

    ratings: TeamRatings
    agreement: AgreementReport
    progress: list[ReviewerProgress]
    time: TimeReport


def team_summary(project: Project, bootstrap: int = BOOTSTRAP) -> TeamSummary:
    ratings = collect(project)
    return TeamSummary(
        ratings,
        agreement(ratings, bootstrap),
        reviewer_progress(ratings, project.assignments, project.manifest.reviewers),
        activity(project),
    )
