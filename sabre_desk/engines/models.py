"""A model is named ``PROVIDER:MODEL`` wherever one is chosen, parsed here and only here.

``gemini:gemini-3.5-flash`` (the default provider: a bare name is Gemini), ``openai:gpt-5.4``,
``anthropic:claude-opus-4-6``, and ``local:NAME`` (or ``openai-compatible:NAME``) for any
server speaking the OpenAI chat API: vLLM, llama.cpp, Ollama, or the hosted APIs of Kimi,
Qwen and Grok. Only the first colon splits, so ``local:llama3.2:11b`` is Ollama's name.

Keys and endpoints come from each official client's own variables (``GEMINI_API_KEY`` or
``GOOGLE_API_KEY``; ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL``; ``ANTHROPIC_API_KEY`` and
``ANTHROPIC_BASE_URL``), an endpoint also from the settings (``provider_base_urls``; the
variable wins). A key is read when a call is made, handed to the client and scrubbed from
every text; it is never printed, logged or stored.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum


class Provider(StrEnum):
    GEMINI = "gemini"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    LOCAL = "local"  # any OpenAI-compatible server


#: Other names a provider is given before the colon.
ALIASES = {"openai-compatible": Provider.LOCAL, "google": Provider.GEMINI}
#: The variables each provider's key is read from, first set wins.
KEY_VARIABLES: dict[Provider, tuple[str, ...]] = {
    Provider.GEMINI: ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    Provider.OPENAI: ("OPENAI_API_KEY",),
    Provider.ANTHROPIC: ("ANTHROPIC_API_KEY",),
    # local servers ignore a key; a proxy in front of one (or Kimi, Qwen, Grok) wants one
    Provider.LOCAL: ("SABRE_DESK_LOCAL_API_KEY",),
}
#: The variable each provider's official client reads its endpoint from.
BASE_URL_VARIABLES: dict[Provider, str] = {
    Provider.GEMINI: "GOOGLE_GEMINI_BASE_URL",
    Provider.OPENAI: "OPENAI_BASE_URL",
    Provider.ANTHROPIC: "ANTHROPIC_BASE_URL",
    Provider.LOCAL: "SABRE_DESK_LOCAL_BASE_URL",
}
#: The optional extra that brings each provider's official client.
EXTRAS: dict[Provider, tuple[str, str]] = {
    Provider.OPENAI: ("openai", "openai"),
    Provider.LOCAL: ("openai", "local"),
    Provider.ANTHROPIC: ("anthropic", "anthropic"),
}
LABELS = {
    Provider.GEMINI: "Gemini",
    Provider.OPENAI: "OpenAI",
    Provider.ANTHROPIC: "Anthropic",
    Provider.LOCAL: "the OpenAI-compatible server",
}


class ModelNameError(ValueError):
    """A model name that names no provider this version knows, or no model."""


@dataclass(frozen=True)
class ModelName:
    provider: Provider
    model: str

    @property
    def qualified(self) -> str:
        """``provider:model``: what ledgers, screening runs and predictions record."""
        return f"{self.provider.value}:{self.model}"

    @property
    def label(self) -> str:
        return LABELS[self.provider]

    def __str__(self) -> str:
        return self.qualified


def parse_model(text: str) -> ModelName:
    """``PROVIDER:MODEL`` (a bare name is Gemini's), or ModelNameError saying what is wrong."""
    text = text.strip()
    head, colon, rest = text.partition(":")
    if not colon:
        head, rest = Provider.GEMINI.value, text
    name = head.strip().lower()
    provider = ALIASES.get(name) or next((p for p in Provider if p.value == name), None)
    if provider is None:
        known = ", ".join([*(p.value for p in Provider), *ALIASES])
        raise ModelNameError(
            f"{text!r}: unknown provider {head!r}; name a model as PROVIDER:MODEL with a "
            f"provider of {known} (a server's own name with a colon: local:{text})"
        )
    model = rest.strip().removeprefix("models/") if provider is Provider.GEMINI else rest.strip()
    if not model:
        raise ModelNameError(f"{text!r}: no model named after {head}:")
    return ModelName(provider, model)


def qualified_name(kind: str, model: str) -> str:
    """A ledger line's or a record's model as ``provider:model``: lines written before
    providers were named hold a bare model and the engine's kind beside it."""
    if ":" in model and model.partition(":")[0] in {p.value for p in Provider}:
        return model
    return f"{kind or Provider.GEMINI.value}:{model}"


def api_key(provider: Provider) -> str | None:
    for variable in KEY_VARIABLES[provider]:
        value = os.environ.get(variable, "").strip()
        if value:
            return value
    return None


def no_key_reason(provider: Provider) -> str:
    names = " (or ".join(KEY_VARIABLES[provider])
    closing = ")" * (len(KEY_VARIABLES[provider]) - 1)
    return f"set {names}{closing} in the environment to use {LABELS[provider]}"


def base_url(provider: Provider, settings_urls: Mapping[str, str] | None = None) -> str | None:
    """The provider's endpoint: its client's own variable, else the settings' entry, else
    None (the client's default)."""
    value = os.environ.get(BASE_URL_VARIABLES[provider], "").strip()
    if value:
        return value
    return (settings_urls or {}).get(provider.value) or None


def client_missing(provider: Provider) -> str | None:
    """Why the provider's official client cannot be imported here, or None."""
    if provider not in EXTRAS:
        return None
    module, extra = EXTRAS[provider]
    if importlib.util.find_spec(module) is None:  # found, not imported: it loads when used
        return f'{LABELS[provider]} needs the optional extra: pip install "sabre-desk[{extra}]"'
    return None
