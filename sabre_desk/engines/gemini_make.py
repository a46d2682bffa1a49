"""The front of the SABRE pipeline's two model calls: an LLM that writes one Sample
Specification as structured output, and an image model that makes a Base from a prompt or
edits a Base into its Edited image.

Both go through ``gemini_call`` (the key from the environment and scrubbed from every text,
a total time budget, cancel on the sockets, retries on 408/429/5xx) with one client per
maker, closed with it. Every failure comes back as a ``MakeFailedError`` whose reason names
what happened (a timeout per attempt and in all, a safety block, no image, a finish reason);
only a cancel raises ``MakeCancelledError``.
"""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from sabre_desk.engines.answers import Usage
from sabre_desk.engines.deadline_http import Budget, ReplyLimit
from sabre_desk.engines.gemini_call import (
    NO_KEY,
    CallCancelledError,
    CallFailedError,
    Cooldown,
    RetryPolicy,
    SharedClient,
    api_key,
    call_with_retries,
    scrub,
    usage_of,
)
from sabre_desk.engines.gemini_image import NoImageError, reply_image
from sabre_desk.engines.gemini_reply import read_text, reply_text
from sabre_desk.engines.reply_limits import image_limit, spec_limit
from sabre_desk.ground.reading import LIMITS, human_size

if TYPE_CHECKING:
    from google.genai import types as genai_types

DEFAULT_TEXT_MODEL = "gemini-3.5-flash"
DEFAULT_IMAGE_MODEL = "gemini-3.1-flash-image"
#: One specification is a few hundred tokens of JSON; a reply can think before it.
TEXT_TIMEOUT_S = 120.0
IMAGE_TIMEOUT_S = 180.0
#: Image sizes the image models take (``ImageConfig.image_size``).
IMAGE_SIZES = ("1K", "2K", "4K")


class MakeFailedError(Exception):
    """The model did not make what was asked; ``reason`` says why (key masked)."""

    def __init__(self, reason: str, usage: Usage | None = None):
        super().__init__(reason)
        self.reason = reason
        #: what the failed call cost, when it got as far as a reply
        self.usage = usage


class MakeCancelledError(Exception):
    """The run was cancelled while the call was under way."""


@dataclass(frozen=True)
class Written:
    """A text reply: the raw text (JSON, when a schema was given) and what it cost."""

    text: str
    usage: Usage | None
    model: str

    @classmethod
    def specification(cls, text: str, usage: Usage | None, model: str) -> Written:
        """A specification's reply, or MakeFailedError when its text is larger than a
        ``spec.json`` may be (``LIMITS["spec"]``): nothing of it is kept."""
        size = len(text.encode("utf-8"))
        if size > LIMITS["spec"]:
            raise MakeFailedError(
                f"the specification is {human_size(size)}, larger than the "
                f"{human_size(LIMITS['spec'])} a spec.json may be; not kept",
                usage,
            )
        return cls(text, usage, model)


@dataclass(frozen=True)
class Made:
    """An image reply: RGB(A) pixels, the model's words beside them, what it cost."""

    pixels: np.ndarray
    usage: Usage | None
    model: str
    notes: list[str] = field(default_factory=list)


