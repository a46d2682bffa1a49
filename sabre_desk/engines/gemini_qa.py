"""Asking Gemini a question about an image: the Filtering VLM of SABRE (paper §3.4), and
the model ``predict`` evaluates on a release.

One image and one zero-shot prompt per call, greedy decoding, a short output limit and as
little thinking as the model allows. Every failure comes back as a reason (``Answer.failure``),
never as an answer: no text, a safety block, a cut-off reply, a timeout, the network, an
error status after the retries. The key is scrubbed from every reason.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from sabre_desk.engines.answers import (
    Answer,
    AnswerCancelledError,
    AnswerConfig,
    AnswerRequest,
    within_limit,
)
from sabre_desk.engines.deadline_http import Budget
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
    smallest_thinking,
    usage_of,
)
from sabre_desk.engines.gemini_reply import read_text
from sabre_desk.engines.reply_limits import answer_limit

if TYPE_CHECKING:
    from google.genai import types as genai_types

DEFAULT_MODEL = "gemini-3.5-flash"
#: A short answer comes back in seconds; a minute allows for a slow, busy service.
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_DEADLINE_S = 180.0


class GeminiAnswerer:
    """The question-answering client; thread-safe (each call opens its own connection)."""

    kind = "gemini"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        deadline_s: float = DEFAULT_DEADLINE_S,
        attempts: int = 4,
        initial_delay_s: float = 2.0,
        thinking: dict[str, Any] | str | None = "auto",
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.policy = RetryPolicy(timeout_s, max(deadline_s, timeout_s), attempts, initial_delay_s)
        self.thinking = smallest_thinking(model) if thinking == "auto" else thinking
        #: shared by every call of this client: a 429 with a retry delay pauses them all
        self.cooldown = Cooldown()
        self.shared = SharedClient(base_url, self.policy.timeout_s)

    def close(self) -> None:
        """Close the connections (they are also closed when the answerer is collected)."""
        self.shared.close()

    def unavailable_reason(self) -> str | None:
        return NO_KEY if api_key() is None else None

    def config_for(self, max_output_tokens: int) -> AnswerConfig:
        thinking = self.thinking if isinstance(self.thinking, dict) else None
        return AnswerConfig(0.0, max_output_tokens, thinking)

    def answer(self, request: AnswerRequest, cancel: threading.Event) -> Answer:
        if cancel.is_set():
            raise AnswerCancelledError()
        key = api_key()
        if key is None:
            return Answer(None, failure=NO_KEY)
        try:
            return self._answer(request, key, cancel)
        except (AnswerCancelledError, CallCancelledError):
            raise AnswerCancelledError() from None
        except CallFailedError as exc:
            return Answer(None, failure=scrub(exc.reason, key))
        except Exception as exc:  # the one way out, so no message carries the key
            return Answer(None, failure=scrub(f"{type(exc).__name__}: {exc}", key))

    def _answer(self, request: AnswerRequest, key: str, cancel: threading.Event) -> Answer:
        policy = self.policy
        limit = answer_limit(request.config.max_output_tokens)
        budget = Budget(policy.deadline_s, policy.timeout_s, cancel, limit)
        contents = [request_content(request)]
        config = generation_config(request.config)
        client = self.shared.client(key)
        with self.shared.budgets.applying(budget):
            response = call_with_retries(
                lambda: client.models.generate_content(
                    model=self.model, contents=contents, config=config
                ),
                budget,
                policy,
                cancel,
                self.cooldown,
            )
        return within_limit(read_answer(response, key), request.config.max_output_tokens)


def generation_config(config: AnswerConfig) -> genai_types.GenerateContentConfig:
    from google.genai import types

    thinking = types.ThinkingConfig(**config.thinking) if config.thinking else None
    return types.GenerateContentConfig(
        temperature=config.temperature,
        max_output_tokens=config.max_output_tokens,
        thinking_config=thinking,
        response_modalities=["TEXT"],
    )


def request_content(request: AnswerRequest) -> genai_types.Content:
    """What is sent: the image, then the prompt (the paper's order), as one user turn."""
    from google.genai import types

    return types.Content(
        role="user",
        parts=[
            types.Part.from_bytes(data=request.image, mime_type=request.mime_type),
            types.Part.from_text(text=request.prompt),
        ],
    )


def read_answer(response: Any, key: str | None) -> Answer:
    """The reply as an Answer: its text, or why there is none (key scrubbed)."""
    reply = read_text(response, key)
    return Answer(reply.text, usage_of(response), reply.failure, reply.finish)
