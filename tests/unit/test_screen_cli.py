"""`sabre-desk screen`, `predict`, `cost` as a new user runs them, against local fakes: the
Gemini one through GOOGLE_GEMINI_BASE_URL, an OpenAI-compatible one for --local."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, Reply, asked_text, serving, text_reply
from fakes.openai_server import FakeOpenAI, completion
from fakes.oracle import Oracle

from sabre_desk.cli import main
from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import Project
from sabre_desk.core.release.release import verify
from sabre_desk.engines.answers import AnswerConfig, AnswerRequest
from sabre_desk.engines.local_qa import LocalAnswerer

KEY = "cli-key-" + "c" * 28


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        server.answer = Oracle().rule
        yield server


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv])
    out, err = capsys.readouterr()
    assert KEY not in out + err
    return code, out, err


def test_screen_the_demo_then_cost_it(
    demo_project: Path,
    fake: FakeGemini,
    capsys: pytest.CaptureFixture[str],
    _isolated_settings: Path,
) -> None:
    fake.answer = lambda body: text_reply("Yes." if "Question: Is" in asked_text(body) else "B")
    code, out, err = run(capsys, "screen", str(demo_project), "--dry-run")
    assert code == 0 and "13 cases, 31 probes" in err and not fake.requests
    code, out, err = run(capsys, "screen", str(demo_project))
    assert code == 0, err
    assert "screened 13 cases" in out and "31 requests sent" in out
    assert "spatial02_above_red: Solved by the filter" in out
    assert "ctx01_tape_bagel: Kept by the filter" in out
    entries = {e.case_id: e.screening for e in Project.open(demo_project, "alice").entries}
    assert entries["spatial02_above_red"] is ScreenStatus.SOLVED
    code, out, _ = run(capsys, "screen", str(demo_project))
    assert "0 requests sent" in out and len(fake.requests) == 31  # nothing is sent twice

    code, out, _ = run(capsys, "cost", str(demo_project))
    assert code == 0 and "screen" in out and "unknown" in out and "$" not in out.split("total")[0]
    settings = {"prices": {"gemini-3.5-flash": {"input": 0.5, "output": 3.0}}}
    (_isolated_settings / "settings.json").write_text(json.dumps(settings))
    code, out, _ = run(capsys, "cost", str(demo_project), "--json")
    data = json.loads(out)
    (row,) = data["rows"]
    expected = 31 * (270 * 0.5 + 7 * 3.0) / 1e6
    assert row["usd"] == pytest.approx(expected) and data["total_usd"] == pytest.approx(expected)
    assert row["cases"] == 13 and row["usd_per_100_candidates"] == pytest.approx(
        expected / 13 * 100
    )
    assert data["kept_cases"] == sum(1 for s in entries.values() if s is ScreenStatus.KEPT)
    assert KEY not in "".join(p.read_text(errors="ignore") for p in demo_project.rglob("*.json*"))


def test_screen_failures_exit_1_and_name_case_and_probe(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    from fakes.gemini_server import error_reply

    fake.answer = lambda body: error_reply(400, "bad request")
    code, out, err = run(capsys, "screen", str(demo_project), "--cases", "count01_apples")
    assert code == 1
    assert "case count01_apples probe apples: Gemini answered 400: bad request" in err
    assert "count01_apples: Screening failed" in out


def test_screen_without_a_key_says_how_to_get_one(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    code, _, err = run(capsys, "screen", str(demo_project))
    assert code == 2 and "GEMINI_API_KEY" in err


def test_export_ships_the_prompts_then_predict_and_score(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = Project.open(demo_project, "alice")
    from sabre_desk.core.case.review import Decision

    for case_id in ("ctx01_tape_bagel", "count01_apples", "lang01_mug_back"):
        case = project.load_case(case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    manifest = (release / "MANIFEST.sha256").read_text()
    assert "  prompts/prompts.json" in manifest and "  prompts/yn.txt" in manifest
    assert json.loads((release / "release.json").read_text())["prompts"]["version"] == "v1"
    assert verify(release).ok
    # The release's own prompts are what predict sends.
    (release / "prompts" / "mcq.txt").write_text(
        "Question: {question}\n{options}\nReply with the letter."
    )
    out_file = tmp_path / "preds.jsonl"
    code, out, err = run(capsys, "predict", str(release), "--out", str(out_file))
    assert code == 0, err
    lines = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert len(lines) == 6 and all(row["response"] for row in lines)
    asked = [r["body"] for r in fake.requests if ":generateContent" in r["path"]]
    mcq = [b for b in asked if "Reply with the letter." in json.dumps(b)]
    assert len(mcq) == 1 and "D. Cannot be determined from the image" in json.dumps(mcq[0])
    assert (tmp_path / "ledger.jsonl").exists()
    # A rerun asks nothing; score reads the file.
    code, out, _ = run(capsys, "predict", str(release), "--out", str(out_file))
    assert "0 questions asked, 6 answered before" in out and len(asked) == 6
    code, out, _ = run(capsys, "score", str(release), str(out_file), "--json")
    assert code == 0 and json.loads(out)["missing_predictions"] == 0


def test_a_killed_predict_resumes_without_asking_again(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from sabre_desk.core.case.review import Decision
    from sabre_desk.core.jobs.ledger import Ledger
    from sabre_desk.core.release.predict import predict
    from sabre_desk.engines.gemini_qa import GeminiAnswerer

    project = Project.open(demo_project, "alice")
    for entry in project.entries:
        case = project.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    out = tmp_path / "p.jsonl"
    fake.latency_s = 0.1
    cancel = threading.Event()
    oracle = fake.answer
    assert oracle is not None

    def then_stop(body: dict[str, object]) -> Reply:
        # the fifth question only leaves once three answers are in (two at a time):
        # stopped there, some are answered and most are not, however slow the machine
        if len(fake.requests) >= 5:
            cancel.set()
        return oracle(body)

    fake.answer = then_stop
    first = predict(release, out, GeminiAnswerer(), Ledger(tmp_path / "l.jsonl"), 2, None, cancel)
    assert first.cancelled and 0 < first.asked < 31
    with out.open("a") as fh:
        fh.write('{"question_id": "torn')  # what a kill mid-write would leave
    fake.latency_s, fake.answer = 0, oracle
    sent = len(fake.requests)
    second = predict(release, out, GeminiAnswerer(), Ledger(tmp_path / "l.jsonl"), 4)
    assert second.already == first.asked and second.asked == 31 - first.asked
    assert len(fake.requests) - sent == 31 - first.asked
    ids = [json.loads(line)["question_id"] for line in out.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 31


def test_a_local_openai_compatible_server(
    demo_project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server = FakeOpenAI()
    try:
        server.script = [(429, {"error": {"message": "busy"}}), completion("7")]
        answerer = LocalAnswerer("local-vlm", server.url, timeout_s=5, attempts=3)
        request = AnswerRequest(b"\x89PNG fake", "image/png", "Question: how many?", AnswerConfig())
        answer = answerer.answer(request, threading.Event())
        assert answer.text == "7" and answer.usage is not None and answer.usage.input == 300
        sent = server.requests[-1]["body"]
        assert sent["model"] == "local-vlm" and sent["temperature"] == 0
        content = sent["messages"][0]["content"]
        assert content[0]["image_url"]["url"].startswith("data:image/png;base64,")
        server.script = [completion(None, "content_filter")]
        failed = answerer.answer(request, threading.Event())
        assert failed.text is None and "content filter" in (failed.failure or "")
        server.script = [(500, {"error": {"message": "down"}})] * 3
        assert "answered 500" in (answerer.answer(request, threading.Event()).failure or "")

        server.rule = lambda body: completion("Yes")
        code, _, err = run(
            capsys,
            "screen",
            str(demo_project),
            "--local",
            server.url,
            "--model",
            "local-vlm",
            "--cases",
            "ctx01_tape_bagel",
        )
        assert code == 0, err
        run_ = json.loads((demo_project / "cases/ctx01_tape_bagel/screening.json").read_text())
        last = run_["runs"][-1]
        assert last["engine"] == "local" and last["model"] == "local:local-vlm"
    finally:
        server.close()


def test_predict_through_the_batch_api(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from sabre_desk.core.case.review import Decision

    project = Project.open(demo_project, "alice")
    for case_id in ("count01_apples", "lang01_mug_back"):
        case = project.load_case(case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    out = tmp_path / "preds.jsonl"
    code, text, err = run(
        capsys, "predict", str(release), "--batch", "--poll", "0.01", "--out", str(out)
    )
    assert code == 0, err
    assert "2 questions asked" in text and fake.batches.created[0]["mode"] == "inline"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["question_id"] for r in rows} == {
        "count01_apples:apples",
        "lang01_mug_back:hidden_print",
    }
    assert json.loads((tmp_path / "preds.jsonl.job.json").read_text())["collected_at"]
    ledger = [json.loads(line) for line in (tmp_path / "ledger.jsonl").read_text().splitlines()]
    assert len(ledger) == 2 and all(line["stage"] == "predict" and line["batch"] for line in ledger)
    code, text, _ = run(capsys, "predict", str(release), "--batch", "--out", str(out))
    assert "0 questions asked, 2 answered before" in text and len(fake.batches.created) == 1
