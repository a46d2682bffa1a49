"""Screening cases with the Filtering VLM: plan which probes to ask, ask them with a bounded
number of requests in flight, and append each case's run to its screening.json as soon as
its last probe is answered.

Made for a worker thread: ``run_screening`` never touches the project's index (the caller
applies each case's new status on its own thread, from the progress events), takes a cancel
event that stops it within one poll of every socket, and reports progress through a
callback called from worker threads (a GUI forwards it with a queued signal).

Nothing is lost to a kill: every answer is in the request cache the moment it arrives, and
every ledger line is appended at once, so a rerun sends only what never came back.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.gate import CurrentProbe, ScreenStatus, judge
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.question_edits import effective
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.scoring import is_correct
from sabre_desk.core.case.screening import ImageSeen, ProbeResult, ScreeningRun, append_run
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.screening.answer_limit import bounded
from sabre_desk.core.screening.prompts import PromptSet
from sabre_desk.core.screening.request_cache import RequestCache, request_key
from sabre_desk.engines.answers import (
    Answer,
    AnswerCancelledError,
    AnswerConfig,
    AnswerEngine,
    AnswerRequest,
)
from sabre_desk.ground.errors import CaseLoadError, ProjectError
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.ground.reading import read_limited

MIME_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
}
MAX_IMAGE_BYTES = 64 * 1024 * 1024
STAGE = "screen"


@dataclass(frozen=True)
class ProbeTask:
    case_id: str
    probe_id: str
    image_role: str
    eval_type: str
    question: str  # as asked (the reviewer's edit applied)
    answer: str  # the reference it is graded against
    prompt: str  # the whole text sent with the image
    config: AnswerConfig
    key: str  # the request cache key


@dataclass
class CaseTask:
    case_id: str
    folder: Path
    subset: str
    images: dict[str, tuple[Path, ImageSeen]]
    probes: list[ProbeTask]

    def image_request(self, task: ProbeTask) -> AnswerRequest:
        path, _ = self.images[task.image_role]
        data = read_limited(path, MAX_IMAGE_BYTES, ProjectError)
        mime = MIME_TYPES.get(path.suffix.lower(), "image/png")
        label = f"case {task.case_id} probe {task.probe_id}"
        return AnswerRequest(data, mime, task.prompt, task.config, label)


@dataclass
class ScreenPlan:
    engine: str
    model: str
    prompt_version: str
    cases: list[CaseTask] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "case: why it is not screened"

    @property
    def requests(self) -> int:
        return sum(len(c.probes) for c in self.cases)


def needs_screening(project: Project, case: Case, model: str, prompt_version: str) -> bool:
    """Whether a case has no current run of *model* with *prompt_version* (never screened
    by it, stale, or failed)."""
    screening = project.screening_of(case)
    run = screening.run
    if screening.status in (ScreenStatus.NOT_SCREENED, ScreenStatus.STALE, ScreenStatus.FAILED):
        return True
    return run is None or run.model != model or run.prompt_version != prompt_version


def plan_case(case: Case, engine: AnswerEngine, prompts: PromptSet) -> CaseTask:
    """Every probe of *case* as a request; the images are hashed (remembered by stat)."""
    images: dict[str, tuple[Path, ImageSeen]] = {}
    for role in case.spec.image_roles:
        path = case.images.get(role)
        if path is None:
            problem = case.image_problems.get(role)
            raise CaseLoadError(
                problem.reason if problem else f"no {role.value} image", case.folder, case.case_id
            )
        st = path.stat()
        seen = ImageSeen(
            file=path.name, sha256=file_sha256(path), size=st.st_size, mtime_ns=st.st_mtime_ns
        )
        images[role.value] = (path, seen)
    probes = []
    for q in case.spec.questions:
        question, answer = effective(q, case.review.question_edits.get(q.probe_id))
        prompt = prompts.build(q.eval_type, question, q.options)
        config = engine.config_for(prompts.output_tokens(q.eval_type))
        sha = images[q.image_role.value][1].sha256
        key = request_key(engine.kind, engine.model, prompts.version, prompt, sha, config)
        probes.append(
            ProbeTask(
                case.case_id,
                q.probe_id,
                q.image_role.value,
                q.eval_type,
                question,
                answer,
                prompt,
                config,
                key,
            )
        )
    return CaseTask(case.case_id, case.folder, case.spec.pressure_test_type, images, probes)


def plan_screening(
    project: Project,
    engine: AnswerEngine,
    prompts: PromptSet,
    case_ids: Iterable[str] | None = None,
    stale_only: bool = False,
    cancel: threading.Event | None = None,
) -> ScreenPlan:
    """The cases to screen: *case_ids* as named (all their probes, again), else the stale
    ones (*stale_only*), else every valid case without a current run of this model."""
    plan = ScreenPlan(engine.kind, engine.model, prompts.version)
    named = list(case_ids) if case_ids is not None else None
    ids = named if named is not None else [e.case_id for e in project.entries]
    for case_id in ids:
        if cancel is not None and cancel.is_set():
            break
        entry = project.entry(case_id)
        if entry is not None and entry.problem:
            plan.skipped.append(f"{case_id}: invalid ({entry.problem})")
            continue
        try:
            case = project.load_case(case_id)
            if named is None:
                status = project.screening_of(case).status
                if stale_only and status is not ScreenStatus.STALE:
                    continue
                if not stale_only and not needs_screening(
                    project, case, engine.model, prompts.version
                ):
                    continue
            plan.cases.append(plan_case(case, engine, prompts))
        except (ProjectError, OSError) as exc:
            reason = exc.reason if isinstance(exc, ProjectError) else str(exc)
            plan.skipped.append(f"{case_id}: {reason}")
    return plan


@dataclass(frozen=True)
class ScreenProgress:
    """One step of a run, for a progress bar (called from worker threads)."""

    done: int  # probes answered, failed or taken from the cache
    total: int
    cases_done: int
    cases_total: int
    in_flight: int
    case_id: str
    probe_id: str | None = None
    failure: str | None = None  # this probe's call failed: why
    #: set when *case_id*'s run was written: its new gate status
    case_status: ScreenStatus | None = None


Progress = Callable[[ScreenProgress], None]


@dataclass
class ScreenReport:
    cases_written: list[str] = field(default_factory=list)
    statuses: dict[str, ScreenStatus] = field(default_factory=dict)
    sent: int = 0
    cached: int = 0
    failures: list[str] = field(default_factory=list)  # "case probe: reason"
    errors: list[str] = field(default_factory=list)  # runs that could not be written
    cancelled: bool = False
    max_in_flight: int = 0
    #: planned cases without a new run (the run stopped before all their probes came back)
    not_done: list[str] = field(default_factory=list)


def build_run(
    task: CaseTask,
    answers: dict[str, tuple[Answer, bool]],
    engine: str,
    model: str,
    prompt_version: str,
    reviewer: str | None,
) -> ScreeningRun:
    """The run of one case from its probes' answers ((answer, from cache) by probe_id)."""
    results: dict[str, ProbeResult] = {}
    config = None
    for p in task.probes:
        answer, cached = answers[p.probe_id]
        answer = bounded(answer)  # a batch job's answers come here unchecked
        config = p.config.to_json()
        result = ProbeResult(
            question=p.question,
            answer=p.answer,
            eval_type=p.eval_type,
            usage=answer.usage.to_json() if answer.usage else None,
            cached=cached or None,
        )
        if answer.text is None:
            result.failed = answer.failure or "no answer"
        else:
            result.response = answer.text
            result.correct, result.parsed = is_correct(p.eval_type, answer.text, p.answer)
        results[p.probe_id] = result
    return ScreeningRun(
        model=model,
        at=utc_now(),
        results=results,
        engine=engine,
        prompt_version=prompt_version,
        config=config,
        images={role: seen for role, (_, seen) in task.images.items()},
        reviewer=reviewer,
    )


