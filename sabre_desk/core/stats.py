"""Counts for `sabre-desk stats` and the case list's progress line, from the index alone."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sabre_desk.core.project import CaseEntry


@dataclass
class ProjectStats:
    total: int = 0
    reviewed: int = 0
    invalid: int = 0
    by_subset: dict[str, int] = field(default_factory=dict)
    by_decision: dict[str, int] = field(default_factory=dict)
    decisions_by_subset: dict[str, dict[str, int]] = field(default_factory=dict)

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
        }


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
