"""The longest model answer kept: a reply over it is a failed call, kept as a reason.

The prompts ask for a word, a letter or a number in a few tokens. A reply of megabytes (a
model that rambles, a service that misbehaves) is no answer: stored whole it would make the
case's screening.json, its request-cache entry or a predictions file too large for the
app's own readers. So it becomes a failure whose reason gives the length and a short
excerpt; the reply itself is never written anywhere.
"""

from __future__ import annotations

from dataclasses import replace

from sabre_desk.engines.answers import Answer
from sabre_desk.ground.reading import EXCERPT_CHARS, LIMITS, human_size


def answer_size_problem(text: str) -> str | None:
    """Why *text* is too long to be kept as a model answer, or None."""
    limit = LIMITS["kept answer"]
    if len(text) * 4 <= limit:  # UTF-8 takes at most 4 bytes a character
        return None
    exact = len(text) <= 1024 * limit  # a larger one is not copied just to be measured
    size = len(text.encode("utf-8", "replace")) if exact else len(text)
    if size <= limit:
        return None
    shown = "" if exact else "at least "
    excerpt = " ".join(text[:EXCERPT_CHARS].split())
    return (
        f"the answer is too long ({shown}{human_size(size)}; the limit is "
        f"{human_size(limit)}); it begins {excerpt!r}"
    )


def bounded(answer: Answer) -> Answer:
    """*answer* as it is, or a failure with the reason when its text is over the limit."""
    if answer.text is None:
        return answer
    problem = answer_size_problem(answer.text)
    if problem is None:
        return answer
    return replace(answer, text=None, failure=problem)
