"""Screening with the real google-genai client against the fake Gemini on 127.0.0.1: the
gate, the request cache, the ledger, failures recorded as failures, and the whole loop of
screening → gate → accepted repair → stale → re-screen."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import (
    FakeGemini,
    Reply,
    blocked_reply,
    error_reply,
    finish_reply,
    hang_reply,
    retry_reply,
    serving,
)
from fakes.oracle import Oracle

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import QuestionEdit
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.jobs.ledger import Ledger, ModelPrice, summarize
from sabre_desk.core.repair import repairs
from sabre_desk.core.screening.prompts import shipped_prompts
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import (
    ScreenProgress,
    ScreenReport,
    plan_screening,
    run_screening,
)
from sabre_desk.engines.gemini_qa import GeminiAnswerer
from sabre_desk.engines.opencv import FsrEngine
from sabre_desk.engines.pipeline import RepairOrder

KEY = "screen-key-" + "z" * 26
CTX = "ctx03_wrench_banana"
FRAGMENT = (0.345, 0.595, 0.41, 0.69)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        yield server


@pytest.fixture
def oracle(fake: FakeGemini) -> Oracle:
    mind = Oracle()
    fake.answer = mind.rule
    return mind


def answer_ctx_right(oracle: Oracle, folder: Path) -> None:
    """The fake answers the four Context probes of CTX correctly (yes / no / no / yes)."""
    base, edited = sha(folder / "base.png"), sha(folder / "edited.png")
    oracle.says[(base, "Is a wrench visible?")] = "Yes."
    oracle.says[(base, "Is a banana visible?")] = "No."
    oracle.says[(edited, "Is a wrench visible?")] = "No, there is none."
    oracle.says[(edited, "Is a banana visible?")] = "yes"


def screen(
    project: Project,
    cases: list[str] | None = None,
    stale: bool = False,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    events: list[ScreenProgress] | None = None,
) -> ScreenReport:
    engine = GeminiAnswerer(initial_delay_s=0.05, timeout_s=5, deadline_s=10)
    plan = plan_screening(project, engine, shipped_prompts(), cases, stale)
    return run_screening(
        project,
        plan,
        engine,
        concurrency=4,
        cache=RequestCache.of_project(project.root),
        ledger=Ledger.of_project(project.root),
        progress=events.append if events is not None else None,
        cancel=cancel,
        use_cache=use_cache,
    )


def statuses(root: Path) -> dict[str, ScreenStatus | None]:
    return {e.case_id: e.screening for e in Project.open(root, "alice").entries}


def test_screening_repair_stale_and_rescreen(demo_project: Path, fake: FakeGemini, oracle: Oracle):
    """The whole loop on one case, with the real client and a real (OpenCV) repair."""
    project = Project.open(demo_project, "alice")
    folder = project.cases_dir / CTX
    answer_ctx_right(oracle, folder)
    report = screen(project, [CTX])
    assert report.sent == 4 and report.statuses == {CTX: ScreenStatus.SOLVED}
    run = json.loads((folder / "screening.json").read_text())["runs"][-1]
    assert run["model"] == "gemini-3.5-flash" and run["prompt_version"] == "v1"
    assert run["images"]["edited"]["sha256"] == sha(folder / "edited.png")
    probe = run["results"]["edited_source"]
    assert probe["response"] == "No, there is none." and probe["parsed"] == "no"
    assert probe["correct"] is True and probe["usage"]["image"] == 258
    assert run["gate"] == "solved"
    assert statuses(demo_project)[CTX] is ScreenStatus.SOLVED  # the index agrees

    # The reviewer repairs the Edited image: the filter's answers are about the old one.
    case = project.load_case(CTX)
    record, _ = repairs.compute_preview(
        case, ImageRole.EDITED, RepairOrder(FRAGMENT, "remove", "remove it"), FsrEngine()
    )
    repairs.add_preview(project, case, record)
    repairs.accept(project, case, record.id)
    case = project.load_case(CTX)
    view = project.screening_of(case)
    assert view.status is ScreenStatus.STALE
    assert view.verdict.outcome is ScreenStatus.SOLVED  # what it was, on the old image
    edited = view.verdict.probes["edited_target"]
    assert edited.stale and "previous edited image" in edited.stale
    assert view.verdict.probes["base_source"].stale is None  # the Base image did not change
    assert statuses(demo_project)[CTX] is ScreenStatus.STALE

    # Re-screen the stale cases: the Base probes come from the cache; the new Edited image
    # fools the filter (it says "Yes." to everything it was not told about).
    before = len(fake.requests)
    report = screen(Project.open(demo_project, "alice"), stale=True)
    assert report.cached == 2 and report.sent == 2
    assert len(fake.requests) - before == 2
    assert report.statuses == {CTX: ScreenStatus.KEPT}
    runs = json.loads((folder / "screening.json").read_text())["runs"]
    assert [r["gate"] for r in runs[-2:]] == ["solved", "kept"]  # appended, never rewritten
    assert runs[-1]["images"]["edited"]["sha256"] == sha(folder / "edited.png")
    assert statuses(demo_project)[CTX] is ScreenStatus.KEPT

    # Reverting brings the old image back: the run before is about it again (hash equal).
    case = project.load_case(CTX)
    repairs.revert(project, case, record.id)
    assert project.screening_of(project.load_case(CTX)).status is ScreenStatus.STALE
    report = screen(Project.open(demo_project, "alice"), stale=True)
    assert report.sent == 0 and report.cached == 4  # every answer is known already
    assert report.statuses == {CTX: ScreenStatus.SOLVED}


def test_a_question_edit_makes_the_result_stale_and_an_answer_edit_regrades_it(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    project = Project.open(demo_project, "alice")
    answer_ctx_right(oracle, project.cases_dir / CTX)
    screen(project, [CTX])
    case = project.load_case(CTX)
    case.review.question_edits["base_target"] = QuestionEdit(answer="yes")
    project.save_review(case)
    view = project.screening_of(case)
    assert view.status is ScreenStatus.KEPT  # graded again against the new answer, no call
    assert view.verdict.probes["base_target"].regraded
    case.review.question_edits["base_target"] = QuestionEdit(prompt="Is a yellow banana visible?")
    project.save_review(case)
    view = project.screening_of(case)
    assert view.status is ScreenStatus.STALE
    assert "edited after the run" in (view.verdict.probes["base_target"].stale or "")
    assert project.entry(CTX).screening is ScreenStatus.STALE  # type: ignore[union-attr]
    assert statuses(demo_project)[CTX] is ScreenStatus.STALE


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (error_reply(500, "boom"), "500"),
        (finish_reply("SAFETY"), "safety filter"),
        (blocked_reply("PROHIBITED_CONTENT"), "as prohibited content (PROHIBITED_CONTENT)"),
        (
            Reply(body={"candidates": [{"content": {"parts": []}, "finishReason": "STOP"}]}),
            "no text",
        ),
        (finish_reply("MAX_TOKENS"), "output-token limit"),
    ],
)
def test_a_call_that_gives_no_answer_is_failed_never_wrong(
    demo_project: Path, fake: FakeGemini, oracle: Oracle, reply: Reply, reason: str
) -> None:
    project = Project.open(demo_project, "alice")
    answer_ctx_right(oracle, project.cases_dir / CTX)
    oracle.says[(None, "Is a banana visible?")] = reply  # both banana probes fail
    for k in [k for k in oracle.says if k[0] and k[1] == "Is a banana visible?"]:
        del oracle.says[k]
    report = screen(project, [CTX])
    assert len(report.failures) == 2 and all(reason in f for f in report.failures)
    assert all(f"case {CTX} probe " in f for f in report.failures)
    assert KEY not in json.dumps(report.failures)
    run = json.loads((project.cases_dir / CTX / "screening.json").read_text())["runs"][-1]
    failed = run["results"]["base_target"]
    assert failed["correct"] is None if "correct" in failed else True
    assert reason in failed["failed"] and failed.get("response", "") == ""
    assert report.statuses[CTX] is ScreenStatus.FAILED  # the two answered were right
    # Failures are not cached: the next run asks them again, and only them.
    oracle.says[(None, "Is a banana visible?")] = "No"
    before = len(fake.requests)
    report = screen(Project.open(demo_project, "alice"), [CTX])
    assert len(fake.requests) - before == 2 and report.cached == 2


def test_an_unparseable_reply_is_a_wrong_answer_not_a_failure(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    project = Project.open(demo_project, "alice")
    oracle.default = "I would rather describe the lighting."
    report = screen(project, [CTX])
    assert not report.failures and report.statuses[CTX] is ScreenStatus.KEPT
    run = json.loads((project.cases_dir / CTX / "screening.json").read_text())["runs"][-1]
    assert run["results"]["base_source"].get("parsed") is None  # unparseable
    assert run["results"]["base_source"]["correct"] is False


def test_429_with_a_retry_delay_is_honoured_then_succeeds(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    fake.script = [retry_reply(0.6)]
    project = Project.open(demo_project, "alice")
    engine = GeminiAnswerer(initial_delay_s=0.01, timeout_s=5, deadline_s=10)
    plan = plan_screening(project, engine, shipped_prompts(), ["count01_apples"])
    import time

    began = time.monotonic()
    report = run_screening(project, plan, engine, concurrency=1)
    assert not report.failures and report.sent == 1
    assert len(fake.requests) == 2 and time.monotonic() - began >= 0.6


def test_a_timeout_is_a_failure_naming_the_limit(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    fake.script = [hang_reply()]
    project = Project.open(demo_project, "alice")
    engine = GeminiAnswerer(initial_delay_s=0.01, timeout_s=0.5, deadline_s=0.5, attempts=1)
    plan = plan_screening(project, engine, shipped_prompts(), ["count01_apples"])
    report = run_screening(project, plan, engine, concurrency=1)
    assert len(report.failures) == 1 and "within 0.5 s" in report.failures[0]
    assert "case count01_apples probe apples" in report.failures[0]


def test_the_whole_demo_once_then_nothing_is_sent_twice(
    demo_project: Path, fake: FakeGemini, oracle: Oracle, _isolated_settings: Path
) -> None:
    project = Project.open(demo_project, "alice")
    events: list[ScreenProgress] = []
    report = screen(project, events=events)
    assert len(report.cases_written) == 13 and report.sent == len(fake.requests) == 31
    assert events[-1].done == events[-1].total == 31
    assert {e.case_id for e in events if e.case_status is not None} == set(report.statuses)
    assert report.max_in_flight <= 4
    again = screen(Project.open(demo_project, "alice"))
    assert again.sent == 0 and not again.cases_written  # every case has a current run
    forced = screen(Project.open(demo_project, "alice"), ["count01_apples"])
    assert forced.sent == 0 and forced.cached == 1  # asked again: from the cache
    bypass = screen(Project.open(demo_project, "alice"), ["count01_apples"], use_cache=False)
    assert bypass.sent == 1
    summary = summarize(demo_project / "ledger.jsonl", {})
    (row,) = summary.rows
    assert (row.stage, row.calls, row.input, row.image) == ("screen", 32, 32 * 270, 32 * 258)
    assert row.usd is None and summary.total_usd is None  # no price: unknown, not zero
    priced = summarize(demo_project / "ledger.jsonl", {row.model: ModelPrice(input=1, output=10)})
    assert priced.total_usd == pytest.approx(32 * (270 * 1 + 7 * 10) / 1e6)
    text = (demo_project / "ledger.jsonl").read_text()
    assert KEY not in text and all(json.loads(line) for line in text.splitlines())


def test_cancel_stops_the_run_and_writes_no_half_case(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    fake.latency_s = 0.5
    project = Project.open(demo_project, "alice")
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    report = screen(project, cancel=cancel)
    timer.cancel()
    assert report.cancelled and not report.cases_written
    before = {p.parent.name: p.read_text() for p in demo_project.glob("cases/*/screening.json")}
    assert all("gemini-3.5-flash" not in t for t in before.values())


def test_old_screening_files_still_read(demo_project: Path) -> None:
    """The demo's runs were written before image hashes existed: still shown, still gated,
    and an accepted repair after them makes them stale (by the repair's time)."""
    project = Project.open(demo_project, "alice")
    case = project.load_case(CTX)
    view = project.screening_of(case)
    assert view.run is not None and view.run.note and "DEMO DATA" in view.run.note
    assert view.status in (ScreenStatus.KEPT, ScreenStatus.SOLVED)
    record, _ = repairs.compute_preview(
        case, ImageRole.EDITED, RepairOrder(FRAGMENT, "remove", "x"), FsrEngine()
    )
    repairs.add_preview(project, case, record)
    repairs.accept(project, case, record.id)
    assert project.screening_of(project.load_case(CTX)).status is ScreenStatus.STALE
    assert statuses(demo_project)[CTX] is ScreenStatus.STALE


def test_a_changed_gate_rule_in_the_project_applies(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    project = Project.open(demo_project, "alice")
    folder = project.cases_dir / CTX
    answer_ctx_right(oracle, folder)
    oracle.says[(sha(folder / "base.png"), "Is a banana visible?")] = "Yes"  # one Base miss
    assert screen(project, [CTX]).statuses[CTX] is ScreenStatus.KEPT  # All4: kept
    manifest = json.loads((demo_project / "sabre-project.json").read_text())
    manifest["screening"] = {"gate": {"paired": "edit2"}}
    (demo_project / "sabre-project.json").write_text(json.dumps(manifest))
    assert statuses(demo_project)[CTX] is ScreenStatus.SOLVED  # both Edited probes right


def test_a_screening_process_relays_progress_and_can_be_cancelled(
    demo_project: Path, fake: FakeGemini
) -> None:
    from sabre_desk.core.screening.screen_process import ScreenOrder, ScreenProcess

    env = {"GOOGLE_GEMINI_BASE_URL": fake.url, "GEMINI_API_KEY": KEY}
    events: list[ScreenProgress] = []
    done: list[tuple[ScreenReport | None, str | None]] = []
    order = ScreenOrder(demo_project, "alice", case_ids=[CTX], env=env)
    job = ScreenProcess(order)
    job.start(events.append, lambda report, error: done.append((report, error)))
    assert job.wait(60)
    ((report, error),) = done
    assert error is None and report is not None and report.sent == 4
    assert events[-1].case_id == CTX and events[-1].case_status is not None
    assert Project.open(demo_project, "alice").entry(CTX).screening is events[-1].case_status  # type: ignore[union-attr]

    fake.latency_s = 2.0
    done.clear()
    job = ScreenProcess(ScreenOrder(demo_project, "alice", use_cache=False, env=env))
    job.start(events.append, lambda report, error: done.append((report, error)))
    while not fake.in_flight:
        threading.Event().wait(0.05)
    job.cancel()
    assert job.wait(30)
    ((report, error),) = done
    assert report is not None and report.cancelled and not report.cases_written


def test_a_gemini_repair_lands_in_the_ledger(demo_project: Path, fake: FakeGemini) -> None:
    from fakes.gemini_server import USAGE, image_reply

    from sabre_desk.engines.gemini import GeminiEngine

    reply = image_reply(64, 64)
    assert reply.body is not None
    reply.body["usageMetadata"] = USAGE
    fake.script = [reply]
    project = Project.open(demo_project, "alice")
    case = project.load_case(CTX)
    engine = GeminiEngine(model="gemini-3.1-flash-image", initial_delay_s=0.01)
    repairs.compute_preview(case, ImageRole.EDITED, RepairOrder(FRAGMENT, "remove", "x"), engine)
    (line,) = [json.loads(x) for x in (demo_project / "ledger.jsonl").read_text().splitlines()]
    assert line["stage"] == "repair" and line["model"] == "gemini-3.1-flash-image"
    assert line["case_id"] == CTX and line["usage"]["input"] == 270


def test_touched_images_are_not_stale_and_the_brief_is_derived(
    demo_project: Path, fake: FakeGemini, oracle: Oracle
) -> None:
    import os

    project = Project.open(demo_project, "alice")
    folder = project.cases_dir / CTX
    answer_ctx_right(oracle, folder)
    screen(project, [CTX])
    os.utime(folder / "edited.png", ns=(10**9, 10**9))  # a copy that did not keep times
    assert statuses(demo_project)[CTX] is ScreenStatus.SOLVED  # same bytes: not stale
    (folder / "screening.brief.json").unlink()  # derived: the run is read instead
    assert statuses(demo_project)[CTX] is ScreenStatus.SOLVED
    assert not (folder / "screening.brief.json").exists()  # opening writes nothing
