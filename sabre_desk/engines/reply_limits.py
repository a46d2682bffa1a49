"""How much each kind of model reply may weigh, from the one table of limits
(``ground.reading.LIMITS``): every model client hands one of these to its Budget, and the
transport (``deadline_http``) stops reading at it. A reply over its limit is a failed call
with the reason, never stored: nothing the app keeps of a reply can outgrow what its own
readers accept."""

from __future__ import annotations

from sabre_desk.engines.deadline_http import ReplyLimit
from sabre_desk.ground.reading import LIMITS


def answer_limit(max_output_tokens: int) -> ReplyLimit:
    """A short text answer: the envelope plus a few bytes per output token it may use."""
    tokens = max(1, max_output_tokens)
    size = LIMITS["model answer"] + tokens * LIMITS["model reply per token"]
    return ReplyLimit(size, f"an answer of at most {tokens} tokens")


def spec_limit() -> ReplyLimit:
    return ReplyLimit(LIMITS["model spec reply"], "a specification")


def image_limit() -> ReplyLimit:
    return ReplyLimit(LIMITS["model image reply"], "an image")


def batch_limit() -> ReplyLimit:
    return ReplyLimit(LIMITS["model batch results"], "a batch job's results")


def image_batch_limit() -> ReplyLimit:
    return ReplyLimit(LIMITS["model image batch results"], "a batch job's images")
