"""Parsing model responses and scoring them (SABRE paper, Appendix A; SCORING.md).

An unparseable response is incorrect, never an error. Context and Texture are scored per case
(All4: all four probes right; Edit2: both Edited probes right); the other subsets per question.
Confidence intervals: percentile bootstrap, 20,000 resamples, seed 42, resampling cases within
each subset (a case's probes stay together) and recomputing every subset and the macro average
per replicate, vectorized.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
}
CASE_SCORED = ("context_prior", "texture_prior")
PROBES = ("base_source", "base_target", "edited_source", "edited_target")
RESAMPLES, SEED = 20_000, 42

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
_YES_NO_START = re.compile(r"^\W*(yes|no)\b")
_LETTER = re.compile(r"(?<![A-Za-z0-9])([A-Da-d])(?![A-Za-z0-9])")
_INTEGER = re.compile(r"(?<![\d.-])(\d+)(?![\d.])")


def normalize(text: str) -> str:
    """Case, spacing and punctuation do not matter: 'Blue  cube.' == 'blue cube'."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", text.lower())).strip()


def parse(eval_type: str, response: str) -> str | None:
    """The answer a response gives under *eval_type*'s rule, or None (unparseable)."""
    text = response or ""
    if eval_type == "yes_no_exact":
        lowered = text.lower().strip()
        start = _YES_NO_START.match(lowered)
        if start:
            return start.group(1)
        found = {w for w in ("yes", "no") if re.search(rf"\b{w}\b", lowered)}
        return found.pop() if len(found) == 1 else None
    if eval_type == "mcq_letter":
        letter = _LETTER.search(text)
        return letter.group(1).upper() if letter else None
    if eval_type == "count_exact":
        words = normalize(text).split()
        for word in words:
            if word in NUMBER_WORDS:
                return str(NUMBER_WORDS[word])
            match = _INTEGER.fullmatch(word)
            if match:
                return str(int(match.group(1)))
        return None
    if eval_type in ("exact_match", "contains"):
        return normalize(text) or None
    raise ValueError(f"unknown eval_type {eval_type!r}")


def grade(eval_type: str, parsed: str | None, answer: str) -> bool:
    """Whether a parsed answer (``parse``'s result) matches the reference answer."""
    if parsed is None:
        return False
    if eval_type == "contains":
        return normalize(answer) in parsed
    if eval_type == "exact_match":
        return parsed == normalize(answer)
    if eval_type == "count_exact":
        try:
            return parsed == str(int(answer))
        except ValueError:
            return False
    if eval_type == "yes_no_exact":
        return parsed == answer.strip().lower()
    return parsed == answer.strip().upper()  # mcq_letter


def is_correct(eval_type: str, response: str, answer: str) -> tuple[bool, str | None]:
    parsed = parse(eval_type, response)
    return grade(eval_type, parsed, answer), parsed


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
    macro: float
    macro_ci: tuple[float, float]
    questions: int
    missing: int
    unparseable: int

    def to_json(self) -> dict[str, Any]:
        return {
            "macro": round(self.macro, 4),
            "macro_ci95": [round(v, 4) for v in self.macro_ci],
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


def score(samples: Iterable[Sample], resamples: int = RESAMPLES, seed: int = SEED) -> Report:
    samples = list(samples)
    missing = sum(s.response is None for s in samples)
    unparseable = 0
    by_subset: dict[str, dict[str, dict[str, bool]]] = {}
    for s in samples:
        ok = False
        if s.response is not None:
            ok, parsed = is_correct(s.eval_type, s.response, s.answer)
            unparseable += parsed is None
        by_subset.setdefault(s.subset, {}).setdefault(s.group_id, {})[s.probe] = ok
    rng = np.random.default_rng(seed)
    subsets: list[SubsetScore] = []
    replicates: list[np.ndarray] = []
    for subset in sorted(by_subset):
        cases = by_subset[subset]
        paired = subset in CASE_SCORED and all(set(c) >= set(PROBES) for c in cases.values())
        if paired:
            right = np.array([all(c[p] for p in PROBES) for c in cases.values()], np.float64)
            total = np.ones(len(cases))
        else:
            right = np.array([sum(c.values()) for c in cases.values()], np.float64)
            total = np.array([len(c) for c in cases.values()], np.float64)
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
    macro = float(np.mean([s.accuracy for s in subsets])) if subsets else 0.0
    macro_reps = np.mean(np.vstack(replicates), axis=0) if replicates else np.zeros(1)
    return Report(
        subsets,
        macro,
        (float(np.percentile(macro_reps, 2.5)), float(np.percentile(macro_reps, 97.5))),
        len(samples),
        missing,
        unparseable,
    )
