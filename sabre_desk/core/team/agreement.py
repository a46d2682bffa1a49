"""How much the reviewers agree: Krippendorff's α, Cohen's κ and percent agreement.

Computed per subset and overall from the team's current ratings (``ratings``), each with
the number of cases it rests on and a 95 % percentile-bootstrap interval (whole cases
resampled, seeded, so a report is reproducible). Two scales:

- the six decisions, nominal (Keep, Needs recheck, Edited replacement failed, Base invalid,
  Scene changed, Unsure);
- accept / reject: Keep (what a release takes by default) against any other decision.

α (Krippendorff, nominal) uses every case with two or more ratings and any number of
reviewers, through the ``krippendorff`` package; κ (Cohen) and percent agreement are per
pair of reviewers over the cases both rated. Cases with a single rating, undecided cases
and stale decisions are counted in the report, not silently dropped. A figure that is
undefined (fewer than two rated cases, or every rating the same so that chance agreement is
total) is None, never a made-up 1.0 or 0.0.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import krippendorff
import numpy as np
from numpy.typing import NDArray

from sabre_desk.core.case.review import Decision
from sabre_desk.core.team.ratings import CaseRatings, TeamRatings

DECISIONS: tuple[Decision, ...] = tuple(Decision)
ACCEPT_REJECT = ("accept", "reject")
BOOTSTRAP = 1000
SEED = 42
ALL = "all"
#: resampled at once when bootstrapping κ (memory: CHUNK × cases integers)
CHUNK = 100

Scale = str  # "decisions" or "accept_reject"
SCALES: dict[Scale, tuple[str, ...]] = {
    "decisions": tuple(d.value for d in DECISIONS),
    "accept_reject": ACCEPT_REJECT,
}


def code(decision: Decision, scale: Scale) -> int:
    """The category of a decision on a scale (an index into SCALES[scale])."""
    if scale == "accept_reject":
        return 0 if decision is Decision.KEEP else 1
    return DECISIONS.index(decision)


@dataclass(frozen=True)
class Estimate:
    """A figure, the number of cases it rests on, and its 95 % bootstrap interval."""

    value: float | None
    n: int
    low: float | None = None
    high: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "value": _round(self.value),
            "n": self.n,
            "ci95": None if self.low is None else [_round(self.low), _round(self.high)],
        }

    def text(self) -> str:
        if self.value is None:
            return f"undefined (n={self.n})"
        interval = "" if self.low is None else f" [{self.low:.2f}, {self.high:.2f}]"
        return f"{self.value:.3f}{interval} (n={self.n})"


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


# --- the statistics ----------------------------------------------------------------------


def alpha_nominal(value_counts: NDArray[np.int64]) -> float | None:
    """Krippendorff's α (nominal) from a units × categories table of rating counts.

    Units with fewer than two ratings are not pairable and do not count."""
    pairable = value_counts[value_counts.sum(axis=1) >= 2]
    if len(pairable) < 1 or np.count_nonzero(pairable.sum(axis=0)) < 2:
        return None  # one category in all: no disagreement can be expected, α undefined
    value = float(krippendorff.alpha(value_counts=pairable, level_of_measurement="nominal"))
    return None if math.isnan(value) else value


def _kappas(
    a: NDArray[np.int64], b: NDArray[np.int64], k: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cohen's κ and observed agreement for each row of paired ratings *a*, *b*
    (replicates × cases); κ is NaN where chance agreement is total."""
    reps, n = a.shape
    cells = (a * k + b) + (np.arange(reps)[:, None] * k * k)
    table = np.bincount(cells.ravel(), minlength=reps * k * k).reshape(reps, k, k) / n
    observed = np.trace(table, axis1=1, axis2=2)
    chance = (table.sum(axis=2) * table.sum(axis=1)).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(chance < 1.0, (observed - chance) / (1.0 - chance), np.nan)
    return kappa, observed


def cohen_kappa(a: Sequence[int], b: Sequence[int], k: int) -> float | None:
    """Cohen's κ of two raters' categories (0 … k-1) on the same cases."""
    if not a:
        return None
    kappa, _ = _kappas(np.asarray([a]), np.asarray([b]), k)
    return None if math.isnan(kappa[0]) else float(kappa[0])


