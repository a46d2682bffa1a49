"""Anthropic's API through the official ``anthropic`` client (optional extra
``[anthropic]``): one image and one prompt answered (screening, ``predict``), and a
specification written as structured output through tool use (one tool whose input schema is
the specification's JSON Schema, the model made to call it).

The image goes as a base64 block in the user message, after it the same zero-shot prompt the
other providers get; no extended thinking. The Messages API of the client takes no
temperature (Anthropic's current models fix their own sampling), so none is sent. Every
failure is a reason, never an answer.
"""

from __future__ import annotations

import base64
import json
import threading
from typing import Any

from sabre_desk.engines.answers import (
    Answer,
    AnswerConfig,
    AnswerRequest,
    Usage,
)
from sabre_desk.engines.gemini_make import MakeFailedError, Written
from sabre_desk.engines.models import ModelName, Provider, base_url
from sabre_desk.engines.reply_shape import count, objects, plain_reply
from sabre_desk.engines.reply_shape import usage as usage_from
from sabre_desk.engines.sdk_call import SdkClient, SdkWriter

SPEC_TOOL = "write_specification"
SPEC_MAX_TOKENS = 16_000
STOP_REASONS = {
    "max_tokens": "the reply was cut off by the output-token limit",
    "refusal": "the model refused to answer",
    "pause_turn": "the model paused its turn",
    "model_context_window_exceeded": "the request does not fit the model's context window",
}


def message_request(model: str, request: AnswerRequest) -> dict[str, Any]:
    """The Messages API's arguments for one question (also a batch request's params)."""
    data = base64.b64encode(request.image).decode("ascii")
    return {
        "model": model,
        "max_tokens": request.config.max_output_tokens,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": request.mime_type, "data": data},
                    },
                    {"type": "text", "text": request.prompt},
                ],
            }
        ],
    }


def usage_of(reply: dict[str, Any]) -> Usage | None:
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return None
    read = [count(usage.get(k)) for k in ("cache_creation_input_tokens", "cache_read_input_tokens")]
    base = count(usage.get("input_tokens"))
    total = base + sum(v for v in read if v is not None) if base is not None else None
    return usage_from(input=total, output=usage.get("output_tokens"))


def read_reply(reply: Any) -> Answer:
    """A message (the client's object or its JSON) as an Answer; a reply of another shape
    raises ReplyShapeError (``reply_shape``), fields of the wrong type count as absent."""
    message = plain_reply(reply)
    usage = usage_of(message)
    stop = message.get("stop_reason")
    stop = stop if isinstance(stop, str) else None
    blocks = objects(message.get("content"))
    text = "".join(
        b["text"] for b in blocks if b.get("type") == "text" and isinstance(b.get("text"), str)
    ).strip()
    if text:
        return Answer(text, usage, None, stop)
    why = STOP_REASONS.get(str(stop), "the reply had no text")
    return Answer(None, usage, f"no answer came back ({why})", stop)


class AnthropicAnswerer:
    """The question-answering client for ``anthropic:`` models; thread-safe."""

    kind = Provider.ANTHROPIC.value

    def __init__(
        self,
        model: str,
        base_url_: str | None = None,
        timeout_s: float = 60.0,
        deadline_s: float = 180.0,
        attempts: int = 4,
    ) -> None:
        self.name = ModelName(Provider.ANTHROPIC, model)
        #: what is recorded (ledger, runs, predictions): ``provider:model``
        self.model = self.name.qualified
        self.base_url = base_url_ or base_url(Provider.ANTHROPIC)
        self.deadline_s = max(deadline_s, timeout_s)
        self.sdk = SdkClient(self.name, self.base_url, timeout_s, attempts)

    def close(self) -> None:
        self.sdk.close()

    def unavailable_reason(self) -> str | None:
        return self.sdk.unavailable_reason()

    def config_for(self, max_output_tokens: int) -> AnswerConfig:
        return AnswerConfig(0.0, max_output_tokens, None)

    def answer(self, request: AnswerRequest, cancel: threading.Event) -> Answer:
        body = message_request(self.name.model, request)
        return self.sdk.answer(
            lambda c: c.messages.create(**body), request, cancel, self.deadline_s, read_reply
        )


class AnthropicWriter(SdkWriter):
    """Writes a specification through tool use: the model must call one tool whose input
    schema is the specification's, and the tool call's input is the specification."""

    def __init__(
        self,
        model: str,
        base_url_: str | None = None,
        timeout_s: float = 120.0,
        attempts: int = 4,
    ) -> None:
        deadline = timeout_s * attempts
        super().__init__(AnthropicAnswerer(model, base_url_, timeout_s, deadline, attempts))

    def write(
        self, turns: list[tuple[str, str]], schema: dict[str, Any], cancel: threading.Event
    ) -> Written:
        body = {
            "model": self.answerer.name.model,
            "max_tokens": SPEC_MAX_TOKENS,
            "messages": self.messages(turns),
            "tools": [
                {
                    "name": SPEC_TOOL,
                    "description": "Record one Sample Specification.",
                    "input_schema": schema,
                }
            ],
            "tool_choice": {"type": "tool", "name": SPEC_TOOL},
        }
        message = self.ask(lambda c: c.messages.create(**body), cancel)
        usage = usage_of(message)
        stop = str(message.get("stop_reason"))
        if stop == "max_tokens":
            raise MakeFailedError(STOP_REASONS["max_tokens"], usage)
        for block in objects(message.get("content")):
            made = block.get("input")
            if isinstance(made, dict) and block.get("type") == "tool_use":
                return Written.specification(
                    json.dumps(made, ensure_ascii=False), usage, self.model
                )
        why = STOP_REASONS.get(stop, "the model did not call the specification tool")
        raise MakeFailedError(f"no specification came back ({why})", usage)
