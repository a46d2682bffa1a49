"""What every reply of the official ``openai`` and ``anthropic`` clients passes through before
anything reads or keeps it: one check of its shape and one scrub of the key.

A server (a proxy, a debugging stand-in, a misconfigured local model) can answer 200 with an
HTML page, a JSON object of the wrong types, or a copy of the request with its key. The
clients hand such a body back as it came (a plain string for a non-JSON body), so each one is
turned here into a plain JSON object or a ``ReplyShapeError`` with one line of reason: the
caller records that as the call's failure, the way Gemini's path does, and the run goes on.
Every string in the object then has the key masked (``gemini_call.scrub``), so whatever the
app stores from the reply (answers, caches, ledgers, specifications, predictions) never holds
it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sabre_desk.engines.answers import Answer, Usage
from sabre_desk.engines.gemini_call import scrub

#: How much of a body that is not a JSON object a reason quotes.
QUOTED = 60


class ReplyShapeError(Exception):
    """The reply is not what the API's wire format says it is; ``reason`` says how."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def plain_reply(reply: Any) -> dict[str, Any]:
    """*reply* (the client's object, or what it made of a body it could not parse) as a plain
    JSON object, or ReplyShapeError naming what came instead."""
    if isinstance(reply, dict):
        return reply
    dump = getattr(reply, "model_dump", None)
    if callable(dump):
        try:
            data = dump(warnings=False)
        except (TypeError, ValueError) as exc:
            raise ReplyShapeError(f"its fields could not be read ({exc})"[:300]) from None
        if isinstance(data, dict):
            return data
    if isinstance(reply, bytes):
        reply = reply.decode("utf-8", "replace")
    if isinstance(reply, str):
        start = " ".join(reply.split())[:QUOTED]
        return _refuse(f"the body is not a JSON object (it begins {start!r})")
    return _refuse(f"the body is {type(reply).__name__}, not a JSON object")


def _refuse(reason: str) -> dict[str, Any]:
    raise ReplyShapeError(reason)


def scrub_json(value: Any, key: str | None) -> Any:
    """*value* (JSON: objects, arrays, strings, numbers) with the key masked in every string,
    keys of objects included."""
    if not key:
        return value
    if isinstance(value, str):
        return scrub(value, key)
    if isinstance(value, dict):
        return {scrub(str(k), key): scrub_json(v, key) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub_json(v, key) for v in value]
    return value


def scrub_answer(answer: Answer, key: str | None) -> Answer:
    """*answer* with the key masked in its text, reason and finish reason."""
    if not key:
        return answer
    return replace(
        answer,
        text=None if answer.text is None else scrub(answer.text, key),
        failure=None if answer.failure is None else scrub(answer.failure, key),
        finish=None if answer.finish is None else scrub(answer.finish, key),
    )


def count(value: Any) -> int | None:
    """A token count as the server gave it, or None when it is not a whole number."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage(**counts: Any) -> Usage:
    """A Usage of *counts*, each one kept only when it is a whole number."""
    return Usage(**{name: count(v) for name, v in counts.items()})


def objects(value: Any) -> list[dict[str, Any]]:
    """The JSON objects of an array field (``choices``, ``content``); anything else: none."""
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