def _interval(values: NDArray[np.float64]) -> tuple[float | None, float | None]:
    values = values[~np.isnan(values)]
    if len(values) == 0:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def alpha_estimate(value_counts: NDArray[np.int64], bootstrap: int, seed: int) -> Estimate:
    pairable = value_counts[value_counts.sum(axis=1) >= 2]
    value = alpha_nominal(pairable)
    n = len(pairable)
    if value is None or bootstrap <= 0 or n < 2:
        return Estimate(value, n)
    rng = np.random.default_rng(seed)
    replicates = np.array(
        [
            a if (a := alpha_nominal(pairable[rng.integers(0, n, n)])) is not None else np.nan
            for _ in range(bootstrap)
        ]
    )
    return Estimate(value, n, *_interval(replicates))


def pair_estimates(
    a: NDArray[np.int64], b: NDArray[np.int64], k: int, bootstrap: int, seed: int
) -> tuple[Estimate, Estimate]:
    """(κ, percent agreement) of two raters, each with its bootstrap interval."""
    n = len(a)
    if n == 0:
        return Estimate(None, 0), Estimate(None, 0)
    kappa, observed = _kappas(a[None, :], b[None, :], k)
    value = None if math.isnan(kappa[0]) else float(kappa[0])
    percent = float(observed[0])
    if bootstrap <= 0 or n < 2:
        return Estimate(value, n), Estimate(percent, n)
    rng = np.random.default_rng(seed)
    kappas, observeds = [], []
    for start in range(0, bootstrap, CHUNK):
        idx = rng.integers(0, n, (min(CHUNK, bootstrap - start), n))
        k_rep, o_rep = _kappas(a[idx], b[idx], k)
        kappas.append(k_rep)
        observeds.append(o_rep)
    kappa_ci = _interval(np.concatenate(kappas)) if value is not None else (None, None)
    return Estimate(value, n, *kappa_ci), Estimate(
        percent, n, *_interval(np.concatenate(observeds))
    )


# --- the report ----------------------------------------------------------------------------


@dataclass
class PairAgreement:
    reviewers: tuple[str, str]
    n: int
    percent: Estimate
    kappa: Estimate
    percent_accept_reject: Estimate
    kappa_accept_reject: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewers": list(self.reviewers),
            "n": self.n,
            "decisions": {"percent": self.percent.to_json(), "kappa": self.kappa.to_json()},
            "accept_reject": {
                "percent": self.percent_accept_reject.to_json(),
                "kappa": self.kappa_accept_reject.to_json(),
            },
        }


@dataclass
class ScopeAgreement:
    """The figures of one subset (or of all cases)."""

    scope: str
    cases: int = 0  # valid cases
    not_decided: int = 0  # no current decision by anyone
    single: int = 0  # one rating: counted, not in α or κ
    multiple: int = 0  # two or more ratings: what α rests on
    stale: int = 0  # cases with a decision made on images since replaced (``counts``)
    disputed: int = 0
    adjudicated: int = 0
    alpha: Estimate = field(default_factory=lambda: Estimate(None, 0))
    alpha_accept_reject: Estimate = field(default_factory=lambda: Estimate(None, 0))
    pairs: list[PairAgreement] = field(default_factory=list)

    @property
    def decided_by_anyone(self) -> int:
        return self.cases - self.not_decided

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "cases": {
                "valid": self.cases,
                "decided_by_anyone": self.decided_by_anyone,
                "not_decided": self.not_decided,
                "single_rating": self.single,
                "two_or_more_ratings": self.multiple,
                "stale": self.stale,
                "disputed": self.disputed,
                "adjudicated": self.adjudicated,
            },
            "alpha": {
                "decisions": self.alpha.to_json(),
                "accept_reject": self.alpha_accept_reject.to_json(),
            },
            "pairs": [p.to_json() for p in self.pairs],
        }


