"""Screening through the Gemini Batch API, resumable across crashes and restarts.

A job's state lives in the project, ``screening-jobs/<job id>.json``, written before the
first poll: the job's name, the model, the prompt version and every request it carries
(case, probe, question, reference answer, the image hash it was sent with, its cache key).
Whatever happens to this process afterwards (the laptop closed, a crash, Ctrl+C), the next
``screen --batch`` polls the jobs it finds there first, collects their results by key into
the request cache and the cost ledger, and appends each case's run. A job that expired or
failed, and each request it could not answer, are recorded as failed probes with the
reason, never as wrong answers; such a probe is asked again by the next run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.screening import ImageSeen
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.screening.answer_limit import bounded
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import (
    CaseTask,
    ProbeTask,
    ScreenPlan,
    ScreenReport,
    build_run,
    write_case_run,
)
from sabre_desk.engines.answers import Answer, AnswerConfig
from sabre_desk.engines.batches import BatchClient, BatchItem, BatchState
from sabre_desk.engines.gemini_call import CallCancelledError, CallFailedError
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.storage import atomic_write_json, read_json

JOBS_DIR = "screening-jobs"
JOB_FORMAT = "sabre-desk-batch-job"
STAGE = "screen"


@dataclass
class JobFile:
    path: Path
    data: dict[str, Any]

    @property
    def name(self) -> str:
        return str(self.data["name"])

    @property
    def collected(self) -> bool:
        return bool(self.data.get("collected_at"))

    def keys(self) -> set[str]:
        return {p["key"] for c in self.data["cases"].values() for p in c["probes"]}

    def save(self) -> None:
        atomic_write_json(self.path, self.data)


def _jobs_dir(project: Project) -> Path:
    return project.root / JOBS_DIR


def pending_jobs(project: Project) -> list[JobFile]:
    """The batch jobs of this project whose results are not collected yet, oldest first."""
    folder = _jobs_dir(project)
    jobs = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data, _ = read_json(path, "screening")
        except ProjectError:
            continue
        if isinstance(data, dict) and data.get("format") == JOB_FORMAT:
            job = JobFile(path, data)
            if not job.collected:
                jobs.append(job)
    return jobs


def _task_json(task: CaseTask) -> dict[str, Any]:
    return {
        "subset": task.subset,
        "images": {role: seen.model_dump(mode="json") for role, (_, seen) in task.images.items()},
        "probes": [
            {
                "probe_id": p.probe_id,
                "image_role": p.image_role,
                "eval_type": p.eval_type,
                "question": p.question,
                "answer": p.answer,
                "prompt": p.prompt,
                "config": p.config.to_json(),
                "key": p.key,
            }
            for p in task.probes
        ],
    }


def _task_from_json(project: Project, case_id: str, data: dict[str, Any]) -> CaseTask:
    folder = project.cases_dir / case_id
    images = {
        role: (folder / seen["file"], ImageSeen.model_validate(seen))
        for role, seen in data["images"].items()
    }
    probes = []
    for p in data["probes"]:
        c = p["config"]
        config = AnswerConfig(c["temperature"], c["max_output_tokens"], c.get("thinking"))
        probes.append(
            ProbeTask(
                case_id,
                p["probe_id"],
                p["image_role"],
                p["eval_type"],
                p["question"],
                p["answer"],
                p["prompt"],
                config,
                p["key"],
            )
        )
    return CaseTask(case_id, folder, data["subset"], images, probes)


def submit(
    project: Project,
    plan: ScreenPlan,
    client: BatchClient,
    cache: RequestCache | None,
    cancel: threading.Event,
) -> JobFile | None:
    """Send the plan's requests that are neither cached nor already in a pending job as one
    batch job, and save its state; None when there is nothing to send."""
    waiting = set().union(*(j.keys() for j in pending_jobs(project)))
    cases: dict[str, CaseTask] = {}
    items: list[BatchItem] = []
    for task in plan.cases:
        fresh = [p for p in task.probes if p.key not in waiting]
        fresh = [p for p in fresh if cache is None or cache.get(p.key) is None]
        if not fresh and all(p.key not in waiting for p in task.probes):
            cases[task.case_id] = task  # everything cached: collected with this job
            continue
        if not fresh:
            continue  # its requests ride in an earlier job
        cases[task.case_id] = task
        items += [BatchItem(p.key, task.image_request(p)) for p in fresh]
    if not items:
        return None
    display = f"sabre-desk {project.name} {utc_now()}"
    name, mode = client.submit(items, display, cancel)
    folder = _jobs_dir(project)
    folder.mkdir(exist_ok=True)
    job = JobFile(
        folder / f"{name.rsplit('/', 1)[-1]}.json",
        {
            "format": JOB_FORMAT,
            "name": name,
            "engine": plan.engine,
            "model": plan.model,
            "prompt_version": plan.prompt_version,
            "mode": mode,
            "created_at": utc_now(),
            "state": "JOB_STATE_PENDING",
            "requests": len(items),
            "cases": {case_id: _task_json(task) for case_id, task in cases.items()},
        },
    )
    job.save()
    return job


@dataclass
class BatchReport(ScreenReport):
    jobs: list[str] = field(default_factory=list)  # "<name>: <state in words>"


Notify = Callable[[str], None]


def wait_and_collect(
    project: Project,
    client: BatchClient,
    cache: RequestCache | None,
    ledger: Ledger | None,
    notify: Notify,
    cancel: threading.Event,
    interval_s: float = 30.0,
) -> BatchReport:
    """Poll every pending job until it is done (or *cancel*), then collect it."""
    report = BatchReport()
    for job in pending_jobs(project):
        if job.data.get("engine", "gemini") != client.kind:
            continue  # another provider's job: collected by a run with that provider
        try:
            state = _poll_until_done(job, client, notify, cancel, interval_s)
        except CallCancelledError:
            state = None
        except CallFailedError as exc:
            report.errors.append(f"{job.name}: cannot ask for its state ({exc.reason}); kept")
            continue
        if state is None:
            report.cancelled = True
            report.jobs.append(f"{job.name}: still {job.data.get('state')}; collected later")
            break
        collect(project, job, state, cache, ledger, report)
        report.jobs.append(f"{job.name}: {state.words}")
    return report


def _poll_until_done(
    job: JobFile,
    client: BatchClient,
    notify: Notify,
    cancel: threading.Event,
    interval_s: float,
) -> BatchState | None:
    while not cancel.is_set():
        state = client.poll(job.name, cancel)
        if state.state != job.data.get("state"):
            job.data["state"] = state.state
            job.save()
        notify(f"batch {job.name}: {state.words} ({job.data.get('requests')} requests)")
        if state.done:
            return state
        if cancel.wait(interval_s):
            break
    return None


def collect(
    project: Project,
    job: JobFile,
    state: BatchState,
    cache: RequestCache | None,
    ledger: Ledger | None,
    report: ScreenReport,
) -> None:
    """Put a finished job's answers into the cache and the ledger, and write every case's
    run (probes the job could not answer are failed, with the reason)."""
    for key, answer in state.answers.items():
        if cache is not None:
            cache.put(key, answer, job.data["model"])
    owner = {
        p["key"]: (cid, p["probe_id"]) for cid, c in job.data["cases"].items() for p in c["probes"]
    }
    if ledger is not None:
        for key, answer in state.answers.items():
            case_id, probe_id = owner.get(key, (None, None))
            if answer.usage is not None or answer.text is not None:
                ledger.add(
                    STAGE,
                    job.data["engine"],
                    job.data["model"],
                    answer.usage,
                    case_id,
                    probe_id,
                    batch=True,
                )
    missing = f"the batch job ended without answering this request: {state.words}"
    for case_id, data in job.data["cases"].items():
        task = _task_from_json(project, case_id, data)
        answers: dict[str, tuple[Answer, bool]] = {}
        for p in task.probes:
            found = state.answers.get(p.key)
            cached = False
            if found is None and cache is not None:
                found = cache.get(p.key)  # answered earlier, or by another job
                cached = found is not None
            answer = bounded(found) if found is not None else Answer(None, failure=missing)
            if answer.failed:
                report.failures.append(f"case {case_id} probe {p.probe_id}: {answer.failure}")
            answers[p.probe_id] = (answer, cached)
        run = build_run(
            task,
            answers,
            job.data["engine"],
            job.data["model"],
            job.data["prompt_version"],
            project.reviewer,
        )
        run.batch = job.name
        write_case_run(project, task, run, report)
    job.data["collected_at"] = utc_now()
    job.data["answered"] = sum(1 for a in state.answers.values() if not a.failed)
    job.save()
