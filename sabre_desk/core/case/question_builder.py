"""The Question Builder's part that needs no model (the paper's Appendix B): the position of
Language Elicitation's "unknown" option, balanced across a subset.

If the unknown option sat at D in most questions, a model answering "D" every time would
look like one that knows when the image cannot answer. The paper shuffles it and balances
it across the subset; here a seeded builder moves the option (and the answer letter with it)
so each position gets its share, and `validate` reports a subset whose positions are
lopsided.
"""

from __future__ import annotations

import random
from collections import Counter
from copy import deepcopy
from typing import Any

from sabre_desk.core.case.spec import OPTION_LETTERS

#: χ² with 3 degrees of freedom above which four positions are called unbalanced (p < 0.01).
CHI2_LIMIT = 11.34
#: Below this many questions a lopsided count is chance, not a finding.
MIN_QUESTIONS = 8


def unknown_index(options: list[str], words: list[str]) -> int | None:
    """Where the one option that says "cannot be determined" sits, or None (none or several)."""
    lowered = [w.lower() for w in words]
    hits = [i for i, o in enumerate(options) if any(w in o.lower() for w in lowered)]
    return hits[0] if len(hits) == 1 else None


def balance_unknown(
    specs: list[dict[str, Any]], words: list[str], seed: int
) -> list[dict[str, Any]]:
    """Copies of *specs* whose multiple-choice questions carry the unknown option at A, B, C
    and D in turn (a seeded order), the other options keeping their relative order and the
    answer letter following the unknown option."""
    targets: list[int] = []
    rng = random.Random(seed)
    out = deepcopy(specs)
    for spec in out:
        for question in spec.get("questions", []):
            options = question.get("options")
            if question.get("question_type") != "multiple_choice" or not options:
                continue
            at = unknown_index(options, words)
            if at is None:
                continue
            if not targets:
                targets = list(range(len(options)))
                rng.shuffle(targets)
            _move_unknown(question, at, targets.pop())
    return out


def _move_unknown(question: dict[str, Any], at: int, target: int) -> None:
    """The option at *at* moved to *target*, the others keeping their order, the answer
    letter following it."""
    options = list(question["options"])
    unknown = options.pop(at)
    options.insert(target, unknown)
    question["options"] = options
    if question.get("answer") == OPTION_LETTERS[at]:
        question["answer"] = OPTION_LETTERS[target]


def place_unknown(
    question: dict[str, Any], positions: list[int], words: list[str], rng: random.Random
) -> int | None:
    """Move *question*'s unknown option (and the answer letter with it) to the position the
    subset has used least so far (*positions*: where it sits in the questions before), ties
    broken by *rng*; returns the new position, or None when there is no single one."""
    options = question.get("options")
    if not options or len(options) != len(OPTION_LETTERS):
        return None
    at = unknown_index(options, words)
    if at is None:
        return None
    counts = Counter(positions)
    fewest = min(counts.get(i, 0) for i in range(len(options)))
    target = rng.choice([i for i in range(len(options)) if counts.get(i, 0) == fewest])
    _move_unknown(question, at, target)
    return target


def imbalance(positions: list[int]) -> str | None:
    """Why the unknown option's positions are lopsided, in words, or None."""
    if len(positions) < MIN_QUESTIONS:
        return None
    counts = Counter(positions)
    expected = len(positions) / len(OPTION_LETTERS)
    chi2 = sum((counts.get(i, 0) - expected) ** 2 / expected for i in range(len(OPTION_LETTERS)))
    if chi2 <= CHI2_LIMIT:
        return None
    spread = ", ".join(f"{letter} {counts.get(i, 0)}" for i, letter in enumerate(OPTION_LETTERS))
    return (
        f"the 'unknown' option is unbalanced across the subset ({spread} of {len(positions)} "
        "questions): a model that always picks one letter would not score as chance"
    )