@dataclass
class AgreementReport:
    overall: ScopeAgreement
    subsets: list[ScopeAgreement]
    reviewers: list[str]
    bootstrap: int
    seed: int
    problems: list[str] = field(default_factory=list)
    invalid: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewers": self.reviewers,
            "bootstrap": {"resamples": self.bootstrap, "seed": self.seed, "interval": 0.95},
            "overall": self.overall.to_json(),
            "subsets": {s.scope: s.to_json() for s in self.subsets},
            "invalid_cases": self.invalid,
            "problems": self.problems,
        }


def _value_counts(cases: list[CaseRatings], scale: Scale) -> NDArray[np.int64]:
    k = len(SCALES[scale])
    table = np.zeros((len(cases), k), dtype=np.int64)
    for row, case in enumerate(cases):
        for decision in case.decisions.values():
            table[row, code(decision, scale)] += 1
    return table


def _paired(
    cases: list[CaseRatings], a: str, b: str, scale: Scale
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    both = [c for c in cases if a in c.decisions and b in c.decisions]
    first = np.array([code(c.decisions[a], scale) for c in both], dtype=np.int64)
    second = np.array([code(c.decisions[b], scale) for c in both], dtype=np.int64)
    return first, second


def scope_agreement(
    scope: str, cases: list[CaseRatings], bootstrap: int = BOOTSTRAP, seed: int = SEED
) -> ScopeAgreement:
    result = ScopeAgreement(scope, cases=len(cases))
    for case in cases:
        n = len(case.decisions)
        result.not_decided += n == 0 and not case.adjudications
        result.single += n == 1
        result.multiple += n >= 2
        result.stale += bool(case.stale)
        result.disputed += case.disputed
        result.adjudicated += bool(case.adjudications)
    result.alpha = alpha_estimate(_value_counts(cases, "decisions"), bootstrap, seed)
    result.alpha_accept_reject = alpha_estimate(
        _value_counts(cases, "accept_reject"), bootstrap, seed
    )
    names = sorted({name for c in cases for name in c.decisions})
    for a, b in itertools.combinations(names, 2):
        x, y = _paired(cases, a, b, "decisions")
        if len(x) == 0:
            continue
        kappa, percent = pair_estimates(x, y, len(DECISIONS), bootstrap, seed)
        xb, yb = _paired(cases, a, b, "accept_reject")
        kappa_ar, percent_ar = pair_estimates(xb, yb, 2, bootstrap, seed)
        result.pairs.append(PairAgreement((a, b), len(x), percent, kappa, percent_ar, kappa_ar))
    return result


def agreement(
    ratings: TeamRatings,
    bootstrap: int = BOOTSTRAP,
    seed: int = SEED,
    progress: Callable[[str], None] | None = None,
) -> AgreementReport:
    """The agreement figures overall and per subset."""
    if progress is not None:
        progress(ALL)
    overall = scope_agreement(ALL, ratings.cases, bootstrap, seed)
    subsets = []
    for subset in ratings.subsets():
        if progress is not None:
            progress(subset)
        cases = [c for c in ratings.cases if c.subset == subset]
        subsets.append(scope_agreement(subset, cases, bootstrap, seed))
    return AgreementReport(
        overall, subsets, ratings.reviewers, bootstrap, seed, ratings.problems, ratings.invalid
    )


@dataclass(frozen=True)
class Confusion:
    """How two reviewers' decisions meet: rows are *a*'s, columns *b*'s."""

    reviewers: tuple[str, str]
    labels: tuple[str, ...]
    counts: list[list[int]]

    @property
    def n(self) -> int:
        return sum(map(sum, self.counts))

    def to_json(self) -> dict[str, Any]:
        return {
            "reviewers": list(self.reviewers),
            "labels": list(self.labels),
            "counts": self.counts,
        }


def confusion(
    ratings: TeamRatings, a: str, b: str, scope: str = ALL, scale: Scale = "decisions"
) -> Confusion:
    cases = [c for c in ratings.cases if scope == ALL or c.subset == scope]
    x, y = _paired(cases, a, b, scale)
    k = len(SCALES[scale])
    table = np.bincount(x * k + y, minlength=k * k).reshape(k, k) if len(x) else np.zeros((k, k))
    labels = tuple(d.label for d in DECISIONS) if scale == "decisions" else ("Accept", "Reject")
    return Confusion((a, b), labels, [[int(v) for v in row] for row in table])
