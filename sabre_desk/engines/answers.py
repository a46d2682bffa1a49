"""The small protocol every question-answering engine speaks (the Filtering VLM, a model
under evaluation): one image, one prompt, a short text back.

A call that does not produce an answer (no text, a safety block, a timeout, the network)
comes back as an ``Answer`` with a ``failure`` reason, never as an empty or made-up answer
that a scorer would count wrong. Only a cancel raises.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from sabre_desk.ground.reading import LIMITS, human_size


class AnswerCancelledError(Exception):
    """The run was cancelled while this call was under way; nothing is recorded for it."""


@dataclass(frozen=True)
class Usage:
    """Tokens one call used, as the service reported them (None: not reported)."""

    input: int | None = None
    output: int | None = None
    image: int | None = None
    thoughts: int | None = None

    def to_json(self) -> dict[str, int]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_json(cls, data: Any) -> Usage | None:
        if not isinstance(data, dict):
            return None
        fields = ("input", "output", "image", "thoughts")
        return cls(**{k: int(data[k]) for k in fields if isinstance(data.get(k), int)})


@dataclass(frozen=True)
class AnswerConfig:
    """How the model is asked: greedy decoding, a short reply, as little thinking as the
    model allows (``thinking``: the service's own setting, or None to send none)."""

    temperature: float = 0.0
    max_output_tokens: int = 16
    thinking: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "temperature": self.temperature,
            "max_output_tokens": self.max_output_tokens,
        }
        if self.thinking is not None:
            data["thinking"] = dict(sorted(self.thinking.items()))
        return data


@dataclass(frozen=True)
class AnswerRequest:
    image: bytes
    mime_type: str
    prompt: str
    config: AnswerConfig = field(default_factory=AnswerConfig)
    #: a label for messages ("case ctx01 probe edited_target"), never sent
    label: str = ""


@dataclass(frozen=True)
class Answer:
    text: str | None
    usage: Usage | None = None
    failure: str | None = None  # why no answer came back; text is None then
    finish: str | None = None  # the service's finish reason, when it gave one

    @property
    def failed(self) -> bool:
        return self.failure is not None


def within_limit(answer: Answer, max_output_tokens: int | None) -> Answer:
    """*answer*, or a failed one when its text is longer than its output tokens can make
    (``LIMITS["model reply per token"]`` bytes a token; None, for a batch's answers: the
    longest answer kept anywhere): a model that ignored its limit is not kept verbatim."""
    if answer.text is None:
        return answer
    per_token = LIMITS["model reply per token"]
    limit = LIMITS["kept answer"] if max_output_tokens is None else max_output_tokens * per_token
    size = len(answer.text.encode("utf-8"))
    if size <= limit:
        return answer
    why = (
        f"the answer is {human_size(size)}, longer than {max_output_tokens} output tokens can be"
        if max_output_tokens is not None
        else f"the answer is {human_size(size)}, longer than an answer may be"
    )
    return Answer(None, answer.usage, f"{why} ({human_size(limit)}); not kept", answer.finish)


class AnswerEngine(Protocol):
    #: "gemini" or "local": part of every cache key and ledger line
    kind: str
    model: str

    def unavailable_reason(self) -> str | None:
        """Why this engine cannot run here (no key, the optional package missing), or None."""
        ...

    def config_for(self, max_output_tokens: int) -> AnswerConfig:
        """The configuration this engine asks with, for a prompt format's token limit."""
        ...

    def answer(self, request: AnswerRequest, cancel: threading.Event) -> Answer: ...
