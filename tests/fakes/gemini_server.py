"""The fake Gemini the tests run google-genai against: the server ships in the package
(``sabre_desk.demo.fake_servers.gemini_server``, what `sabre-desk fake-server gemini` runs);
the tests add ``serving``, which points the SDK at it through pytest's monkeypatch."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from sabre_desk.demo.fake_servers.gemini_server import (
    USAGE,
    FakeGemini,
    Reply,
    asked_text,
    blocked_reply,
    corrupt_reply,
    error_reply,
    finish_reply,
    hang_reply,
    image_reply,
    png_b64,
    retry_reply,
    text_reply,
    trickle_reply,
)

__all__ = [
    "USAGE",
    "FakeGemini",
    "Reply",
    "asked_text",
    "blocked_reply",
    "corrupt_reply",
    "error_reply",
    "finish_reply",
    "hang_reply",
    "image_reply",
    "png_b64",
    "retry_reply",
    "serving",
    "text_reply",
    "trickle_reply",
]


@contextmanager
def serving(monkeypatch: pytest.MonkeyPatch, key: str) -> Iterator[FakeGemini]:
    """A fake server the engine finds through the SDK's own GOOGLE_GEMINI_BASE_URL, with
    *key* as the only API key; afterwards no handler thread may be left running."""
    server = FakeGemini()
    monkeypatch.setenv("GEMINI_API_KEY", key)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    try:
        yield server
    finally:
        stuck = server.close()
    assert not stuck, f"fake Gemini handler threads still running: {stuck}"
