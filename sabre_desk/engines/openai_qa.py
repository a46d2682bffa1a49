"""OpenAI's API, and any server speaking its chat API (vLLM, llama.cpp, Ollama, the hosted
APIs of Kimi, Qwen and Grok), through the official ``openai`` client (optional extras
``[openai]`` / ``[local]``): one image and one prompt answered (screening, ``predict``), and
a specification written as structured output (``response_format`` json_schema).

The image goes as a base64 data URL in the user message, after it the same zero-shot prompt
the other providers get. OpenAI's reasoning models (GPT-5, o-series) take no temperature and
count their thinking against the output limit, so they are asked with the least reasoning
they allow; a local server is asked with greedy decoding. Every failure is a reason, never
an answer.
"""

from __future__ import annotations

import base64
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

DEFAULT_LOCAL_URL = "http://127.0.0.1:8000/v1"
#: Tokens a specification may take (a few hundred of JSON; room for reasoning before it).
SPEC_MAX_TOKENS = 16_000


def smallest_reasoning(model: str) -> dict[str, Any] | None:
    """The least reasoning an OpenAI model allows (``reasoning_effort``): GPT-5.1 and later
    take ``none``, GPT-5 itself ``minimal``, o-series ``low``; other models do not reason."""
    name = model.lower()
    if name.startswith("gpt-5."):
        return {"reasoning_effort": "none"}
    if name.startswith("gpt-5"):
        return {"reasoning_effort": "minimal"}
    if name.startswith(("o1", "o3", "o4")):
        return {"reasoning_effort": "low"}
    return None


def chat_request(model: str, request: AnswerRequest, local: bool) -> dict[str, Any]:
    """The chat completion's arguments for one question (also a batch line's body)."""
    data = base64.b64encode(request.image).decode("ascii")
    body: dict[str, Any] = {
        "model": model,
        "messages": [
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
    }
    config = request.config
    if local:
        body["max_tokens"] = config.max_output_tokens
        body["temperature"] = config.temperature
    elif config.thinking:
        body["max_completion_tokens"] = config.max_output_tokens
        body.update(config.thinking)
    else:
        body["max_completion_tokens"] = config.max_output_tokens
        body["temperature"] = config.temperature
    return body


def usage_of(reply: dict[str, Any]) -> Usage | None:
    usage = reply.get("usage")
    if not isinstance(usage, dict):
        return None
    details = usage.get("completion_tokens_details")
    thoughts = count(details.get("reasoning_tokens")) if isinstance(details, dict) else None
    output = count(usage.get("completion_tokens"))
    if output is not None and thoughts is not None:
        output -= thoughts  # reasoning is counted inside the completion; priced once
    return usage_from(input=usage.get("prompt_tokens"), output=output, thoughts=thoughts or None)


def read_reply(reply: Any) -> Answer:
    """A chat completion (the client's object or its JSON) as an Answer; a reply of another
    shape raises ReplyShapeError (``reply_shape``), fields of the wrong type count as absent."""
    reply = plain_reply(reply)
    usage = usage_of(reply)
    choices = objects(reply.get("choices"))
    if not choices:
        return Answer(None, usage, "no answer came back (the reply had no choices)")
    finish = choices[0].get("finish_reason")
    finish = finish if isinstance(finish, str) else None
    message = choices[0].get("message")
    message = message if isinstance(message, dict) else {}
    refusal = message.get("refusal")
    content = message.get("content")
    text = content.strip() if isinstance(content, str) else ""
    if refusal and not text:
        return Answer(None, usage, f"the model refused: {str(refusal)[:200]}", finish)
    if not text:
        why = " (content filter)" if finish == "content_filter" else ""
        if finish == "length":
            why = " (cut off by the output-token limit)"
        return Answer(None, usage, f"no answer came back (the reply had no text){why}", finish)
    return Answer(text, usage, None, finish)


class OpenAIAnswerer:
    """The question-answering client for ``openai:`` and ``local:`` models; thread-safe."""

    def __init__(
        self,
        model: str,
        provider: Provider = Provider.OPENAI,
        base_url_: str | None = None,
        timeout_s: float = 60.0,
        deadline_s: float = 180.0,
        attempts: int = 4,
    ) -> None:
        self.name = ModelName(provider, model)
        self.kind = provider.value
        #: what is recorded (ledger, runs, predictions): ``provider:model``
        self.model = self.name.qualified
        url = base_url_ or base_url(provider)
        if provider is Provider.LOCAL and url is None:
            url = DEFAULT_LOCAL_URL
        self.base_url = url
        self.deadline_s = max(deadline_s, timeout_s)
        self.sdk = SdkClient(self.name, url, timeout_s, attempts)

    @property
    def local(self) -> bool:
        return self.name.provider is Provider.LOCAL

    def close(self) -> None:
        self.sdk.close()

    def unavailable_reason(self) -> str | None:
        return self.sdk.unavailable_reason()

    def config_for(self, max_output_tokens: int) -> AnswerConfig:
        thinking = None if self.local else smallest_reasoning(self.name.model)
        return AnswerConfig(0.0, max_output_tokens, thinking)

    def answer(self, request: AnswerRequest, cancel: threading.Event) -> Answer:
        body = chat_request(self.name.model, request, self.local)
        create = lambda c: c.chat.completions.create(**body)  # noqa: E731
        return self.sdk.answer(create, request, cancel, self.deadline_s, read_reply)


class OpenAIWriter(SdkWriter):
    """Writes a specification as structured output (``response_format``: json_schema)."""

    def __init__(
        self,
        model: str,
        provider: Provider = Provider.OPENAI,
        base_url_: str | None = None,
        timeout_s: float = 120.0,
        attempts: int = 4,
    ) -> None:
        deadline = timeout_s * attempts
        super().__init__(OpenAIAnswerer(model, provider, base_url_, timeout_s, deadline, attempts))

    def write(
        self, turns: list[tuple[str, str]], schema: dict[str, Any], cancel: threading.Event
    ) -> Written:
        limit_name = "max_tokens" if self.answerer.local else "max_completion_tokens"
        body: dict[str, Any] = {
            "model": self.answerer.name.model,
            "messages": self.messages(turns),
            # strict: False: OpenAI's strict mode takes only schemas whose every field is
            # required; the app validates each reply itself and asks again with the reason.
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "sample_specification", "schema": schema, "strict": False},
            },
            limit_name: SPEC_MAX_TOKENS,
        }
        answer = read_reply(self.ask(lambda c: c.chat.completions.create(**body), cancel))
        if answer.text is None:
            reason = (answer.failure or "").replace("no answer", "no specification")
            raise MakeFailedError(reason, answer.usage)
        if answer.finish == "length":
            raise MakeFailedError("the reply was cut off by the output-token limit", answer.usage)
        return Written.specification(answer.text, answer.usage, self.model)
