"""The pipeline's funnel: how many candidates reached each stage, from a specification to an
accepted case, what failed on the way and what the models cost so far.

Read from what the project already keeps (the staging folder, the index, the cost ledger);
its last stages are the curator's ``counts`` (``valid``, ``decided_by_anyone``,
``final_keep``), given by the caller who read the team's reviews, so `sabre-desk stats` and
the window's Pipeline panel show the very numbers every other report shows.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import CaseEntry, Project, Verdict
from sabre_desk.core.jobs.ledger import LEDGER_NAME, ModelPrice, summarize
from sabre_desk.core.making.incoming import StagedState, spec_failures, staged_cases
from sabre_desk.core.team.counts import Counts

#: Failures listed by name; the rest are counted.
SHOWN_FAILURES = 10
#: screened on the images and questions the case has now (a stale run does not count)
SCREENED = (ScreenStatus.SOLVED, ScreenStatus.KEPT)


@dataclass
class Funnel:
    spec_failures: int = 0  # specifications the design model never got right
    specified: int = 0  # waiting for images
    failed: int = 0  # their last image attempt failed
    imaged: int = 0  # cases in the project (made, imported or authored)
    screened: int = 0
    kept: int = 0  # screened and not solved: on to human review
    #: the curator's counts of the same names (``counts``; None: not read yet)
    valid: int | None = None
    decided_by_anyone: int | None = None
    final_keep: int | None = None
    #: (what, reason): a waiting case's id, a case's id whose screening failed, or
    #: "a specification (primer)"
    failures: list[tuple[str, str]] = field(default_factory=list)
    cost_usd: float | None = 0.0  # None: some model has no price
    calls: int = 0
    #: models whose calls cannot be priced (no price in the settings, or no usage reported)
    unpriced: list[str] = field(default_factory=list)

    @property
    def stages(self) -> list[tuple[str, int | None]]:
        """The funnel's rows, in the pipeline's order (name, count; None: not read yet)."""
        return [
            ("specified", self.specified + self.failed + self.imaged),
            ("imaged", self.imaged),
            ("valid", self.valid),
            ("screened", self.screened),
            ("kept by the filter", self.kept),
            ("decided by anyone", self.decided_by_anyone),
            ("final Keep", self.final_keep),
        ]

    def take_counts(self, counts: Counts) -> None:
        self.valid = counts.valid
        self.decided_by_anyone = counts.decided_by_anyone
        self.final_keep = counts.final_keep

    def to_json(self) -> dict[str, Any]:
        return {
            "spec_failures": self.spec_failures,
            "specified": self.specified,
            "failed": self.failed,
            "imaged": self.imaged,
            "screened": self.screened,
            "kept": self.kept,
            "valid": self.valid,
            "decided_by_anyone": self.decided_by_anyone,
            "final_keep": self.final_keep,
            "failures": [{"what": w, "reason": r} for w, r in self.failures],
            "calls": self.calls,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "unpriced": self.unpriced,
        }

    @property
    def cost_text(self) -> str:
        if self.cost_usd is not None:
            return f"${self.cost_usd:.2f}"
        return f"unknown (no price for {', '.join(self.unpriced) or 'a model'})"

    def lines(self) -> list[str]:
        out = ["pipeline:"]
        out += [f"  {name:24} {'–' if n is None else n:>6}" for name, n in self.stages]
        waiting = f"  waiting for images: {self.specified}, failed {self.failed}"
        out.append(waiting + f", specifications never valid: {self.spec_failures}")
        out.append(f"  model calls: {self.calls}, cost so far: {self.cost_text}")
        for what, reason in self.failures[:SHOWN_FAILURES]:
            out.append(f"  failed {what}: {reason}")
        if len(self.failures) > SHOWN_FAILURES:
            out.append(f"  … and {len(self.failures) - SHOWN_FAILURES} more failures")
        return out


#: why a case whose screening failed is listed with the failures
SCREENING_FAILED = (
    "screening: a call got no answer, so the filter could not decide; screen it again"
)


def count_cases(
    funnel: Funnel, entries: Sequence[CaseEntry], invalid: Collection[str] | None = None
) -> None:
    """Add *entries* (cases in the project) to the stages the index can tell. A stage
    counts a case only when the one before does: an invalid case is imaged, never
    screened or kept (nor a failed screening to list: it is left out whatever its
    screening says), as far as the index knows (``Project.record_verdict`` tells it what
    `validate` knows; *invalid*: the ids of the invalid cases, from the full check's
    verdicts, in place of the entries' own word)."""
    for entry in entries:
        funnel.imaged += 1
        if (entry.problem is not None) if invalid is None else (entry.case_id in invalid):
            continue
        if entry.screening in SCREENED:
            funnel.screened += 1
        elif entry.screening is ScreenStatus.FAILED:
            funnel.failures.append((entry.case_id, SCREENING_FAILED))
        if entry.screening is ScreenStatus.KEPT:
            funnel.kept += 1


def pipeline_funnel(
    project: Project,
    prices: Mapping[str, ModelPrice],
    entries: Sequence[CaseEntry] | None = None,
    counts: Counts | None = None,
    verdicts: Iterable[Verdict] | None = None,
) -> Funnel:
    """The funnel of *project*, counting *entries* (default: its index; the window passes
    a copy taken on its own thread and reads the rest on a worker), its last stages from
    *counts* (None: left unknown); *verdicts* (``TeamRatings.verdicts``, read with the
    counts) say which cases are invalid, so that no stage counts more than ``valid``."""
    funnel = Funnel()
    if counts is not None:
        funnel.take_counts(counts)
    root = project.root
    for staged in staged_cases(root):
        if staged.state is StagedState.FAILED:
            funnel.failed += 1
            funnel.failures.append((staged.case_id, staged.reason or "no reason recorded"))
        else:
            funnel.specified += 1
    failures = spec_failures(root)
    funnel.spec_failures = len(failures)
    funnel.failures += [
        (f"a specification ({f.get('primer', '?')})", str(f.get("reason", "?"))) for f in failures
    ]
    invalid = None if verdicts is None else {v.case_id for v in verdicts if not v.valid}
    count_cases(funnel, project.entries if entries is None else entries, invalid)
    if (root / LEDGER_NAME).is_file():
        cost = summarize(root / LEDGER_NAME, prices)
        funnel.cost_usd = cost.total_usd
        funnel.calls = sum(r.calls for r in cost.rows)
        funnel.unpriced = sorted({r.model for r in cost.rows if r.usd is None})
    return funnel
