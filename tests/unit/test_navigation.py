"""Navigation over the visible case list."""

from __future__ import annotations

from pathlib import Path

from sabre_desk.core.navigation import first, last, next_unreviewed, step
from sabre_desk.core.project import CaseEntry
from sabre_desk.core.review import Decision

CASES = Path("/p/cases")


def _entries(*states: str) -> list[CaseEntry]:
    out = []
    for i, state in enumerate(states):
        decision = Decision.KEEP if state == "k" else None
        problem = "broken" if state == "x" else None
        out.append(CaseEntry(f"c{i}", CASES, decision=decision, problem=problem))
    return out


def test_step_moves_and_stops_at_the_ends() -> None:
    entries = _entries("u", "u", "u")
    assert step(entries, "c0", 1) == "c1"
    assert step(entries, "c2", 1) == "c2"
    assert step(entries, "c0", -1) == "c0"
    assert step(entries, None, 1) == "c0" and step(entries, None, -1) == "c2"
    assert step([], "c0", 1) is None
    assert first(entries) == "c0" and last(entries) == "c2"


def test_next_unreviewed_skips_decided_and_broken_cases_and_wraps() -> None:
    entries = _entries("u", "k", "x", "u", "k")
    assert next_unreviewed(entries, "c0") == "c3"
    assert next_unreviewed(entries, "c3") == "c0"  # wraps around
    assert next_unreviewed(entries, None) == "c0"


def test_next_unreviewed_is_none_when_everything_is_decided() -> None:
    assert next_unreviewed(_entries("k", "x", "k"), "c0") is None
    assert next_unreviewed(_entries("u"), "c0") is None  # only the current one is left
