"""Reading a Gemini reply, once for every caller (an answer, a specification, an image):
why a request was blocked (prompt feedback), why the model stopped (finish reason), which
parts are the answer (never a part marked as a thought), and what the model said, with the
key masked. Each Gemini path (``gemini_qa``, ``gemini_make``, ``gemini_image``, the batch
results) goes through here, so a reason reads the same wherever it shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sabre_desk.engines.gemini_call import scrub

FINISH_REASONS = {
    "FINISH_REASON_UNSPECIFIED": "the model stopped without saying why",
    "STOP": "the model finished without giving what was asked",
    "MAX_TOKENS": "the reply was cut off by the output-token limit",
    "SAFETY": "the model's safety filter stopped the reply",
    "RECITATION": "the reply was stopped because it recited existing material",
    "LANGUAGE": "the request's language is not supported",
    "OTHER": "the model stopped for an unnamed reason",
    "BLOCKLIST": "the request contains a blocked term",
    "PROHIBITED_CONTENT": "the request was judged prohibited content",
    "SPII": "the reply would have shown sensitive personal information",
    "MALFORMED_FUNCTION_CALL": "the model made a malformed tool call",
    "IMAGE_SAFETY": "the model's safety filter stopped the image",
    "IMAGE_PROHIBITED_CONTENT": "the image was judged prohibited content",
    "IMAGE_OTHER": "the model could not make the image",
    "NO_IMAGE": "the model answered without an image",
    "IMAGE_RECITATION": "the image was stopped because it recited an existing image",
    "UNEXPECTED_TOOL_CALL": "the model called a tool it was not given",
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls",
    "MISSING_THOUGHT_SIGNATURE": "the request lacked a thought signature the model needs",
    "MALFORMED_RESPONSE": "the model's reply was malformed",
    "ESCALATION": "the request was escalated for review",
    "PUP_LIMITED_DISABLED": "the model is not available for this account's usage",
    "CONTINUATION": "the reply stopped before it was complete",
    "MODEL_ARMOR": "a Model Armor policy stopped the reply",
}
#: Why a request was refused before any reply (prompt feedback), likewise.
BLOCK_REASONS = {
    "BLOCKED_REASON_UNSPECIFIED": "for an unnamed reason",
    "SAFETY": "by the safety filter",
    "OTHER": "for an unnamed reason",
    "BLOCKLIST": "for a blocked term",
    "PROHIBITED_CONTENT": "as prohibited content",
    "IMAGE_SAFETY": "by the image safety filter",
    "MODEL_ARMOR": "by a Model Armor policy",
    "JAILBREAK": "as an attempt to get around the model's rules",
}


def block_reason(response: Any) -> str | None:
    """Why the request was refused before any reply, in words (None: it was not)."""
    feedback = getattr(response, "prompt_feedback", None)
    block = getattr(feedback, "block_reason", None) if feedback is not None else None
    if not block:
        return None
    name = getattr(block, "name", str(block))
    why = BLOCK_REASONS.get(name, "for a reason this version does not know")
    return f"Gemini blocked the request {why} ({name})"


def finish_name(response: Any) -> str | None:
    """The first candidate's finish reason, by its API name ("STOP", "SAFETY"), or None."""
    candidates = getattr(response, "candidates", None) or []
    finish = getattr(candidates[0], "finish_reason", None) if candidates else None
    return getattr(finish, "name", str(finish)) if finish else None


def finish_words(name: str) -> str:
    return FINISH_REASONS.get(name, "for a reason this version does not know")


def answer_parts(response: Any) -> list[Any]:
    """The parts of the reply's first candidate that are the answer: a part marked as a
    thought (a draft the model made on its way) is never taken for the result."""
    candidates = getattr(response, "candidates", None) or []
    content = getattr(candidates[0], "content", None) if candidates else None
    parts = getattr(content, "parts", None) or []
    return [p for p in parts if not getattr(p, "thought", None)]


def reply_text(response: Any, key: str | None) -> list[str]:
    """The model's words, key masked (it may quote anything it was sent or told)."""
    return [
        scrub(str(getattr(p, "text", "")).strip(), key)
        for p in answer_parts(response)
        if getattr(p, "text", None)
    ]


@dataclass(frozen=True)
class TextReply:
    """A text reply read: its text, or why there is none; and the finish reason."""

    text: str | None
    failure: str | None
    finish: str | None


def read_text(response: Any, key: str | None, what: str = "answer") -> TextReply:
    """The reply's text (key masked), or the reason there is none: a block, a finish reason
    other than STOP, or no text at all. A reply cut off by the token limit after some text
    keeps its text (a short answer's first word is the answer); callers that need the whole
    of it (a specification) check ``finish``."""
    blocked = block_reason(response)
    finish = finish_name(response)
    if blocked:
        return TextReply(None, blocked, finish)
    raw = "".join(str(getattr(p, "text", None) or "") for p in answer_parts(response))
    text = scrub(raw, key).strip()
    if text:
        return TextReply(text, None, finish)
    if finish and finish != "STOP":
        return TextReply(None, f"no {what} came back: {finish_words(finish)} ({finish})", finish)
    return TextReply(None, f"no {what} came back (the reply had no text)", finish)
