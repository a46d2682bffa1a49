"""The one place a model name becomes a client: ``PROVIDER:MODEL`` (``models.parse_model``)
to the question-answering engine (screening, ``predict``) or the specification writer of
that provider, each through its official client. The command line and the window ask here
and know no provider by name."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any, Protocol

from sabre_desk.engines.answers import AnswerEngine
from sabre_desk.engines.gemini_call import Cooldown
from sabre_desk.engines.gemini_make import Written
from sabre_desk.engines.models import ModelName, Provider, base_url, parse_model


class Writer(Protocol):
    """What writes a specification as structured output against a JSON Schema."""

    kind: str
    model: str
    #: shared by every call of the writer's client: the wait a rate limit asked of them
    cooldown: Cooldown

    def unavailable_reason(self) -> str | None: ...

    def write(
        self, turns: list[tuple[str, str]], schema: dict[str, Any], cancel: threading.Event
    ) -> Written: ...

    def close(self) -> None: ...

    def __enter__(self) -> Any: ...

    def __exit__(self, *exc: object) -> None: ...


def as_name(name: ModelName | str) -> ModelName:
    return name if isinstance(name, ModelName) else parse_model(name)


def answerer_for(
    name: ModelName | str,
    urls: Mapping[str, str] | None = None,
    local_url: str | None = None,
) -> AnswerEngine:
    """The engine that answers questions about an image for *name*. *urls*: the settings'
    endpoint per provider; *local_url*: the server for ``local:`` models when neither
    SABRE_DESK_LOCAL_BASE_URL nor the settings' ``provider_base_urls`` names one."""
    from sabre_desk.engines.anthropic_qa import AnthropicAnswerer
    from sabre_desk.engines.gemini_qa import GeminiAnswerer
    from sabre_desk.engines.openai_qa import OpenAIAnswerer

    name = as_name(name)
    url = base_url(name.provider, urls)
    if name.provider is Provider.GEMINI:
        return GeminiAnswerer(name.model, url)
    if name.provider is Provider.ANTHROPIC:
        return AnthropicAnswerer(name.model, url)
    if name.provider is Provider.LOCAL:
        url = url or local_url
    return OpenAIAnswerer(name.model, name.provider, url)


def writer_for(name: ModelName | str, urls: Mapping[str, str] | None = None) -> Writer:
    """The specification writer for *name* (structured output)."""
    from sabre_desk.engines.anthropic_qa import AnthropicWriter
    from sabre_desk.engines.gemini_make import GeminiWriter
    from sabre_desk.engines.openai_qa import OpenAIWriter

    name = as_name(name)
    url = base_url(name.provider, urls)
    if name.provider is Provider.GEMINI:
        return GeminiWriter(name.model, url)
    if name.provider is Provider.ANTHROPIC:
        return AnthropicWriter(name.model, url)
    return OpenAIWriter(name.model, name.provider, url)
