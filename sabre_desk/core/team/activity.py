"""Time spent reviewing, from the history every change is stamped in.

Each reviewer's events (from every case's ``history.jsonl``) are put in time order; the gap
between two consecutive events is active time when it is at most the idle limit (five
minutes by default), and a longer gap is a break that counts for nothing. This undercounts
by the time spent on the first case of each sitting (before its first event) and so leans
low, never high. Per 50 cases: active minutes over the cases the reviewer decided, times 50
— the unit of the SABRE paper's Table 9 (25–50 minutes per 50 reviewed cases).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sabre_desk.core.case.project import HISTORY_NAME, Project
from sabre_desk.ground.storage import read_history

IDLE_MINUTES = 5.0
PER_CASES = 50


@dataclass
class ReviewerTime:
    reviewer: str
    active_s: float = 0.0
    sittings: int = 0
    events: int = 0
    cases: int = 0  # cases this reviewer decided at least once

    @property
    def active_min(self) -> float:
        return self.active_s / 60.0

    @property
    def per_50_cases_min(self) -> float | None:
        return self.active_min / self.cases * PER_CASES if self.cases else None

    def to_json(self) -> dict[str, Any]:
        per = self.per_50_cases_min
        return {
            "reviewer": self.reviewer,
            "active_minutes": round(self.active_min, 1),
            "cases_decided": self.cases,
            "minutes_per_50_cases": None if per is None else round(per, 1),
            "sittings": self.sittings,
            "events": self.events,
        }


@dataclass
class TimeReport:
    idle_minutes: float
    reviewers: list[ReviewerTime] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "idle_minutes": self.idle_minutes,
            "per_cases": PER_CASES,
            "reviewers": [r.to_json() for r in self.reviewers],
            "problems": self.problems,
        }


def _epoch(stamp: Any) -> float | None:
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
    except ValueError:
        return None


def active_time(moments: list[float], idle_s: float = IDLE_MINUTES * 60) -> tuple[float, int]:
    """(active seconds, sittings) of one reviewer's event times (any order)."""
    if not moments:
        return 0.0, 0
    ordered = sorted(moments)
    active, sittings = 0.0, 1
    for before, after in itertools.pairwise(ordered):
        gap = after - before
        if gap <= idle_s:
            active += gap
        else:
            sittings += 1
    return active, sittings


def activity(project: Project, idle_minutes: float = IDLE_MINUTES) -> TimeReport:
    """Active time per reviewer over every case of the (indexed) project."""
    report = TimeReport(idle_minutes)
    moments: dict[str, list[float]] = defaultdict(list)
    decided: dict[str, set[str]] = defaultdict(set)
    for entry in project.entries:
        path = entry.folder / HISTORY_NAME
        if path.is_symlink() or not path.is_file():
            continue
        history = read_history(path)
        report.problems += [f"{entry.case_id}: {HISTORY_NAME}: {p}" for p in history.problems]
        for event in history.entries:
            who, when = event.get("reviewer"), _epoch(event.get("at"))
            if not isinstance(who, str) or when is None:
                continue
            moments[who].append(when)
            data = event.get("data")
            if event.get("event") == "decision" and isinstance(data, dict) and data.get("to"):
                decided[who].add(entry.case_id)
    for name in sorted(moments):
        active, sittings = active_time(moments[name], idle_minutes * 60)
        report.reviewers.append(
            ReviewerTime(name, active, sittings, len(moments[name]), len(decided[name]))
        )
    return report
