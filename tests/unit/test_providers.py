"""Every provider's official client (openai, anthropic) against a local stand-in of its own
wire format: a question with its image answered, a specification written as structured
output, failures as reasons, a reply over its byte limit refused with one line, and the key
in no reason."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace

import pytest
from fakes.anthropic_server import FakeAnthropic, message, tool_call
from fakes.http_fake import Flood
from fakes.openai_server import FakeOpenAI, completion

from sabre_desk.engines.answers import AnswerConfig, AnswerRequest
from sabre_desk.engines.gemini_make import MakeFailedError
from sabre_desk.engines.models import ModelNameError, Provider, parse_model
from sabre_desk.engines.providers import answerer_for, writer_for

OPENAI_KEY = "sk-openai-" + "o" * 30
ANTHROPIC_KEY = "sk-ant-" + "a" * 30
PNG = b"\x89PNG\r\n\x1a\n fake image bytes"
REQUEST = AnswerRequest(PNG, "image/png", "Question: how many? Answer:", AnswerConfig(0.0, 16))
HUGE = 300 * 1024 * 1024


@pytest.fixture
def openai_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    server = FakeOpenAI()
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def anthropic_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAnthropic]:
    server = FakeAnthropic()
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
    try:
        yield server
    finally:
        server.close()


def test_a_model_is_named_provider_colon_model_and_a_bare_name_is_gemini() -> None:
    assert parse_model("gemini-3.5-flash").qualified == "gemini:gemini-3.5-flash"
    assert parse_model("openai:gpt-5.4").provider is Provider.OPENAI
    assert parse_model("anthropic:claude-opus-4-6").model == "claude-opus-4-6"
    local = parse_model("openai-compatible:llama3.2:11b")
    assert local.provider is Provider.LOCAL and local.model == "llama3.2:11b"
    with pytest.raises(ModelNameError, match="unknown provider 'mistral'"):
        parse_model("mistral:large")
    with pytest.raises(ModelNameError, match="no model"):
        parse_model("openai:")


def test_openai_answers_one_question_with_its_image(openai_fake: FakeOpenAI) -> None:
    openai_fake.script = [completion("7")]
    engine = answerer_for("openai:gpt-5.4")
    assert engine.unavailable_reason() is None and engine.model == "openai:gpt-5.4"
    request = replace(REQUEST, config=engine.config_for(16))
    answer = engine.answer(request, threading.Event())
    assert answer.text == "7" and answer.usage is not None and answer.usage.input == 300
    sent = openai_fake.requests[-1]
    assert sent["headers"]["authorization"] == f"Bearer {OPENAI_KEY}"
    body = sent["body"]
    assert body["model"] == "gpt-5.4" and body["reasoning_effort"] == "none"
    assert body["max_completion_tokens"] == 16 and "temperature" not in body
    image, prompt = body["messages"][0]["content"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    assert prompt["text"] == REQUEST.prompt


def test_anthropic_answers_one_question_with_its_image(anthropic_fake: FakeAnthropic) -> None:
    anthropic_fake.script = [message("B")]
    engine = answerer_for("anthropic:claude-opus-4-6")
    answer = engine.answer(REQUEST, threading.Event())
    assert answer.text == "B" and answer.usage is not None and answer.usage.input == 400
    sent = anthropic_fake.requests[-1]
    assert ANTHROPIC_KEY in json.dumps(sent["headers"])  # how the client sends it, its affair
    body = sent["body"]
    assert body["model"] == "claude-opus-4-6" and body["max_tokens"] == 16
    image, prompt = body["messages"][0]["content"]
    assert image["source"]["media_type"] == "image/png" and image["source"]["data"]
    assert prompt["text"] == REQUEST.prompt


def test_no_answer_is_a_reason_with_the_key_masked(
    openai_fake: FakeOpenAI, anthropic_fake: FakeAnthropic
) -> None:
    openai_fake.script = [
        (401, {"error": {"message": f"Incorrect API key provided: {OPENAI_KEY}"}}),
        completion(None, "content_filter"),
    ]
    engine = answerer_for("openai:gpt-5.4")
    first = engine.answer(REQUEST, threading.Event())
    assert "OpenAI answered 401" in (first.failure or "") and OPENAI_KEY not in first.failure
    assert "content filter" in (engine.answer(REQUEST, threading.Event()).failure or "")
    anthropic_fake.script = [message(None, "refusal")]
    refused = answerer_for("anthropic:claude").answer(REQUEST, threading.Event())
    assert refused.text is None and "refused" in (refused.failure or "")


@pytest.mark.parametrize("announce", [True, False])
def test_a_300_mb_reply_is_refused_with_one_line_and_not_read(
    openai_fake: FakeOpenAI, anthropic_fake: FakeAnthropic, announce: bool
) -> None:
    openai_fake.script = [(200, Flood(HUGE, announce))]
    anthropic_fake.script = [(200, Flood(HUGE, announce))]
    for name in ("openai:gpt-5.4", "anthropic:claude-opus-4-6"):
        answer = answerer_for(name).answer(REQUEST, threading.Event())
        reason = answer.failure or ""
        assert answer.text is None and "\n" not in reason
        assert "reply was refused: the reply is larger than" in reason
        assert "the limit for an answer of at most 16 tokens" in reason
    # the clients hung up long before the end: a few megabytes at most went out
    assert all(sent < 32 * 1024 * 1024 for sent in openai_fake.flooded + anthropic_fake.flooded)


SCHEMA = {"type": "object", "properties": {"concept_id": {"type": "string"}}}


def test_specifications_through_structured_output(
    openai_fake: FakeOpenAI, anthropic_fake: FakeAnthropic
) -> None:
    openai_fake.script = [completion(json.dumps({"concept_id": "mug"}))]
    with writer_for("openai:gpt-5.4") as writer:
        written = writer.write([("user", "write one")], SCHEMA, threading.Event())
    assert json.loads(written.text) == {"concept_id": "mug"} and written.model == "openai:gpt-5.4"
    form = openai_fake.requests[-1]["body"]["response_format"]
    assert form["type"] == "json_schema" and form["json_schema"]["schema"] == SCHEMA

    anthropic_fake.script = [tool_call("write_specification", {"concept_id": "cup"})]
    with writer_for("anthropic:claude-opus-4-6") as writer:
        written = writer.write([("user", "write one")], SCHEMA, threading.Event())
    assert json.loads(written.text) == {"concept_id": "cup"}
    body = anthropic_fake.requests[-1]["body"]
    assert body["tools"][0]["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "write_specification"}

    anthropic_fake.script = [message("I'd rather not")]
    with writer_for("anthropic:claude-opus-4-6") as writer, pytest.raises(MakeFailedError) as e:
        writer.write([("user", "write one")], SCHEMA, threading.Event())
    assert "did not call the specification tool" in e.value.reason


def test_a_provider_without_its_key_says_which_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert "OPENAI_API_KEY" in (answerer_for("openai:gpt-5.4").unavailable_reason() or "")
    assert "ANTHROPIC_API_KEY" in (answerer_for("anthropic:c").unavailable_reason() or "")
    assert answerer_for("local:qwen").unavailable_reason() is None  # local servers need none


def test_a_gemini_reply_over_its_limit_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes.gemini_server import Reply, serving

    from sabre_desk.engines.gemini_qa import GeminiAnswerer

    with serving(monkeypatch, "gemini-key-" + "g" * 30) as fake:
        fake.script = [Reply(raw=b'{"candidates": "' + b"a" * (2 * 1024 * 1024))]
        engine = GeminiAnswerer(attempts=1)
        answer = engine.answer(replace(REQUEST, config=engine.config_for(16)), threading.Event())
        engine.close()
    assert answer.text is None and "\n" not in (answer.failure or "")
    assert "Gemini's reply was refused: the reply is larger than" in (answer.failure or "")


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims *width* × *height* pixels and holds none."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IEND", b"")


def test_an_image_reply_of_30000_by_30000_is_a_reason_not_a_crash() -> None:
    from sabre_desk.engines.gemini_image import NoImageError, decode_image

    with pytest.raises(NoImageError) as refused:
        decode_image(_png_header(30000, 30000))
    assert "possible decompression bomb" in refused.value.reason
    assert "900 MP" in refused.value.reason


def test_a_specification_larger_than_spec_json_may_be_is_not_kept(
    openai_fake: FakeOpenAI,
) -> None:
    huge = json.dumps({"concept_id": "mug", "notes": "x" * (1536 * 1024)})
    openai_fake.script = [completion(huge)]
    with writer_for("openai:gpt-5.4") as writer, pytest.raises(MakeFailedError) as refused:
        writer.write([("user", "write one")], SCHEMA, threading.Event())
    assert "larger than the 1.0 MB a spec.json may be" in refused.value.reason
    assert refused.value.usage is not None  # what the call cost is still charged


def test_an_answer_longer_than_its_tokens_can_make_is_a_reason(
    openai_fake: FakeOpenAI, anthropic_fake: FakeAnthropic
) -> None:
    openai_fake.script = [completion("Yes " * 500)]
    anthropic_fake.script = [message("No " * 500)]
    for name in ("openai:gpt-5.4", "anthropic:claude-opus-4-6"):
        answer = answerer_for(name).answer(REQUEST, threading.Event())
        assert answer.text is None
        assert "longer than 16 output tokens can be (512 bytes); not kept" in (answer.failure or "")


def test_an_endpoint_from_the_settings_and_the_variable_winning(
    openai_fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    urls = {"openai": openai_fake.url}
    monkeypatch.delenv("OPENAI_BASE_URL")
    assert answerer_for("openai:gpt-5.4", urls).answer(REQUEST, threading.Event()).text == "Yes"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert answerer_for("openai:gpt-5.4", urls).base_url == "http://127.0.0.1:9/v1"  # type: ignore[attr-defined]


def test_a_provider_whose_client_is_not_installed_names_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "anthropic" else real(name)
    )
    reason = answerer_for("anthropic:claude-x").unavailable_reason()
    assert reason is not None and 'pip install "sabre-desk[anthropic]"' in reason
    assert answerer_for("openai:gpt-x").unavailable_reason() != reason
