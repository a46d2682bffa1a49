"""Asking a model served on the user's own machine through the OpenAI-compatible chat API
(vLLM, llama.cpp's ``llama-server``, Ollama), with the official ``openai`` client, an
optional extra: ``pip install "sabre-desk[local]"``.

The image goes as a base64 data URL in the user message, after it the same zero-shot prompt
the Gemini client sends. Retries (408/429/5xx, honouring ``Retry-After``) are the client's
own; every failure comes back as a reason, never as an answer.
"""

from __future__ import annotations

import base64
import os
import threading
from typing import Any

from sabre_desk.engines.answers import (
    Answer,
    AnswerCancelledError,
    AnswerConfig,
    AnswerRequest,
    Usage,
)
from sabre_desk.engines.gemini_call import scrub

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
KEY_VARIABLE = "SABRE_DESK_LOCAL_API_KEY"
MISSING = 'the local-model client needs the optional extra: pip install "sabre-desk[local]"'


def _openai_missing() -> bool:
    try:
        import openai  # noqa: F401
    except ImportError:
        return True
    return False


class LocalAnswerer:
    kind = "local"

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 120.0,
        attempts: int = 4,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.attempts = attempts

    def unavailable_reason(self) -> str | None:
        return MISSING if _openai_missing() else None

    def config_for(self, max_output_tokens: int) -> AnswerConfig:
        return AnswerConfig(0.0, max_output_tokens, None)

    def answer(self, request: AnswerRequest, cancel: threading.Event) -> Answer:
        if cancel.is_set():
            raise AnswerCancelledError()
        if _openai_missing():
            return Answer(None, failure=MISSING)
        import openai

        # Local servers ignore the key; some proxies in front of them want one.
        key = os.environ.get(KEY_VARIABLE) or "not-needed"
        client = openai.OpenAI(
            base_url=self.base_url,
            api_key=key,
            timeout=self.timeout_s,
            max_retries=self.attempts - 1,
        )
        data = base64.b64encode(request.image).decode("ascii")
        try:
            with client:
                reply = client.chat.completions.create(
                    model=self.model,
                    temperature=request.config.temperature,
                    max_tokens=request.config.max_output_tokens,
                    messages=[
                        {
                            "role": "user",
                            "content": [
                                {
                                    "type": "image_url",
                                    "image_url": {"url": f"data:{request.mime_type};base64,{data}"},
                                },
                                {"type": "text", "text": request.prompt},
                            ],
                        }
                    ],
                )
        except openai.APIStatusError as exc:
            return Answer(None, failure=scrub(f"the local server answered {exc.status_code}", key))
        except openai.APITimeoutError:
            reason = f"the local server did not answer within {self.timeout_s:g} s"
            return Answer(None, failure=reason)
        except openai.APIConnectionError as exc:
            reason = f"could not reach the local server at {self.base_url} ({exc})"
            return Answer(None, failure=scrub(reason, key))
        except Exception as exc:
            return Answer(None, failure=scrub(f"{type(exc).__name__}: {exc}", key))
        if cancel.is_set():
            raise AnswerCancelledError()
        return _read(reply)


def _read(reply: Any) -> Answer:
    usage = None
    if getattr(reply, "usage", None) is not None:
        usage = Usage(
            input=getattr(reply.usage, "prompt_tokens", None),
            output=getattr(reply.usage, "completion_tokens", None),
        )
    choices = getattr(reply, "choices", None) or []
    if not choices:
        return Answer(None, usage, "no answer came back (the reply had no choices)")
    finish = getattr(choices[0], "finish_reason", None)
    text = (getattr(choices[0].message, "content", None) or "").strip()
    if not text:
        why = " (content filter)" if finish == "content_filter" else ""
        return Answer(None, usage, f"no answer came back (the reply had no text){why}", finish)
    return Answer(text, usage, None, finish)
