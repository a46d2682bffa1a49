"""Every model-backed command has a whole-run deadline and a give-up rule: against a service
that never answers, or that asks to come back in five minutes, the run stops on its own with
one line saying why and how to resume (exit 1), and what it did is kept.

Run against the fake Gemini on 127.0.0.1 with the real client; the deadlines are small (2 s),
and pytest-timeout is the only guard on time (no wall-clock asserts)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import release_of
from fakes.gemini_server import (
    FakeGemini,
    Reply,
    error_reply,
    hang_reply,
    retry_reply,
    serving,
)
from fakes.pipeline import PipelineModels

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.screening import read_record
from sabre_desk.core.jobs.run_guard import (
    LONG_WAIT,
    RATE_LIMITED,
    RunGuard,
    RunLimits,
    failure_kind,
)
from sabre_desk.core.making.incoming import spec_failures, staged_cases
from sabre_desk.core.screening import screen_batch

KEY = "limits-key-" + "l" * 25
pytestmark = pytest.mark.timeout(90)


Capsys = pytest.CaptureFixture[str]


@pytest.fixture
def models(pipeline_models: tuple[FakeGemini, PipelineModels]) -> FakeGemini:
    """The fake answering as the pipeline's models (a script, when set, goes first)."""
    return pipeline_models[0]


def slow_down() -> Reply:
    """A 429 asking to come back in five minutes, in the header and in RetryInfo."""
    reply = retry_reply(300)
    reply.headers["Retry-After"] = "300"
    return reply


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        yield server


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def stop_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("sabre-desk: stopped:")]


