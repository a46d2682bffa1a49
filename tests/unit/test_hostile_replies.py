"""A hostile or broken model server, through each provider's official client against a local
stand-in of its wire format: a server that echoes the request's key into its reply leaves no
key in any file the app writes (screening, specifications, predictions, caches, ledgers), and
a reply of any shape (HTML on 200, wrong types, missing fields) is one clear per-call failure,
never an internal error that stops the run."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropic, message, tool_call
from fakes.gemini_server import serving, text_reply
from fakes.openai_server import FakeOpenAI, completion
from fakes.pipeline import SCENES, context_spec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sabre_desk.app_log import log_dir
from sabre_desk.cli import main
from sabre_desk.core.case.preview_cache import user_cache_root
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.demo.fake_servers.http_fake import ECHO_KEY, Page
from sabre_desk.engines.answers import AnswerConfig, AnswerRequest
from sabre_desk.engines.gemini_make import MakeFailedError
from sabre_desk.engines.gemini_qa import GeminiAnswerer
from sabre_desk.engines.local_qa import LocalAnswerer
from sabre_desk.engines.providers import answerer_for, writer_for

OPENAI_KEY = "sk-proj-" + "e" * 32
ANTHROPIC_KEY = "sk-ant-api-" + "h" * 32
LOCAL_KEY = "local-proxy-" + "l" * 32
GEMINI_KEY = "gemini-key-" + "m" * 30
KEYS = (OPENAI_KEY, ANTHROPIC_KEY, LOCAL_KEY, GEMINI_KEY)
GPT, CLAUDE = "openai:gpt-5.4", "anthropic:claude-opus-4-6"
REQUEST = AnswerRequest(b"\x89PNG fake", "image/png", "Question: how many?", AnswerConfig(0.0, 64))
ECHOED = f"Yes. (debug: you sent {ECHO_KEY})"


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeAnthropic]]:
    """Both stand-ins, echoing the key of each request into every reply."""
    openai_fake, anthropic_fake = FakeOpenAI(echo_key=True), FakeAnthropic(echo_key=True)
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_fake.url)
    monkeypatch.setenv("SABRE_DESK_LOCAL_API_KEY", LOCAL_KEY)
    try:
        yield openai_fake, anthropic_fake
    finally:
        openai_fake.close()
        anthropic_fake.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv])
    out, err = capsys.readouterr()
    assert all(key not in out + err for key in KEYS)
    return code, out, err


def no_key_in_files(*folders: Path) -> None:
    """Nor in what the run left outside the project: its log, the settings, the caches."""
    for folder in (*folders, log_dir(), user_cache_root()):
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                leaked = [k for k in KEYS if k.encode() in data]
                assert not leaked, f"{path} holds a key"


# -- the key echoed back, each provider ---------------------------------------------------


def test_openai_answer_echoing_the_key_is_kept_masked(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    openai_fake, _ = fakes
    openai_fake.rule = lambda body: completion(ECHOED)
    answer = answerer_for(GPT).answer(REQUEST, threading.Event())
    assert answer.text == "Yes. (debug: you sent ***)"


def test_anthropic_answer_echoing_the_key_is_kept_masked(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    _, anthropic_fake = fakes
    anthropic_fake.rule = lambda body: message(ECHOED)
    answer = answerer_for(CLAUDE).answer(REQUEST, threading.Event())
    assert answer.text == "Yes. (debug: you sent ***)"


def test_local_server_answer_echoing_the_key_is_kept_masked(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    server = FakeOpenAI(echo_key=True, rule=lambda body: completion(ECHOED))
    try:
        answer = LocalAnswerer("local-vlm", server.url, timeout_s=5).answer(
            REQUEST, threading.Event()
        )
    finally:
        server.close()
    assert server.requests[-1]["headers"]["authorization"] == f"Bearer {LOCAL_KEY}"
    assert answer.text == "Yes. (debug: you sent ***)"


def test_gemini_answer_echoing_the_key_is_kept_masked(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(monkeypatch, GEMINI_KEY) as server:
        server.script = [text_reply(f"Yes. (debug: you sent {GEMINI_KEY})")]
        answer = GeminiAnswerer().answer(REQUEST, threading.Event())
    assert answer.text is not None and GEMINI_KEY not in answer.text and "***" in answer.text


def test_a_specification_echoing_the_key_is_written_masked(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    _, anthropic_fake = fakes
    anthropic_fake.rule = lambda body: tool_call(
        "write_specification", {"concept_id": ECHO_KEY, "note": f"key={ECHO_KEY}"}
    )
    with writer_for(CLAUDE) as writer:
        written = writer.write([("user", "write one")], {"type": "object"}, threading.Event())
    assert json.loads(written.text) == {"concept_id": "***", "note": "key=***"}


def test_screen_and_generate_specs_with_an_echoing_server_leave_no_key_in_the_project(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    demo_project: Path,
    context_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_fake, _ = fakes
    openai_fake.rule = lambda body: completion(ECHOED)
    code, _, err = run(
        capsys, "screen", str(demo_project), "--model", GPT, "--cases", "ctx01_tape_bagel"
    )
    assert code == 0, err
    screening = (demo_project / "cases/ctx01_tape_bagel/screening.json").read_text()
    assert "you sent ***" in screening  # the answer is kept, its key masked
    no_key_in_files(demo_project)

    numbers = iter(range(1, 100))

    def design(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        number = next(numbers)
        spec = context_spec(number, SCENES[number % len(SCENES)])
        spec["rationale"] = f"made with {ECHO_KEY}"
        return completion(json.dumps(spec))

    openai_fake.rule = design
    argv = ["generate", "specs", str(context_project), "--primer", "context", "--n", "2"]
    code, _, err = run(capsys, *argv, "--model", GPT)
    assert code == 0, err
    no_key_in_files(context_project)


def test_predict_with_echoing_servers_leaves_no_key_in_predictions_or_ledger(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    demo_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_fake, anthropic_fake = fakes
    openai_fake.rule = lambda body: completion(ECHOED)
    anthropic_fake.rule = lambda body: message(ECHOED)
    project = Project.open(demo_project, "alice")
    case = project.load_case("count01_apples")
    case.review.decision = Decision.KEEP
    project.save_review(case)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    outs = tmp_path / "out"
    outs.mkdir()
    for model in (GPT, CLAUDE):
        out = outs / f"{model.split(':')[0]}.jsonl"
        code, _, err = run(capsys, "predict", str(release), "--model", model, "--out", str(out))
        assert code == 0, err
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines and all("you sent ***" in line["response"] for line in lines)
    no_key_in_files(outs, release)


@pytest.mark.parametrize("model", [CLAUDE, "local:vlm"])
def test_screen_and_predict_through_anthropic_or_a_local_server_echoing_the_key_store_none(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    demo_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    model: str,
) -> None:
    openai_fake, anthropic_fake = fakes
    openai_fake.rule = lambda body: completion(ECHOED)
    anthropic_fake.rule = lambda body: message(ECHOED)
    local = ["--local", openai_fake.url] if model.startswith("local:") else []
    case = "ctx01_tape_bagel"
    code, _, err = run(
        capsys, "screen", str(demo_project), "--model", model, "--cases", case, *local
    )
    assert code == 0, err
    screening = (demo_project / "cases" / case / "screening.json").read_text()
    assert "you sent ***" in screening  # the answer is kept, its key masked
    project = Project.open(demo_project, "alice")
    opened = project.load_case("count01_apples")
    opened.review.decision = Decision.KEEP
    project.save_review(opened)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    out = tmp_path / "predictions.jsonl"
    code, _, err = run(capsys, "predict", str(release), "--model", model, "--out", str(out), *local)
    assert code == 0, err
    assert "you sent ***" in out.read_text()
    no_key_in_files(demo_project, release, tmp_path)


def test_generate_specs_with_anthropic_echoing_the_key_stages_none(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    context_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, anthropic_fake = fakes
    numbers = iter(range(1, 100))

    def design(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        number = next(numbers)
        spec = context_spec(number, SCENES[number % len(SCENES)])
        spec["rationale"] = f"made with {ECHO_KEY}"
        return tool_call("write_specification", spec)

    anthropic_fake.rule = design
    argv = ["generate", "specs", str(context_project), "--primer", "context", "--n", "2"]
    code, _, err = run(capsys, *argv, "--model", CLAUDE)
    assert code == 0, err
    staged = list(context_project.rglob("spec.json"))
    assert any("made with ***" in p.read_text() for p in staged)
    no_key_in_files(context_project)


# -- replies of any shape ------------------------------------------------------------------

HTML = Page(b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>")


def test_an_html_page_on_200_is_one_clear_failure_for_every_sdk_provider(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    openai_fake, anthropic_fake = fakes
    openai_fake.rule = lambda body: (200, HTML)
    anthropic_fake.rule = lambda body: (200, HTML)
    for name in (GPT, CLAUDE, "local:vlm"):
        answer = answerer_for(name, local_url=openai_fake.url).answer(REQUEST, threading.Event())
        assert answer.text is None
        assert "reply could not be read: the body is not a JSON object" in (answer.failure or "")
        assert "<!DOCTYPE html>" in (answer.failure or "")


def test_anthropic_content_5_is_a_failure_for_answers_and_specifications(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
) -> None:
    _, anthropic_fake = fakes
    anthropic_fake.rule = lambda body: (200, {"type": "message", "content": 5, "usage": "x"})
    answer = answerer_for(CLAUDE).answer(REQUEST, threading.Event())
    assert answer.text is None and "no answer came back" in (answer.failure or "")
    with writer_for(CLAUDE) as writer, pytest.raises(MakeFailedError, match="no specification"):
        writer.write([("user", "write one")], {"type": "object"}, threading.Event())


def test_screen_through_an_html_proxy_fails_the_call_not_the_program(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    demo_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_fake, _ = fakes
    openai_fake.rule = lambda body: (200, HTML)
    code, out, err = run(
        capsys, "screen", str(demo_project), "--model", GPT, "--cases", "ctx01_tape_bagel"
    )
    assert code == 1, err  # the calls failed, with their reason; no internal error (70)
    assert "reply could not be read" in out + err


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
FIELDS = st.sampled_from(
    ["choices", "message", "content", "usage", "text", "type", "finish_reason", "stop_reason"]
)
SHAPED = st.dictionaries(FIELDS, JSON, max_size=4).map(
    lambda d: {**d, "choices": [d] if "message" in d else d.get("choices")}
)
BODIES = (
    st.binary(max_size=40)
    | st.text(max_size=40).map(lambda t: Page(t.encode()))
    | JSON.map(lambda v: json.dumps(v).encode())
    | SHAPED.map(lambda v: json.dumps(v).encode())
)


@pytest.fixture(scope="module")
def shared_servers() -> Iterator[tuple[FakeOpenAI, FakeAnthropic]]:
    servers = FakeOpenAI(), FakeAnthropic()
    try:
        yield servers
    finally:
        for server in servers:
            server.close()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=BODIES)
def test_any_body_is_an_answer_or_one_line_of_reason(
    shared_servers: tuple[FakeOpenAI, FakeAnthropic], body: bytes | Page
) -> None:
    openai_fake, anthropic_fake = shared_servers
    openai_fake.rule = anthropic_fake.rule = lambda sent: (200, body)
    keyed = {"OPENAI_API_KEY": OPENAI_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in keyed.items():
            patch.setenv(name, value)
        patch.setenv("OPENAI_BASE_URL", openai_fake.url)
        patch.setenv("ANTHROPIC_BASE_URL", anthropic_fake.url)
        for name in (GPT, CLAUDE, "local:vlm"):
            engine: Any = answerer_for(name, local_url=openai_fake.url)
            try:
                answer = engine.answer(REQUEST, threading.Event())
            finally:
                engine.close()
            assert (answer.text is None) != (answer.failure is None)
            assert answer.failure is None or "\n" not in answer.failure


#: numbers no reply should carry: more digits than Python turns into an int, beyond a float
HUGE = st.integers(4400, 6000).map(
    lambda n: (
        b'{"choices": [{"message": {"content": "x"}}], "content": [{"type": "text", '
        b'"text": "x"}], "usage": {"prompt_tokens": ' + b"9" * n + b"}}"
    )
) | st.sampled_from([b'{"usage": 1e999}', b"[1e400]", b'{"candidates": 1e999}', b"-" + b"9" * 5000])
EVERY_BODY = BODIES | HUGE


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=EVERY_BODY)
def test_any_body_is_one_line_of_reason_for_gemini_too(body: bytes | Page) -> None:
    from fakes.gemini_server import Reply

    raw = body.body if isinstance(body, Page) else body
    with pytest.MonkeyPatch.context() as patch, serving(patch, GEMINI_KEY) as server:
        server.default = Reply(raw=raw)
        answer = GeminiAnswerer().answer(REQUEST, threading.Event())
    assert (answer.text is None) != (answer.failure is None)
    assert answer.failure is None or "\n" not in answer.failure


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=HUGE)
def test_huge_numbers_are_one_line_of_reason_for_every_sdk_provider(
    shared_servers: tuple[FakeOpenAI, FakeAnthropic], body: bytes
) -> None:
    test_any_body_is_an_answer_or_one_line_of_reason.hypothesis.inner_test(  # type: ignore[attr-defined]
        shared_servers, body
    )


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=EVERY_BODY)
def test_any_body_to_a_specification_writer_is_a_spec_or_one_clear_failure(
    shared_servers: tuple[FakeOpenAI, FakeAnthropic], body: bytes | Page
) -> None:
    openai_fake, anthropic_fake = shared_servers
    openai_fake.rule = anthropic_fake.rule = lambda sent: (200, body)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", OPENAI_KEY)
        patch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
        patch.setenv("OPENAI_BASE_URL", openai_fake.url)
        patch.setenv("ANTHROPIC_BASE_URL", anthropic_fake.url)
        for name in (GPT, CLAUDE):
            with writer_for(name) as writer:
                try:
                    written = writer.write([("user", "one")], {"type": "object"}, threading.Event())
                except MakeFailedError as exc:
                    assert "\n" not in str(exc)
                else:
                    assert isinstance(written.text, str)
