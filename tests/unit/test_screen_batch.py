"""`screen --batch`: the Gemini Batch API through google-genai's client.batches (and
client.files for large jobs) against the fake; job state in the project, resumed after a
crash, results matched by key, expired and partly failed jobs."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, serving
from fakes.oracle import Oracle

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import Project
from sabre_desk.core.jobs.ledger import Ledger, summarize
from sabre_desk.core.screening import screen_batch
from sabre_desk.core.screening.prompts import shipped_prompts
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import plan_screening
from sabre_desk.engines.gemini_batch import GeminiBatchClient
from sabre_desk.engines.gemini_qa import GeminiAnswerer

KEY = "batch-key-" + "b" * 26
CASES = ["count01_apples", "ctx03_wrench_banana", "lang01_mug_back"]  # 6 probes


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        server.answer = Oracle().rule
        yield server


def submit(project: Project, inline_limit: int = 16 << 20) -> screen_batch.JobFile | None:
    engine = GeminiAnswerer()
    client = GeminiBatchClient(engine.model, inline_limit=inline_limit, initial_delay_s=0.01)
    plan = plan_screening(project, engine, shipped_prompts(), CASES)
    cache = RequestCache.of_project(project.root)
    return screen_batch.submit(project, plan, client, cache, threading.Event())


def collect(project: Project, cancel: threading.Event | None = None) -> screen_batch.BatchReport:
    client = GeminiBatchClient("gemini-3.5-flash", initial_delay_s=0.01)
    return screen_batch.wait_and_collect(
        project,
        client,
        RequestCache.of_project(project.root),
        Ledger.of_project(project.root),
        lambda _: None,
        cancel or threading.Event(),
        interval_s=0.01,
    )


@pytest.mark.parametrize("inline_limit", [16 << 20, 0], ids=["inline", "uploaded-file"])
def test_a_job_is_saved_then_resumed_by_a_new_process_and_collected_by_key(
    demo_project: Path, fake: FakeGemini, inline_limit: int
) -> None:
    fake.batches.polls_until_done = 2
    job = submit(Project.open(demo_project, "alice"), inline_limit)
    assert job is not None and job.path.parent.name == "screening-jobs"
    state = json.loads(job.path.read_text())
    assert state["name"] == "batches/job1" and state["requests"] == 6
    assert state["mode"] == ("inline" if inline_limit else "file")
    assert fake.batches.created[0]["mode"] == state["mode"]
    assert sorted(fake.batches.created[0]["keys"]) == sorted(job.keys())
    assert not any(":generateContent" in r["path"] for r in fake.requests)
    # "The laptop was closed": a later process finds the job in the project and collects it.
    project = Project.open(demo_project, "alice")
    report = collect(project)
    assert sorted(report.cases_written) == sorted(CASES)
    assert report.jobs == ["batches/job1: finished"]
    run = json.loads((demo_project / "cases/count01_apples/screening.json").read_text())["runs"][-1]
    assert run["batch"] == "batches/job1" and run["results"]["apples"]["response"] == "Yes."
    assert json.loads(job.path.read_text())["collected_at"]
    assert not screen_batch.pending_jobs(project)
    (row,) = summarize(demo_project / "ledger.jsonl", {}).rows
    assert row.calls == 6 and all(
        json.loads(line).get("batch") for line in (demo_project / "ledger.jsonl").open()
    )
    # Everything is in the cache now: a new batch has nothing to send.
    assert submit(Project.open(demo_project, "alice")) is None
    assert KEY not in job.path.read_text()


def test_an_interrupted_poll_leaves_the_job_pending_and_sends_nothing_twice(
    demo_project: Path, fake: FakeGemini
) -> None:
    fake.batches.polls_until_done = 10**6
    project = Project.open(demo_project, "alice")
    assert submit(project) is not None
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    report = collect(project, cancel)
    assert report.cancelled and not report.cases_written
    assert len(screen_batch.pending_jobs(project)) == 1
    assert submit(project) is None  # its requests ride in the pending job: not sent again
    assert len(fake.batches.created) == 1
    fake.batches.polls_until_done = 0
    assert sorted(collect(project).cases_written) == sorted(CASES)


def test_a_partly_failed_job_records_failures_and_an_expired_one_answers_nothing(
    demo_project: Path, fake: FakeGemini
) -> None:
    project = Project.open(demo_project, "alice")
    engine = GeminiAnswerer()
    plan = plan_screening(project, engine, shipped_prompts(), CASES)
    apples = plan.cases[0].probes[0]
    fake.batches.fail_keys = {apples.key}
    submit(project)
    report = collect(project)
    assert report.failures == [
        "case count01_apples probe apples: the batch could not answer this request "
        "(13: internal error)"
    ]
    assert report.statuses["count01_apples"] is ScreenStatus.FAILED
    # The failed request is asked again by the next batch, which expires.
    fake.batches.expire = True
    job = submit(project)
    assert job is not None and fake.batches.created[-1]["keys"] == [apples.key]
    report = collect(project)
    assert report.jobs[0].startswith("batches/job2: expired")
    assert len(report.failures) == 1 and "expired" in report.failures[0]
    assert sorted(report.cases_written) == sorted(CASES)  # the others from the cache
    run = json.loads((demo_project / "cases/count01_apples/screening.json").read_text())["runs"][-1]
    assert "expired" in run["results"]["apples"]["failed"]
    assert run["results"]["apples"].get("correct") is None  # failed, never wrong


def test_cancel_is_a_batch_endpoint_the_client_reaches(demo_project: Path, fake: FakeGemini):
    job = submit(Project.open(demo_project, "alice"))
    assert job is not None
    GeminiBatchClient("gemini-3.5-flash").cancel(job.name, threading.Event())
    assert fake.batches.cancelled == ["batches/job1"]
    report = collect(Project.open(demo_project, "alice"))
    assert report.jobs == ["batches/job1: cancelled"] and len(report.failures) == 6
