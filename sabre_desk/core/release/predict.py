"""Evaluating a model on an exported release: ask every question of ``benchmark.jsonl`` with
the prompts the release ships (``prompts/``) and write the predictions file ``score`` reads
(``{"question_id": …, "response": …}`` a line).

Resumable: each answer is appended (flushed and fsynced) the moment it arrives, so a killed
run loses nothing, and a rerun asks only the questions without a response yet. A call that
fails is written as ``"response": null`` with its ``failure`` (``score`` counts it as
missing) and is asked again by the next run.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.release.release import BENCHMARK, MAX_ROW
from sabre_desk.core.release.release_read import benchmark_row, path_problem, release_file
from sabre_desk.core.screening.answer_limit import bounded
from sabre_desk.core.screening.prompts import (
    RELEASE_PROMPTS,
    PromptSet,
    load_prompts,
    shipped_prompts,
)
from sabre_desk.core.screening.screen_run import (
    MAX_IMAGE_BYTES,
    MIME_TYPES,
    asked,
    run_bounded,
)
from sabre_desk.engines.answers import Answer, AnswerEngine, AnswerRequest
from sabre_desk.engines.batches import BatchClient, BatchItem, BatchState
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.reading import LIMITS, iter_lines, loads, read_limited
from sabre_desk.ground.storage import (
    append_history,
    atomic_write_bytes,
    check_size,
    read_json,
)

STAGE = "predict"


@dataclass(frozen=True)
class Question:
    question_id: str
    image: Path
    prompt: str
    max_output_tokens: int


@dataclass
class PredictReport:
    asked: int = 0
    already: int = 0
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False
    not_done: int = 0  # questions left without an answer or a failure (the run stopped)


def release_prompts(release: Path, report: PredictReport) -> PromptSet:
    folder = release_file(release, RELEASE_PROMPTS)
    if folder.is_dir():
        return load_prompts(folder)
    report.warnings.append(
        f"{release} ships no {RELEASE_PROMPTS}/ (an older release); asking with sabre-desk's own"
    )
    return shipped_prompts()


def release_questions(release: Path, prompts: PromptSet) -> list[Question]:
    out = []
    path = release_file(release, BENCHMARK)
    for number, line in iter_lines(path, MAX_ROW, ProjectError):
        if line is None:
            raise ProjectError(f"line {number} is too long", path)
        try:
            row = benchmark_row(loads(line))
        except ValueError as exc:
            raise ProjectError(f"line {number} is not a benchmark row ({exc})", path) from exc
        why = path_problem(release, row.image)
        if why is not None:
            raise ProjectError(f"line {number}: its image is refused: {why}", path)
        options = row.options
        listed = [options[k] for k in sorted(options)] if options is not None else None
        prompt = prompts.build(row.eval_type, row.question, listed)
        image = release.joinpath(*row.image.split("/"))
        tokens = prompts.output_tokens(row.eval_type)
        out.append(Question(row.question_id, image, prompt, tokens))
    return out


def answered(out: Path) -> dict[str, dict[str, Any]]:
    """The predictions already in *out* that have a response (kept on a rerun)."""
    done: dict[str, dict[str, Any]] = {}
    if not out.exists():
        return done
    for _, line in iter_lines(out, LIMITS["prediction line"], ProjectError):
        try:
            row = json.loads(line or b"")
        except ValueError:
            continue  # a torn last line of a killed run
        if isinstance(row, dict) and isinstance(row.get("response"), str):
            done[str(row.get("question_id"))] = row
    return done


def _request(question: Question, engine: AnswerEngine) -> AnswerRequest:
    data = read_limited(question.image, MAX_IMAGE_BYTES, ProjectError, follow_links=False)
    mime = MIME_TYPES.get(question.image.suffix.lower(), "image/png")
    config = engine.config_for(question.max_output_tokens)
    return AnswerRequest(data, mime, question.prompt, config, question.question_id)


def _line(question_id: str, answer: Answer, model: str) -> dict[str, Any]:
    """The predictions line of one answer. Its response is the model's answer within the
    length any answer may have (``answer_limit``): a longer reply is a failure whose reason
    gives its length and an excerpt, so every line stays one that ``score`` reads."""
    row: dict[str, Any] = {"question_id": question_id, "response": answer.text, "model": model}
    if answer.failure:
        row["failure"] = answer.failure
    return row


def _append(out: Path, row: dict[str, Any]) -> None:
    """Append one predictions line, never one longer than ``score`` reads."""
    line = json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    check_size(out, line, "prediction line")
    append_history(out, row)


def prepare(release: Path, out: Path, report: PredictReport) -> tuple[list[Question], Path]:
    """The questions still to ask, and *out* rewritten with only its answered lines."""
    prompts = release_prompts(release, report)
    questions = release_questions(release, prompts)
    done = answered(out)
    report.already = len(done)
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in done.values())
    atomic_write_bytes(out, payload.encode("utf-8"))
    return [q for q in questions if q.question_id not in done], out


def predict(
    release: Path,
    out: Path,
    engine: AnswerEngine,
    ledger: Ledger | None,
    concurrency: int = 8,
    progress: Callable[[int, int, str], None] | None = None,
    cancel: threading.Event | None = None,
    guard: RunGuard | None = None,
) -> PredictReport:
    """Ask every question without a response yet; *guard* (the run's deadline and give-up
    rule) is told how each call ended."""
    cancel = cancel or threading.Event()
    report = PredictReport()
    todo, out = prepare(release, out, report)
    lock = threading.Lock()

    def ask(question: Question) -> None:
        try:
            answer = asked(engine, _request(question, engine), cancel, guard)
        except ProjectError as exc:
            answer = Answer(None, failure=f"the image cannot be read ({exc.reason})")
        if guard is not None:
            guard.outcome(answer.failure)
        if ledger is not None and (answer.usage is not None or answer.text is not None):
            ledger.add(STAGE, engine.kind, engine.model, answer.usage, question.question_id)
        with lock:
            _append(out, _line(question.question_id, answer, engine.model))
            report.asked += 1
            if answer.failed:
                report.failures.append(f"{question.question_id}: {answer.failure}")
            done = report.asked
        if progress is not None:
            progress(done, len(todo), question.question_id)

    def calls() -> Iterator[Callable[[], None]]:
        for question in todo:
            if guard is not None and not guard.check():
                return
            yield functools.partial(ask, question)

    run_bounded(calls(), concurrency, cancel)
    report.cancelled = cancel.is_set()
    report.not_done = len(todo) - report.asked
    return report


def predict_batch(
    release: Path,
    out: Path,
    client: BatchClient,
    ledger: Ledger | None,
    notify: Callable[[str], None],
    cancel: threading.Event,
    interval_s: float = 30.0,
) -> PredictReport:
    """The same through the Batch API; the job's name is kept in ``<out>.job.json`` so a
    rerun polls the job it left rather than sending the questions again."""
    report = PredictReport()
    job_path = out.with_name(out.name + ".job.json")
    todo, out = prepare(release, out, report)
    job: dict[str, Any] | None = None
    if job_path.exists():
        data, _ = read_json(job_path, "screening")
        job = data if isinstance(data, dict) and not data.get("collected_at") else None
    if job is None:
        if not todo:
            return report
        engine = client.answerer()
        items = [BatchItem(q.question_id, _request(q, engine)) for q in todo]
        name, mode = client.submit(items, f"sabre-desk predict {release.name}", cancel)
        job = {"name": name, "mode": mode, "model": client.model, "requests": len(items)}
        atomic_write_bytes(job_path, (json.dumps(job, indent=2) + "\n").encode())
    state: BatchState | None = None
    while not cancel.is_set():
        state = client.poll(str(job["name"]), cancel, [q.question_id for q in todo])
        notify(f"batch {job['name']}: {state.words} ({job['requests']} requests)")
        if state.done or cancel.wait(interval_s):
            break
    if state is None or not state.done:
        report.cancelled = True
        return report
    for question in todo:
        found = state.answers.get(question.question_id)
        answer = bounded(found) if found is not None else None
        if answer is None:
            answer = Answer(
                None, failure=f"the batch job ended without answering it: {state.words}"
            )
        elif ledger is not None:
            ledger.add(
                STAGE, client.kind, client.model, answer.usage, question.question_id, None, True
            )
        _append(out, _line(question.question_id, answer, client.model))
        report.asked += 1
        if answer.failed:
            report.failures.append(f"{question.question_id}: {answer.failure}")
    job["collected_at"] = state.state
    atomic_write_bytes(job_path, (json.dumps(job, indent=2) + "\n").encode())
    return report
