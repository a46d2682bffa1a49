"""Moving between cases: next, previous, next unreviewed, first, last.

Works on whatever ordered list of entries the reviewer currently sees (the filtered case
list), so the GUI and any future command-line reviewer navigate identically.
"""

from __future__ import annotations

from collections.abc import Sequence

from sabre_desk.core.project import CaseEntry


def _position(entries: Sequence[CaseEntry], current: str | None) -> int | None:
    if current is None:
        return None
    return next((i for i, e in enumerate(entries) if e.case_id == current), None)


def step(entries: Sequence[CaseEntry], current: str | None, delta: int) -> str | None:
    """The case *delta* places away, stopping at the ends (no wrap: the end is a signal)."""
    if not entries:
        return None
    pos = _position(entries, current)
    if pos is None:
        return entries[0 if delta >= 0 else -1].case_id
    return entries[max(0, min(len(entries) - 1, pos + delta))].case_id


def first(entries: Sequence[CaseEntry]) -> str | None:
    return entries[0].case_id if entries else None


def last(entries: Sequence[CaseEntry]) -> str | None:
    return entries[-1].case_id if entries else None


def next_unreviewed(entries: Sequence[CaseEntry], current: str | None) -> str | None:
    """The next valid case without a decision after *current*, wrapping around once.

    None when every valid case is decided: the reviewer is done.
    """
    if not entries:
        return None
    pos = _position(entries, current)
    start = -1 if pos is None else pos
    n = len(entries)
    for k in range(1, n + 1):
        entry = entries[(start + k) % n]
        if entry.decision is None and entry.problem is None and entry.case_id != current:
            return entry.case_id
    return None