def png_bytes(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    return buf.getvalue()


class _Maker:
    """What both makers share: the policy, the cooldown and the one client."""

    what = "call"
    kind = "gemini"
    #: the most a reply may weigh (a specification, an image)
    reply_limit: ReplyLimit = spec_limit()

    def __init__(self, model: str, base_url: str | None, timeout_s: float, attempts: int) -> None:
        self.model = model
        self.policy = RetryPolicy(timeout_s, timeout_s * attempts, attempts, what=self.what)
        self.cooldown = Cooldown()
        self.shared = SharedClient(base_url, timeout_s)

    def close(self) -> None:
        self.shared.close()

    def __enter__(self) -> _Maker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def unavailable_reason(self) -> str | None:
        return NO_KEY if api_key() is None else None

    def _call(
        self,
        contents: list[genai_types.ContentUnionDict],
        config: genai_types.GenerateContentConfig,
        cancel: threading.Event,
    ) -> tuple[Any, str]:
        """(the reply, the key) or MakeFailedError / MakeCancelledError."""
        key = api_key()
        if key is None:
            raise MakeFailedError(NO_KEY)
        budget = Budget(self.policy.deadline_s, self.policy.timeout_s, cancel, self.reply_limit)
        client = self.shared.client(key)
        try:
            with self.shared.budgets.applying(budget):
                response = call_with_retries(
                    lambda: client.models.generate_content(
                        model=self.model, contents=contents, config=config
                    ),
                    budget,
                    self.policy,
                    cancel,
                    self.cooldown,
                )
        except CallCancelledError:
            raise MakeCancelledError() from None
        except CallFailedError as exc:
            raise MakeFailedError(scrub(exc.reason, key)) from None
        except Exception as exc:  # the one way out, so that no message carries the key
            raise MakeFailedError(scrub(f"{type(exc).__name__}: {exc}", key)) from None
        return response, key


class GeminiWriter(_Maker):
    """Writes JSON to a response schema (structured output): the specification writer."""

    what = "specification"

    def __init__(
        self,
        model: str = DEFAULT_TEXT_MODEL,
        base_url: str | None = None,
        timeout_s: float = TEXT_TIMEOUT_S,
        attempts: int = 4,
        temperature: float = 1.0,
    ) -> None:
        super().__init__(model, base_url, timeout_s, attempts)
        #: specifications should differ from one another: the model's default sampling
        self.temperature = temperature

    def write(
        self, turns: list[tuple[str, str]], schema: dict[str, Any], cancel: threading.Event
    ) -> Written:
        """The reply to a conversation of (role, text) turns, as JSON text to *schema*."""
        from google.genai import types

        contents: list[genai_types.ContentUnionDict] = [
            types.Content(role=role, parts=[types.Part.from_text(text=text)])
            for role, text in turns
        ]
        config = types.GenerateContentConfig(
            temperature=self.temperature,
            response_mime_type="application/json",
            response_json_schema=schema,
        )
        response, key = self._call(contents, config, cancel)
        usage = usage_of(response)
        reply = read_text(response, key, "specification")
        if reply.text is None:
            raise MakeFailedError(reply.failure or "no specification came back", usage)
        if reply.finish == "MAX_TOKENS":
            raise MakeFailedError("the reply was cut off by the output-token limit", usage)
        return Written.specification(reply.text, usage, self.model)


class GeminiImageMaker(_Maker):
    """Makes an image from a prompt, or edits an image by a prompt."""

    what = "image"
    reply_limit = image_limit()

    def __init__(
        self,
        model: str = DEFAULT_IMAGE_MODEL,
        base_url: str | None = None,
        timeout_s: float = IMAGE_TIMEOUT_S,
        attempts: int = 4,
    ) -> None:
        super().__init__(model, base_url, timeout_s, attempts)

    def make(
        self,
        prompt: str,
        cancel: threading.Event,
        *,
        source: np.ndarray | None = None,
        aspect_ratio: str | None = None,
        image_size: str | None = None,
    ) -> Made:
        """A new image from *prompt*, or *source* edited by it, in the given shape."""
        from google.genai import types

        parts: list[genai_types.Part] = []
        if source is not None:
            parts.append(types.Part.from_bytes(data=png_bytes(source), mime_type="image/png"))
        parts.append(types.Part.from_text(text=prompt))
        contents: list[genai_types.ContentUnionDict] = [types.Content(role="user", parts=parts)]
        config = types.GenerateContentConfig(
            response_modalities=["IMAGE", "TEXT"],
            image_config=types.ImageConfig(aspect_ratio=aspect_ratio, image_size=image_size),
        )
        response, key = self._call(contents, config, cancel)
        usage = usage_of(response)
        try:
            pixels = reply_image(response, key)
        except NoImageError as exc:
            raise MakeFailedError(exc.reason, usage) from None
        return Made(pixels, usage, self.model, reply_text(response, key))
