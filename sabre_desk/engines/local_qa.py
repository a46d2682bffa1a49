"""Asking a model served on the user's own machine through the OpenAI-compatible chat API
(vLLM, llama.cpp's ``llama-server``, Ollama): ``local:NAME``, the OpenAI client of
``openai_qa`` pointed at the server (optional extra: ``pip install "sabre-desk[local]"``).
"""

from __future__ import annotations

from sabre_desk.engines.models import Provider
from sabre_desk.engines.openai_qa import DEFAULT_LOCAL_URL, OpenAIAnswerer

DEFAULT_BASE_URL = DEFAULT_LOCAL_URL


class LocalAnswerer(OpenAIAnswerer):
    """An OpenAI-compatible server's model, at *base_url*."""

    def __init__(
        self,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        timeout_s: float = 120.0,
        attempts: int = 4,
    ) -> None:
        super().__init__(model, Provider.LOCAL, base_url, timeout_s, timeout_s * attempts, attempts)