def write_case_run(
    project: Project, task: CaseTask, run: ScreeningRun, report: ScreenReport
) -> ScreenStatus | None:
    """Append the run (with the gate's outcome on it), log it in the case's history, and
    return the case's status now (stale already, if its image changed meanwhile)."""
    probes = [
        CurrentProbe(p.probe_id, p.image_role, p.question, p.answer, p.eval_type)
        for p in task.probes
    ]
    results = run.model_dump(mode="json")["results"]
    run.gate = judge(results, probes, task.subset, project.gate, {}).status.value
    try:
        append_run(task.folder, run, task.case_id)
        case = project.load_case(task.case_id)
        status = project.screening_of(case).status
        if not project.read_only:
            failed = sum(1 for r in run.results.values() if r.failed)
            project.record(
                case, "screening_run", {"model": run.model, "gate": run.gate, "failed": failed}
            )
    except ProjectError as exc:
        report.errors.append(exc.message)
        return None
    report.cases_written.append(task.case_id)
    report.statuses[task.case_id] = status
    return status


def run_screening(
    project: Project,
    plan: ScreenPlan,
    engine: AnswerEngine,
    concurrency: int = 8,
    cache: RequestCache | None = None,
    ledger: Ledger | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
    use_cache: bool = True,
    guard: RunGuard | None = None,
) -> ScreenReport:
    """Ask every planned probe (cache first), at most *concurrency* calls at once; *guard*
    is told how each call ended and stops the run at its deadline or give-up rule."""
    cancel = cancel or threading.Event()
    report = ScreenReport()
    total = plan.requests
    lock = threading.Lock()
    state = {"done": 0, "cases": 0, "in_flight": 0}
    answers: dict[str, dict[str, tuple[Answer, bool]]] = {c.case_id: {} for c in plan.cases}

    def tell(
        case_id: str, probe_id: str | None, failure: str | None, status: ScreenStatus | None
    ) -> None:
        if progress is None:
            return
        with lock:
            event = ScreenProgress(
                state["done"],
                total,
                state["cases"],
                len(plan.cases),
                state["in_flight"],
                case_id,
                probe_id,
                failure,
                status,
            )
        progress(event)

    def finish_probe(task: CaseTask, probe: ProbeTask, answer: Answer, cached: bool) -> None:
        with lock:
            answers[task.case_id][probe.probe_id] = (answer, cached)
            state["done"] += 1
            complete = len(answers[task.case_id]) == len(task.probes)
            if answer.failed:
                report.failures.append(
                    f"case {task.case_id} probe {probe.probe_id}: {answer.failure}"
                )
        status = None
        if complete:
            run = build_run(
                task,
                answers.pop(task.case_id),
                plan.engine,
                plan.model,
                plan.prompt_version,
                project.reviewer,
            )
            status = write_case_run(project, task, run, report)
            with lock:
                state["cases"] += 1
        tell(task.case_id, probe.probe_id, answer.failure, status)

    def ask(task: CaseTask, probe: ProbeTask) -> None:
        with lock:
            state["in_flight"] += 1
            report.max_in_flight = max(report.max_in_flight, state["in_flight"])
            report.sent += 1
        try:
            answer = bounded(engine.answer(task.image_request(probe), cancel))
        except ProjectError as exc:
            answer = Answer(None, failure=f"the image cannot be read ({exc.reason})")
        finally:
            with lock:
                state["in_flight"] -= 1
        if guard is not None:
            guard.outcome(answer.failure)
        if cache is not None:
            cache.put(probe.key, answer, engine.model)
        if ledger is not None and (answer.usage is not None or answer.text is not None):
            ledger.add(STAGE, engine.kind, engine.model, answer.usage, task.case_id, probe.probe_id)
        finish_probe(task, probe, answer, False)

    def calls() -> Iterator[Callable[[], None]]:
        for task in plan.cases:
            for probe in task.probes:
                hit = cache.get(probe.key) if cache is not None and use_cache else None
                if hit is not None and bounded(hit).failed:
                    hit = None  # an entry an older version kept whole: asked again
                if hit is None:
                    if guard is not None and not guard.check():
                        return
                    yield functools.partial(ask, task, probe)
                    continue
                with lock:
                    report.cached += 1
                finish_probe(task, probe, hit, True)

    run_bounded(calls(), concurrency, cancel)
    report.cancelled = cancel.is_set()
    report.not_done = [c.case_id for c in plan.cases if c.case_id in answers]
    return report


def run_bounded(
    calls: Iterable[Callable[[], None]], concurrency: int, cancel: threading.Event
) -> None:
    """Run *calls* on a pool of *concurrency* threads, taking the next one from the iterable
    only when fewer than twice that many wait (a project of 100,000 cases is never queued
    whole); stops taking new ones once *cancel* is set, and waits for those under way."""
    pending: set[Future[None]] = set()
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="ask") as pool:
        try:
            for call in calls:
                if cancel.is_set():
                    break
                while len(pending) >= 2 * max(1, concurrency):
                    _, pending = _wait_some(pending)
                pending.add(pool.submit(call))
        finally:
            while pending:
                _, pending = _wait_some(pending)


def _wait_some(pending: set[Future[None]]) -> tuple[set[Future[None]], set[Future[None]]]:
    done, rest = wait(pending, return_when=FIRST_COMPLETED)
    for future in done:
        with contextlib.suppress(AnswerCancelledError):
            future.result()
    return done, rest
