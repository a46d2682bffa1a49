"""The counts a curator reads, defined once.

Every surface — the case list's footer, the Pipeline panel, the Team dialog, `stats` (text
and ``--json``), `agreement`, the export report and the release card — shows these values
under these names, so "decided" never means two things on one screen:

- ``cases``: case folders in ``cases/``; ``valid`` + ``invalid`` = ``cases``
  (``validity``: every image decodes, spec and reviews readable, primer rules kept).
- ``decided_by_me``: valid cases with the current reviewer's current decision (one made on
  images since replaced does not count: it is stale).
- ``decided_by_anyone``: valid cases with at least one current decision, adjudications
  included.
- ``stale``: valid cases with a decision made on images since replaced.
- ``disputed``: valid cases whose current decisions disagree with no adjudication settling
  them.
- ``with_final``: valid cases with a final decision (``final.settle``).
- ``final_keep``: what `export` writes by default (final decision Keep, before
  ``--min-reviews``): cases whose reviews can all be read and whose question edits do not
  conflict.
- ``left_out``: every other case, by reason (``LeftOut``); with ``final_keep`` they add
  up to ``cases``.

An invalid case counts as invalid and as nothing else: whatever its decisions say, it adds
to no decision's figure (``decided_by_me``, this reviewer's decisions, each reviewer's
progress): a decision on it can never reach a release. ``my_row`` puts every case in one
row of this reviewer's decisions (``invalid``, ``not decided``, ``stale`` or the decision),
so the rows add up to ``cases`` and the decisions' rows to ``decided_by_me``.

Each case's part is a ``CaseCount``, summed by ``total`` alone. Only the cheap part
(``decided_by_me``, ``invalid`` as far as the index knows: ``index_part``) comes from the
index; the rest needs everybody's reviews (``ratings.collect``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sabre_desk.core.case.project import CaseEntry
from sabre_desk.core.case.review import Decision
from sabre_desk.core.team.final import Final

#: What `export` writes unless told otherwise.
DEFAULT_DECISIONS = frozenset({Decision.KEEP})


class LeftOut(StrEnum):
    """Why a case is not in a release: one name each, in every report."""

    INVALID = "invalid"
    NOT_DECIDED = "not_decided"
    STALE = "stale"  # its only decisions were made on images since replaced
    DISPUTED = "disputed"
    TOO_FEW_REVIEWS = "too_few_reviews"
    UNREADABLE_REVIEW = "unreadable_review"
    CONFLICTING_EDITS = "conflicting_edits"
    FINAL_OTHER = "final_other"  # a final decision the release does not take (Reject…)

    @property
    def label(self) -> str:
        return LEFT_OUT_LABELS[self]


LEFT_OUT_LABELS = {
    LeftOut.INVALID: "invalid",
    LeftOut.NOT_DECIDED: "not decided",
    LeftOut.STALE: "stale (decided on earlier images)",
    LeftOut.DISPUTED: "disputed",
    LeftOut.TOO_FEW_REVIEWS: "too few reviews",
    LeftOut.UNREADABLE_REVIEW: "a review cannot be read",
    LeftOut.CONFLICTING_EDITS: "conflicting question edits",
    LeftOut.FINAL_OTHER: "final decision not exported",
}


@dataclass(frozen=True)
class Standing:
    """Where one valid case stands for a release: its final word and, when the release
    would not take it, why."""

    final: Final
    #: None: the release takes it
    left_out: LeftOut | None
    why: str


def release_standing(
    final: Final,
    current: int,
    disputed: bool,
    unreadable: str | None,
    conflicts: list[str],
    decisions: Collection[Decision] = DEFAULT_DECISIONS,
) -> Standing:
    """Whether a valid case goes into a release taking *decisions*, from its *final*
    decision (settled with the release's ``--min-reviews``), how many *current* decisions it
    has, whether it is *disputed*, an *unreadable* review (an ignored review could hide a
    rejection, so the case waits until the file is fixed) and question-edit *conflicts*."""
    if unreadable is not None:
        return Standing(final, LeftOut.UNREADABLE_REVIEW, unreadable)
    if final.decision is None:
        if disputed:
            return Standing(final, LeftOut.DISPUTED, final.why)
        if current:
            return Standing(final, LeftOut.TOO_FEW_REVIEWS, final.why)
        if final.stale:
            return Standing(final, LeftOut.STALE, final.why)
        return Standing(final, LeftOut.NOT_DECIDED, final.why)
    if final.decision not in decisions:
        return Standing(
            final, LeftOut.FINAL_OTHER, f"final decision {final.decision.label} ({final.why})"
        )
    if conflicts:
        why = (
            "conflicting question edits: "
            + "; ".join(conflicts)
            + "; an adjudicator's edit settles them"
        )
        return Standing(final, LeftOut.CONFLICTING_EDITS, why)
    return Standing(final, None, final.why)


@dataclass(frozen=True)
class Counts:
    """The curator's counts of one project (see the module docstring for each name)."""

    cases: int = 0
    invalid: int = 0
    decided_by_me: int = 0
    decided_by_anyone: int = 0
    stale: int = 0
    disputed: int = 0
    with_final: int = 0
    final_keep: int = 0
    left_out: dict[str, int] = field(default_factory=dict)

    @property
    def valid(self) -> int:
        return self.cases - self.invalid

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "valid": self.valid,
            "invalid": self.invalid,
            "decided_by_me": self.decided_by_me,
            "decided_by_anyone": self.decided_by_anyone,
            "stale": self.stale,
            "disputed": self.disputed,
            "with_final": self.with_final,
            "final_keep": self.final_keep,
            "left_out": dict(self.left_out),
        }

    def lines(self) -> list[str]:
        """The counts in words, each under its name (the text reports print these)."""
        out = [
            f"cases {self.cases}: valid {self.valid}, invalid {self.invalid}",
            f"decided by me {self.decided_by_me}, decided by anyone {self.decided_by_anyone}, "
            f"stale {self.stale}, disputed {self.disputed}",
            f"with final {self.with_final}, final Keep {self.final_keep}",
        ]
        if self.left_out:
            out.append("left out: " + left_out_text(self.left_out))
        return out


