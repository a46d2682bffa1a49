"""Stand-ins for the model services, on 127.0.0.1 only: deterministic local servers that
speak each provider's real wire format, so the official clients talk to them unchanged.

They let the guide's model-backed commands run without a key, a bill or a network
(`sabre-desk fake-server KIND`, docs/guide/making-cases.md), and they are what the tests
run the real clients against (tests/fakes re-exports them, adding the pytest fixtures). No
answer of theirs is a model's: the pictures are drawn, the words are fixed.

- ``gemini_server``: generateContent, the Batch API, the file upload (google-genai)
- ``pipeline``: the pipeline's three models behind one fake Gemini (design, image, filter)
- ``openai_server``: chat completions and the Batch API (also any OpenAI-compatible server)
- ``anthropic_server``: messages and Message Batches
"""

from __future__ import annotations

#: Every kind, with what it stands in for.
KINDS = {
    "pipeline": "Gemini as the pipeline's three models: the design model writes a Context "
    "specification, the image model draws a scene (an edit changes its middle object), the "
    "filter gives the answer",
    "gemini": "Gemini, every question given the answer (with the Batch API and file upload)",
    "openai": "OpenAI's API or a local OpenAI-compatible server (chat completions, Batch API)",
    "anthropic": "Anthropic's API (messages, Message Batches)",
}
