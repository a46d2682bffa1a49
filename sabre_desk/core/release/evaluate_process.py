"""An evaluation (``evaluate``) in a child process, for the window: File > Evaluate a
Release… starts it with the models of its dialog; progress comes back as lines, Cancel stops
the calls under way (every answer already received stays in its model's predictions file,
so running it again asks only what is missing)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.jobs.child_job import ChildFailedError, ChildJob
from sabre_desk.core.release.evaluate import evaluate, model_runs, write_results
from sabre_desk.engines.models import ModelNameError


@dataclass
class EvaluateOrder:
    release: Path
    out_dir: Path
    models: list[str]
    batch: bool = False
    concurrency: int = 8
    urls: dict[str, str] = field(default_factory=dict)
    local_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EvaluateProgress:
    line: str  # "openai:gpt-5.4: 50/120 questions"


@dataclass
class EvaluateResult:
    table: str  # Table 7 in Markdown
    out_dir: Path
    failures: int = 0
    errors: dict[str, str] = field(default_factory=dict)
    cancelled: bool = False


def evaluate_in_child(
    order: EvaluateOrder, progress: Callable[[EvaluateProgress], None], stop: threading.Event
) -> EvaluateResult:
    try:
        runs, problems = model_runs(order.models, order.urls, order.local_url, order.batch)
    except ModelNameError as exc:
        raise ChildFailedError(str(exc)) from None
    if not runs:
        raise ChildFailedError("name at least one model")
    if problems:
        raise ChildFailedError("; ".join(problems))
    report = evaluate(
        order.release,
        order.out_dir,
        runs,
        order.concurrency,
        lambda line: progress(EvaluateProgress(line)),
        stop,
    )
    table = write_results(order.release, order.out_dir, report)
    return EvaluateResult(table, order.out_dir, report.failures, report.errors, report.cancelled)


def evaluate_job(order: EvaluateOrder) -> ChildJob[EvaluateOrder, EvaluateProgress, EvaluateResult]:
    return ChildJob(evaluate_in_child, order, order.env, "evaluation")