def left_out_text(left_out: dict[str, int]) -> str:
    """'7 not decided; 1 invalid' — the reasons in one line, largest first."""
    ordered = sorted(left_out.items(), key=lambda kv: (-kv[1], kv[0]))
    return "; ".join(f"{n} {LeftOut(reason).label}" for reason, n in ordered)


#: the rows of this reviewer's decisions that are not a decision (``my_row``)
INVALID_ROW = "invalid"
UNDECIDED_ROW = "not decided"
STALE_ROW = "stale"
UNKNOWN_SUBSET = "(unknown)"


def counts_as_mine(decision: Decision | None, stale: bool, valid: bool) -> bool:
    """``decided_by_me``'s rule: this reviewer's current decision (not one made on images
    since replaced) on a valid case."""
    return valid and decision is not None and not stale


def my_row(decision: Decision | None, stale: bool, valid: bool) -> str:
    """The one row of this reviewer's decisions (`stats`' "my decisions") a case is in."""
    if not valid:
        return INVALID_ROW
    if decision is None:
        return UNDECIDED_ROW
    if stale:
        return STALE_ROW
    return decision.value


def index_part(entry: CaseEntry) -> tuple[int, int, int]:
    """What one index entry adds to the counts the index can tell (the case list's
    footer): (invalid, decided_by_me, unchecked), each 0 or 1, by the rules above.
    ``unchecked``: valid as far as the index's quick look knows, the full check not yet
    recorded (``Project.record_verdict``)."""
    valid = entry.problem is None
    mine = counts_as_mine(entry.decision, entry.stale, valid)
    return (not valid), mine, valid and not entry.checked


@dataclass(frozen=True)
class CaseCount:
    """What one case adds to the counts (``ratings.rate`` makes one per valid case,
    ``invalid_count`` one per invalid case)."""

    mine: bool  # the current reviewer has a current decision on it
    anyone: bool
    stale: bool
    disputed: bool
    #: None: the case is invalid (it is left out of every release, whatever it holds)
    standing: Standing | None
    subset: str = UNKNOWN_SUBSET
    #: its row of this reviewer's decisions (``my_row``)
    mine_row: str = UNDECIDED_ROW

    @property
    def valid(self) -> bool:
        return self.standing is not None


def invalid_count(subset: str | None) -> CaseCount:
    """What an invalid case adds: one ``invalid``, nothing else."""
    return CaseCount(False, False, False, False, None, subset or UNKNOWN_SUBSET, INVALID_ROW)


def total(cases: Iterable[CaseCount]) -> Counts:
    """The counts of a project with these *cases* (every case, valid or not)."""
    n = invalid = mine = anyone = stale = disputed = with_final = keep = 0
    left_out: Counter[str] = Counter()
    for case in cases:
        n += 1
        if case.standing is None:
            invalid += 1
            left_out[LeftOut.INVALID.value] += 1
            continue
        mine += case.mine
        anyone += case.anyone
        stale += case.stale
        disputed += case.disputed
        with_final += case.standing.final.decision is not None
        if case.standing.left_out is None:
            keep += 1
        else:
            left_out[case.standing.left_out.value] += 1
    return Counts(
        cases=n,
        invalid=invalid,
        decided_by_me=mine,
        decided_by_anyone=anyone,
        stale=stale,
        disputed=disputed,
        with_final=with_final,
        final_keep=keep,
        left_out=dict(sorted(left_out.items())),
    )
