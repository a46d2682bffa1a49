"""Scoring model responses on a release (SABRE paper, Appendix A; docs/scoring.md).

The answer rules themselves (parsing, All4) are in ``answer_rules``; this adds Edit2 (both
Edited probes right), the probe accuracies, the macro average and the intervals.
Confidence intervals: percentile bootstrap, 20,000 resamples, seed 42, resampling cases within
each subset (a case's probes stay together) and recomputing every subset and the macro average
per replicate, vectorized.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sabre_desk.core.case.answer_rules import (
    CASE_SCORED,
    NUMBER_WORDS,
    PRIOR_PRIMARIES,
    PROBES,
    case_counts,
    grade,
    is_case_scored,
    is_correct,
    normalize,
    parse,
)

# The rules are imported from here by the screening and the tests as well.
__all__ = [
    "CASE_SCORED",
    "NUMBER_WORDS",
    "PRIOR_PRIMARIES",
    "PROBES",
    "Report",
    "Sample",
    "grade",
    "is_correct",
    "judge",
    "normalize",
    "parse",
    "score",
]

RESAMPLES, SEED = 20_000, 42


@dataclass
class Sample:
    """One question of a released benchmark with the model's response (or none)."""

    question_id: str
    group_id: str
    subset: str
    probe: str
    eval_type: str
    answer: str
    response: str | None = None


@dataclass
class SubsetScore:
    subset: str
    metric: str  # "All4" or "accuracy"
    cases: int
    questions: int
    accuracy: float
    ci: tuple[float, float]
    edit2: float | None = None
    probes: dict[str, float] = field(default_factory=dict)


@dataclass
class Report:
    subsets: list[SubsetScore]
    macro: float | None  # over the Prior primaries present (None: none of them)
    macro_ci: tuple[float, float] | None
    macro_all: float  # over every subset present, pilots included
    macro_all_ci: tuple[float, float]
    questions: int
    missing: int
    unparseable: int
    #: question_id → whether it was judged right (None: no response), by ``judge``: what
    #: every figure above is computed from, so a per-question view agrees with them.
    right: dict[str, bool | None] = field(default_factory=dict)

    @property
    def macro_subsets(self) -> list[str]:
        return [s.subset for s in self.subsets if s.subset in PRIOR_PRIMARIES]

    def to_json(self) -> dict[str, Any]:
        return {
            "macro": None if self.macro is None else round(self.macro, 4),
            "macro_ci95": None if self.macro_ci is None else [round(v, 4) for v in self.macro_ci],
            "macro_subsets": self.macro_subsets,
            "macro_all_subsets": round(self.macro_all, 4),
            "macro_all_subsets_ci95": [round(v, 4) for v in self.macro_all_ci],
            "questions": self.questions,
            "missing_predictions": self.missing,
            "unparseable": self.unparseable,
            "subsets": [
                {
                    "subset": s.subset,
                    "metric": s.metric,
                    "cases": s.cases,
                    "questions": s.questions,
                    "accuracy": round(s.accuracy, 4),
                    "ci95": [round(v, 4) for v in s.ci],
                    **({"edit2": round(s.edit2, 4)} if s.edit2 is not None else {}),
                    **(
                        {"probes": {k: round(v, 4) for k, v in s.probes.items()}}
                        if s.probes
                        else {}
                    ),
                }
                for s in self.subsets
            ],
        }


def _bootstrap(
    right: np.ndarray, total: np.ndarray, rng: np.random.Generator, resamples: int, chunk: int = 500
) -> np.ndarray:
    """Accuracy per replicate, resampling cases (rows) with replacement."""
    n = len(right)
    out = np.empty(resamples, np.float64)
    for start in range(0, resamples, chunk):
        stop = min(resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = right[idx].sum(axis=1) / np.maximum(total[idx].sum(axis=1), 1)
    return out


def _macro(
    subsets: list[SubsetScore], replicates: list[np.ndarray], which: list[int]
) -> tuple[float, tuple[float, float]]:
    """The unweighted mean of the chosen subsets' accuracies, with its bootstrap interval."""
    if not which:
        return 0.0, (0.0, 0.0)
    value = float(np.mean([subsets[i].accuracy for i in which]))
    reps = np.mean(np.vstack([replicates[i] for i in which]), axis=0)
    return value, (float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5)))


def judge(sample: Sample) -> tuple[bool | None, str | None]:
    """Whether *sample*'s response is right (None: it has no response, which counts wrong),
    and what the rules parsed from it: the one per-question judgement ``score`` counts."""
    if sample.response is None:
        return None, None
    return is_correct(sample.eval_type, sample.response, sample.answer)


def score(samples: Iterable[Sample], resamples: int = RESAMPLES, seed: int = SEED) -> Report:
    samples = list(samples)
    missing = sum(s.response is None for s in samples)
    unparseable = 0
    judged: dict[str, bool | None] = {}
    by_subset: dict[str, dict[str, dict[str, bool]]] = {}
    for s in samples:
        ok, parsed = judge(s)
        judged[s.question_id] = ok
        unparseable += ok is not None and parsed is None
        by_subset.setdefault(s.subset, {}).setdefault(s.group_id, {})[s.probe] = bool(ok)
    rng = np.random.default_rng(seed)
    subsets: list[SubsetScore] = []
    replicates: list[np.ndarray] = []
    for subset in sorted(by_subset):
        cases = by_subset[subset]
        paired = is_case_scored(subset, cases)
        counts = np.array(case_counts(subset, cases), np.float64).reshape(-1, 2)
        right, total = counts[:, 0], counts[:, 1]
        accuracy = float(right.sum() / total.sum())
        reps = _bootstrap(right, total, rng, resamples)
        replicates.append(reps)
        result = SubsetScore(
            subset,
            "All4" if paired else "accuracy",
            len(cases),
            sum(len(c) for c in cases.values()),
            accuracy,
            (float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))),
        )
        if paired:
            result.edit2 = float(
                np.mean([c["edited_source"] and c["edited_target"] for c in cases.values()])
            )
            result.probes = {
                f"Q{i} {p}": float(np.mean([c[p] for c in cases.values()]))
                for i, p in enumerate(PROBES, 1)
            }
        subsets.append(result)
    prior = [i for i, s in enumerate(subsets) if s.subset in PRIOR_PRIMARIES]
    macro_all, macro_all_ci = _macro(subsets, replicates, list(range(len(subsets))))
    macro, macro_ci = _macro(subsets, replicates, prior) if prior else (None, None)
    return Report(
        subsets,
        macro,
        macro_ci,
        macro_all,
        macro_all_ci,
        len(samples),
        missing,
        unparseable,
        judged,
    )