def test_screen_against_a_silent_service_stops_at_its_deadline(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.answer = lambda body: hang_reply()
    folder = demo_project / "cases" / "count01_apples"
    before = (folder / "screening.json").read_bytes()
    code, _, err = run(
        capsys, "screen", str(demo_project), "--cases", "count01_apples", "--deadline", "2"
    )
    assert code == 1
    assert stop_lines(err) == [
        "sabre-desk: stopped: the run's deadline of 2 s has passed; run the same command "
        "again to screen the rest (every answer received is kept)"
    ]
    assert "not screened: count01_apples" in err
    assert (folder / "screening.json").read_bytes() == before  # nothing half-written


def test_screen_told_to_come_back_in_five_minutes_moves_on_then_gives_up(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.answer = lambda body: slow_down()
    code, out, err = run(
        capsys,
        *("screen", str(demo_project), "--concurrency", "1"),
        *("--give-up-after", "3", "--deadline", "60"),
    )
    assert code == 1
    [line] = stop_lines(err)
    assert line.startswith("sabre-desk: stopped: 3 calls in a row failed (rate-limited); run")
    assert "not screened: " in err
    # The cases whose probes came back rate-limited are recorded as such; the rest wait.
    screened = [c for c in Project.open(demo_project, "alice").entries if c.case_id in out]
    assert screened and len(screened) < 13
    record = read_record(demo_project / "cases" / screened[0].case_id)
    assert record is not None and record.latest is not None
    for result in record.latest.results.values():
        assert failure_kind(result.failed or "") == RATE_LIMITED, result.failed
    assert len(fake.requests) <= 3


def test_predict_gives_up_after_n_rate_limits_in_a_row(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    release = release_of(demo_project, tmp_path / "release")
    capsys.readouterr()
    fake.answer = lambda body: slow_down()
    out = tmp_path / "preds.jsonl"
    code, _, err = run(
        capsys,
        *("predict", str(release), "--out", str(out), "--concurrency", "1"),
        "--give-up-after=2",
    )
    assert code == 1
    [line] = stop_lines(err)
    assert "2 calls in a row failed (rate-limited)" in line and "ask the rest" in line
    rows = [json.loads(r) for r in out.read_text().splitlines()]
    assert 1 <= len(rows) <= 3 and all(r["response"] is None for r in rows)
    assert "questions not asked" in err


def generate_specs_stopped(capsys: pytest.CaptureFixture[str], project: Path, *limits: str) -> str:
    """`generate specs --n 3` with *limits*: it wrote none and stopped; its stop line."""
    code, out, err = run(
        capsys, "generate", "specs", str(project), "--primer", "context", "--n", "3", *limits
    )
    assert code == 1 and "wrote 0 of 3 specifications" in out
    [line] = stop_lines(err)
    return line


def test_generate_specs_and_images_stop_at_their_deadline(
    context_project: Path, models: FakeGemini, capsys: Capsys
) -> None:
    server = models
    root = str(context_project)
    assert run(capsys, "generate", "specs", root, "--primer", "context", "--n", "2")[0] == 0
    server.script = [hang_reply() for _ in range(20)]
    line = generate_specs_stopped(capsys, context_project, "--deadline", "2")
    assert "deadline of 2 s has passed" in line and "generate specs` again" in line
    code, _, err = run(capsys, "generate", "images", root, "--deadline", "2")
    assert code == 1
    [line] = stop_lines(err)
    assert "deadline of 2 s has passed" in line and "make the rest" in line
    waiting = sorted(s.case_id for s in staged_cases(context_project))
    assert len(waiting) == 2 and f"not made: {', '.join(waiting)}" in err
    assert all(s.state.value != "failed" for s in staged_cases(context_project))


def test_generate_specs_gives_up_after_the_same_refusal_n_times(
    context_project: Path, models: FakeGemini, capsys: Capsys
) -> None:
    server = models
    server.script = [error_reply(400, "API key not valid") for _ in range(10)]
    line = generate_specs_stopped(capsys, context_project, "--give-up-after=2")
    assert "2 calls in a row failed (the service answered 400)" in line
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("Gemini answered 429: quota exceeded (1 attempt, at most 180 s in all)", RATE_LIMITED),
        ("Gemini asked to wait 300 s; no time left within 180 s", RATE_LIMITED),
        (
            "Gemini did not finish answering within 20 s, the limit per attempt",
            "the service did not answer in time",
        ),
        ("could not reach Gemini (ConnectError: refused)", "the service could not be reached"),
        ("Gemini answered 403: forbidden", "the service answered 403"),
        (
            "the answer is too long (2.0 MB; the limit is 16.0 KB); it begins '429 timed out'",
            "the reply was too long",
        ),
        (
            "OpenAI's reply was refused: the reply is larger than 64.5 KB (2.0 MB announced), "
            "the limit for an answer of at most 16 tokens; it was not read",
            "the reply was too long",
        ),
    ],
)
def test_failures_of_one_kind_are_told_apart_from_others(reason: str, kind: str) -> None:
    assert failure_kind(reason) == kind


def test_bad_limits_are_a_usage_error(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "screen", str(demo_project), "--deadline", "0")
    assert code == 2 and "the deadline must be a positive number of seconds" in err
    assert not fake.requests


def test_screen_batch_stops_waiting_at_its_deadline_and_keeps_the_job(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    fake.batches.polls_until_done = 10**6  # a job the service never finishes
    code, _, err = run(
        capsys,
        *("screen", str(demo_project), "--batch", "--cases", "count01_apples"),
        *("--poll", "0.05", "--deadline", "2"),
    )
    assert code == 1
    [line] = stop_lines(err)
    assert "deadline of 2 s has passed" in line and "run the same command again to collect" in line
    assert len(screen_batch.pending_jobs(Project.open(demo_project, "alice"))) == 1


def test_generate_specs_records_a_long_rate_limit_and_moves_on_then_gives_up(
    context_project: Path, models: FakeGemini, capsys: Capsys
) -> None:
    """A 429 asking for five minutes is not sat out: that specification is recorded as
    rate-limited, the next one is tried, and after N in a row the run stops."""
    models.script = [slow_down() for _ in range(10)]
    line = generate_specs_stopped(capsys, context_project, "--give-up-after=2")
    assert "2 calls in a row failed (rate-limited)" in line
    failures = spec_failures(context_project)
    assert len(failures) == 2
    assert all(f["reason"] == LONG_WAIT for f in failures)
    assert len(models.requests) == 1  # the second never went out: the wait was asked of all


def test_generate_images_records_a_long_rate_limit_and_moves_on(
    context_project: Path, models: FakeGemini, capsys: Capsys
) -> None:
    root = str(context_project)
    assert run(capsys, "generate", "specs", root, "--primer", "context", "--n", "3")[0] == 0
    models.script = [slow_down() for _ in range(10)]
    code, _, err = run(
        capsys, "generate", "images", root, "--concurrency", "1", "--give-up-after", "5"
    )
    assert code == 1 and not stop_lines(err)  # three cases, each recorded, none waited for
    staged = staged_cases(context_project)
    assert len(staged) == 3 and all(s.state.value == "failed" for s in staged)
    assert all(f"{s.case_id}: {LONG_WAIT}" in err for s in staged)


def test_screen_does_not_sit_out_a_90_second_rate_limit(
    demo_project: Path, fake: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wait the call itself would allow (90 s of its 180) is still too long for the run:
    the probe is recorded as rate-limited and the run goes on to the end."""
    reply = retry_reply(90)
    reply.headers["Retry-After"] = "90"
    fake.script = [reply]
    code, out, err = run(capsys, "screen", str(demo_project), "--cases", "count01_apples")
    assert code == 1 and not stop_lines(err)
    assert f"case count01_apples probe apples: {LONG_WAIT}" in err
    assert "count01_apples: Screening failed" in out


def test_failures_of_the_items_themselves_never_stop_a_run() -> None:
    """Safety stops and rambling replies belong to the items: a rerun asks the failed ones
    first, so counting them would stop every rerun at the same place."""
    guard = RunGuard(RunLimits(give_up_after=2), threading.Event(), "resume")
    guard.outcome("Gemini answered 503: overloaded")
    for _ in range(10):
        guard.outcome("the answer is too long (2.0 MB; the limit is 16.0 KB); it begins 'B'")
        guard.outcome("the reply had no text (finish reason SAFETY)")
    assert guard.check() and guard.stop_reason is None
    guard.outcome("Gemini answered 503: overloaded")
    assert guard.stop_reason is not None and "2 calls in a row failed" in guard.stop_reason
