"""The paper's models from the command line, each provider's official client against a
stand-in of its wire format found through the client's own variables (OPENAI_BASE_URL,
ANTHROPIC_BASE_URL): predict, predict --batch, screen, generate specs, evaluate, cost; and no
key in any output or file."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropic
from fakes.openai_server import FakeOpenAI, completion
from fakes.pipeline import SCENES, context_spec

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision

OPENAI_KEY = "sk-proj-" + "q" * 32
ANTHROPIC_KEY = "sk-ant-api-" + "z" * 32
GPT, CLAUDE = "openai:gpt-5.4", "anthropic:claude-opus-4-6"
GEMINI, GEMINI_KEY = "gemini:gemini-3.5-flash", "gemini-key-" + "g" * 30


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeAnthropic]]:
    openai_fake, anthropic_fake = FakeOpenAI(), FakeAnthropic()
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_fake.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", anthropic_fake.url)
    try:
        yield openai_fake, anthropic_fake
    finally:
        openai_fake.close()
        anthropic_fake.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv])
    out, err = capsys.readouterr()
    assert all(key not in out + err for key in (OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY))
    return code, out, err


@pytest.fixture
def release(demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    project = Project.open(demo_project, "alice")
    for case_id in ("count01_apples", "lang01_mug_back"):
        case = project.load_case(case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    folder = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(folder))[0] == 0
    return folder


def _rows(release: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (release / "benchmark.jsonl").read_text().splitlines()]


def _no_key_in_files(*folders: Path) -> None:
    for folder in folders:
        for path in folder.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert all(k.encode() not in data for k in (OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY))


def test_predict_with_openai_and_anthropic_writes_one_prediction_per_row(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_fake, anthropic_fake = fakes
    rows = _rows(release)
    images = {str(row["image"]) for row in rows}
    for model, fake in ((GPT, openai_fake), (CLAUDE, anthropic_fake)):
        out = tmp_path / f"{model.split(':')[0]}.jsonl"
        code, _, err = run(capsys, "predict", str(release), "--model", model, "--out", str(out))
        assert code == 0, err
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert sorted(line["question_id"] for line in lines) == sorted(
            str(row["question_id"]) for row in rows
        )
        assert all(line["response"] == "Yes" and line["model"] == model for line in lines)
        asked = [r["body"] for r in fake.requests if r["method"] == "POST"]
        assert len(asked) == len(rows)
        sent = [_image_of(body) for body in asked]
        assert sent.count(None) == 0
        release_images = {(release / name).read_bytes() for name in images}
        assert set(sent) <= release_images  # every request carried its row's image
    code, out, _ = run(capsys, "cost", str(tmp_path / "ledger.jsonl"), "--json")
    models = {row["model"] for row in json.loads(out)["rows"]}
    assert models == {GPT, CLAUDE}
    _no_key_in_files(tmp_path)


def _image_of(body: dict[str, object]) -> bytes | None:
    content = body["messages"][0]["content"]  # type: ignore[index]
    first = content[0]  # type: ignore[index]
    if first["type"] == "image_url":
        return base64.b64decode(first["image_url"]["url"].split(",", 1)[1])
    if first["type"] == "image":
        return base64.b64decode(first["source"]["data"])
    return None


@pytest.mark.parametrize("split", [False, True], ids=["one job", "larger than a job"])
def test_predict_through_openai_and_anthropic_batches(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    split: bool,
) -> None:
    from sabre_desk.engines.sdk_batch import AnthropicBatchClient, OpenAIBatchClient

    openai_fake, anthropic_fake = fakes
    openai_fake.batch_polls = anthropic_fake.batch_polls = 1
    if split:  # the services' limits, made small: the job goes in parts under one name
        monkeypatch.setattr(OpenAIBatchClient, "max_requests", 2)
        monkeypatch.setattr(AnthropicBatchClient, "max_bytes", 1)  # one request a part
    rows = _rows(release)
    for model in (GPT, CLAUDE):
        out = tmp_path / f"batch-{model.split(':')[0]}.jsonl"
        argv = ["predict", str(release), "--model", model, "--out", str(out), "--batch"]
        code, _, err = run(capsys, *argv, "--poll", "0.01")
        assert code == 0, err
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert len(lines) == len(rows) and all(line["response"] == "Yes" for line in lines)
        job = json.loads(out.with_name(out.name + ".job.json").read_text())
        assert job["collected_at"] == "JOB_STATE_SUCCEEDED"
        # a rerun finds everything answered and sends nothing
        before = len(openai_fake.requests) + len(anthropic_fake.requests)
        assert run(capsys, *argv)[0] == 0
        assert len(openai_fake.requests) + len(anthropic_fake.requests) == before
    assert len(openai_fake.batches) == ((len(rows) + 1) // 2 if split else 1)
    assert len(anthropic_fake.batches) == (len(rows) if split else 1)
    ledger = [json.loads(x) for x in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert {line["model"] for line in ledger} == {GPT, CLAUDE} and all(
        line["batch"] for line in ledger
    )


def test_screen_a_project_with_openai(
    fakes: tuple[FakeOpenAI, FakeAnthropic], demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "screen", str(demo_project), "--model", GPT, "--cases", "ctx01_tape_bagel"
    )
    assert code == 0, err
    assert "screened 1 case" in out
    runs = json.loads((demo_project / "cases/ctx01_tape_bagel/screening.json").read_text())
    assert runs["runs"][-1]["engine"] == "openai" and runs["runs"][-1]["model"] == GPT
    project = Project.open(demo_project, "alice")
    case = project.load_case("ctx01_tape_bagel")
    case.review.decision = Decision.KEEP
    project.save_review(case)
    release = demo_project.parent / "screened-release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    (row, *_) = _rows(release)
    assert row["provenance"]["screening"]["model"] == GPT  # type: ignore[index]
    _no_key_in_files(demo_project, release)


def test_generate_specs_with_openai_structured_output(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    context_project: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    openai_fake, _ = fakes
    numbers = iter(range(1, 100))

    def design(body: dict[str, object]) -> tuple[int, dict[str, object]]:
        number = next(numbers)
        return completion(json.dumps(context_spec(number, SCENES[number % len(SCENES)])))

    openai_fake.rule = design
    argv = ["generate", "specs", str(context_project), "--primer", "context", "--n", "2"]
    code, out, err = run(capsys, *argv, "--model", GPT)
    assert code == 0, err
    sent = openai_fake.requests[-1]["body"]
    assert sent["response_format"]["type"] == "json_schema"
    assert sent["response_format"]["json_schema"]["schema"]["properties"]["concept_id"]
    code, out, _ = run(capsys, "stats", str(context_project))
    assert code == 0
    code, out, _ = run(capsys, "cost", str(context_project), "--json")
    assert {row["model"] for row in json.loads(out)["rows"]} == {GPT}
    _no_key_in_files(context_project)


def test_evaluate_three_providers_prints_table_7_naming_them(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    _isolated_settings: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from fakes.gemini_server import serving, text_reply

    openai_fake, anthropic_fake = fakes
    anthropic_fake.rule = lambda body: (200, _claude("No"))
    folder = tmp_path / "eval"
    models = f"{GEMINI},{GPT},{CLAUDE}"
    with serving(monkeypatch, GEMINI_KEY) as gemini_fake:
        gemini_fake.answer = lambda body: text_reply("Yes")
        code, out, err = run(
            capsys, "evaluate", str(release), "--models", models, "--out", str(folder)
        )
        assert len(gemini_fake.requests) == len(_rows(release))
    assert code == 0, err
    header = out.splitlines()[0]
    assert GEMINI in header and GPT in header and CLAUDE in header and "Macro Avg." in out
    for name in ("table7.md", "table7.csv", "table7.tex", "figures.json"):
        assert (folder / name).is_file()
    figures = json.loads((folder / "figures.json").read_text())
    assert set(figures["models"]) == {GEMINI, GPT, CLAUDE}
    assert "macro_all_ci" in json.dumps(figures) or "ci" in json.dumps(figures)
    prices = {"prices": {GPT: {"input": 2.0, "output": 10.0}}}  # Claude's left out: unknown
    (_isolated_settings / "settings.json").write_text(json.dumps(prices))
    code, out, _ = run(capsys, "cost", str(folder / "ledger.jsonl"), "--json")
    data = json.loads(out)
    by_model = {row["model"]: row for row in data["rows"]}
    assert set(by_model) == {"gemini-3.5-flash", GPT, CLAUDE}
    assert by_model[GPT]["provider"] == "openai" and by_model[GPT]["usd"] > 0
    assert by_model[CLAUDE]["usd"] is None and by_model[CLAUDE]["price"] == "unknown"
    assert data["total_usd"] is None  # unknown, never zero
    # a rerun asks nothing
    asked = len(openai_fake.requests) + len(anthropic_fake.requests)
    monkeypatch.setenv("GEMINI_API_KEY", GEMINI_KEY)
    code, out, _ = run(capsys, "evaluate", str(release), "--models", models, "--out", str(folder))
    assert code == 0 and len(openai_fake.requests) + len(anthropic_fake.requests) == asked
    _no_key_in_files(folder)


def _claude(text: str) -> dict[str, object]:
    from fakes.anthropic_server import message

    return message(text)[1]


def test_a_model_name_with_an_unknown_provider_is_a_one_line_error(
    capsys: pytest.CaptureFixture[str], release: Path
) -> None:
    code, _, err = run(capsys, "predict", str(release), "--model", "mistral:large")
    assert code == 2 and "unknown provider 'mistral'" in err and len(err.strip().splitlines()) == 1


def test_screen_through_anthropic_message_batches(
    fakes: tuple[FakeOpenAI, FakeAnthropic], demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, anthropic_fake = fakes
    argv = ["screen", str(demo_project), "--model", CLAUDE, "--cases", "ctx01_tape_bagel"]
    code, out, err = run(capsys, *argv, "--batch", "--poll", "0.01")
    assert code == 0, err
    assert "screened 1 case" in out and len(anthropic_fake.batches) == 1
    sent = next(iter(anthropic_fake.batches.values()))["requests"]
    assert all(r["params"]["messages"][0]["content"][0]["type"] == "image" for r in sent)
    runs = json.loads((demo_project / "cases/ctx01_tape_bagel/screening.json").read_text())
    assert runs["runs"][-1]["model"] == CLAUDE


def test_a_300_mb_reply_is_kept_only_as_its_one_line_reason(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    demo_project: Path,
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    _isolated_settings: Path,
) -> None:
    from fakes.http_fake import Flood

    openai_fake, _ = fakes
    openai_fake.rule = lambda body: (200, Flood(300 * 1024 * 1024, announce=False))
    argv = ["screen", str(demo_project), "--model", GPT, "--cases", "ctx01_tape_bagel"]
    code, _, err = run(capsys, *argv)
    assert code == 1
    reason = "OpenAI's reply was refused: the reply is larger than"
    assert reason in err
    screening = demo_project / "cases/ctx01_tape_bagel/screening.json"
    assert reason in screening.read_text() and screening.stat().st_size < 64 * 1024
    out = tmp_path / "flooded.jsonl"
    code, _, err = run(capsys, "predict", str(release), "--model", GPT, "--out", str(out))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 1 and all(line["response"] is None for line in lines)
    assert all(reason in line["failure"] and "\n" not in line["failure"] for line in lines)
    assert out.stat().st_size < 64 * 1024
    # each refused reply was cut off after a few megabytes at most
    assert openai_fake.flooded and max(openai_fake.flooded) < 32 * 1024 * 1024
    _no_key_in_files(demo_project, tmp_path, _isolated_settings)


def test_evaluate_three_providers_through_the_batch_services(
    fakes: tuple[FakeOpenAI, FakeAnthropic],
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    openai_fake, anthropic_fake = fakes
    monkeypatch.setenv("SABRE_DESK_LOCAL_BASE_URL", openai_fake.url)  # a local server
    folder = tmp_path / "eval-batch"
    argv = ["evaluate", str(release), "--models", f"{GPT},{CLAUDE},local:qwen"]
    code, out, err = run(capsys, *argv, "--out", str(folder), "--batch", "--poll", "0.01")
    assert code == 0, err
    assert len(openai_fake.batches) == len(anthropic_fake.batches) == 1
    # the local model has no batch service: each of its questions asked directly
    direct = [r for r in openai_fake.requests if r["path"].endswith("/chat/completions")]
    assert len(direct) == len(_rows(release)) and {r["body"]["model"] for r in direct} == {"qwen"}
    header = out.splitlines()[0]
    assert GPT in header and CLAUDE in header and "local:qwen" in header


@pytest.mark.parametrize("model", [GPT, CLAUDE])
def test_a_batch_left_by_ctrl_c_is_collected_by_the_next_run_not_sent_again(
    fakes: tuple[FakeOpenAI, FakeAnthropic], release: Path, tmp_path: Path, model: str
) -> None:
    import threading

    from sabre_desk.core.jobs.ledger import Ledger
    from sabre_desk.core.release.predict import predict_batch
    from sabre_desk.engines.models import parse_model
    from sabre_desk.engines.sdk_batch import batch_client_for

    openai_fake, anthropic_fake = fakes
    fake = openai_fake if model == GPT else anthropic_fake
    fake.batch_polls = 10**6  # the job never finishes while the first run waits
    name = parse_model(model)
    out, ledger = tmp_path / "p.jsonl", Ledger(tmp_path / "ledger.jsonl")
    cancel = threading.Event()
    first = predict_batch(
        release,
        out,
        batch_client_for(name.provider, name.model, None),
        ledger,
        lambda line: cancel.set(),  # Ctrl+C after the first poll
        cancel,
        0.01,
    )
    assert first.cancelled and not out.read_text()
    fake.batch_polls = 0
    second = predict_batch(
        release,
        out,
        batch_client_for(name.provider, name.model, None),
        ledger,
        lambda line: None,
        threading.Event(),
        0.01,
    )
    assert not second.cancelled and second.asked == len(_rows(release))
    assert len(fake.batches) == 1  # the same job, collected
    assert all(json.loads(line)["response"] == "Yes" for line in out.read_text().splitlines())


def test_the_windows_screening_process_asks_a_local_server(
    fakes: tuple[FakeOpenAI, FakeAnthropic], demo_project: Path
) -> None:
    from sabre_desk.core.screening.screen_process import ScreenOrder, ScreenProcess

    openai_fake, _ = fakes
    done: list[object] = []
    order = ScreenOrder(
        demo_project,
        "alice",
        case_ids=["ctx01_tape_bagel"],
        model="local:qwen",
        local_url=openai_fake.url,  # the settings' local_base_url, as the window passes it
    )
    job = ScreenProcess(order)
    job.start(lambda event: None, lambda report, error: done.append((report, error)))
    assert job.wait(60)
    ((report, error),) = done
    assert error is None and report.sent > 0  # type: ignore[attr-defined]
    asked = [r["body"]["model"] for r in openai_fake.requests]
    assert asked and set(asked) == {"qwen"}
