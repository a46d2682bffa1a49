"""The SABRE paper's answer rules (Appendix A): parsing a response, and what counts as right.

This module is the one definition of those rules. It imports nothing but the standard
library on purpose: a release carries its source verbatim inside the lmms-eval task's
``utils.py``, so a model scored by lmms-eval, by VLMEvalKit's predictions through
``sabre-desk score``, or by the filter during screening is judged by the same lines.

An unparseable response is incorrect, never an error. Context and Texture are scored per
case (All4: all four probes right); the other subsets per question.
"""

from __future__ import annotations

import re

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
#: The paper's "Macro Avg." (Table 7): the four SABRE-Prior primary metrics only —
#: Context All4, Texture All4, Attribute count accuracy, Language Elicitation MCQ accuracy.
#: Defined here, not in the scorer, so a release's lmms-eval task averages the same subsets.
PRIOR_PRIMARIES = ("context_prior", "texture_prior", "attribute_count", "language_elicitation")

_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
_YES_NO_START = re.compile(r"^\W*(yes|no)\b")
_LETTER = re.compile(r"(?<![A-Za-z0-9'])([A-D])(?![A-Za-z0-9'])")
#: A lowercase letter counts only where it cannot be the article "a" or a word: alone,
#: in brackets, or after "answer"/"option" ("(b)", "b.", "Answer: b").
_LOWER_LETTER = re.compile(
    r"^\W*\(?([a-d])\)?\W*$|\((?:[a-d])\)|(?:answer|option)\s*(?:is)?\s*:?\s*\(?([a-d])\b",
)
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
        # "It is a closed box, so D": the article is not option A.
        letter = _LETTER.search(text)
        if letter:
            return letter.group(1)
        lower = _LOWER_LETTER.search(text.lower())
        if lower:
            chosen: str = lower.group(1) or lower.group(2) or lower.group(0).strip("()")
            return chosen.upper()
        return None
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
    """Whether *response* gives *answer* under *eval_type*'s rule, and what was parsed."""
    parsed = parse(eval_type, response)
    return grade(eval_type, parsed, answer), parsed


def is_case_scored(subset: str, cases: dict[str, dict[str, bool]]) -> bool:
    """Whether a subset is scored per case (All4): Context or Texture with all four probes."""
    return subset in CASE_SCORED and all(set(c) >= set(PROBES) for c in cases.values())


def case_counts(subset: str, cases: dict[str, dict[str, bool]]) -> list[tuple[int, int]]:
    """(right, counted) per case of a subset: a case counts once under All4 (right only when
    all four probes are), else every question counts once."""
    if is_case_scored(subset, cases):
        return [(int(all(c[p] for p in PROBES)), 1) for c in cases.values()]
    return [(sum(c.values()), len(c)) for c in cases.values()]


def subset_accuracies(results: list[tuple[str, str, str, bool]]) -> dict[str, float]:
    """Accuracy per subset (All4 where it applies) from (subset, group_id, probe, right)."""
    by_subset: dict[str, dict[str, dict[str, bool]]] = {}
    for subset, group, probe, right in results:
        by_subset.setdefault(subset, {}).setdefault(group, {})[probe] = right
    accuracies = {}
    for subset, cases in sorted(by_subset.items()):
        counts = case_counts(subset, cases)
        accuracies[subset] = sum(r for r, _ in counts) / max(sum(n for _, n in counts), 1)
    return accuracies
