"""Evaluating several models on one release, the paper's Table 7 in one run: every model is
asked every question (``predict``), models of different providers at the same time (each
provider within its own concurrency), the models of one provider one after another; then
each predictions file is scored.

Each model has its own predictions file in the output folder (``predictions-PROVIDER_MODEL
.jsonl``), so a rerun asks only what is missing, model by model, and a cancelled run keeps
every answer that came back. Costs go to the folder's ``ledger.jsonl``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.jobs.ledger import LEDGER_NAME, Ledger
from sabre_desk.core.release.evaluation_report import write_report
from sabre_desk.core.release.evaluation_results import load_evaluation
from sabre_desk.core.release.predict import PredictReport, predict, predict_batch
from sabre_desk.core.release.score_files import predictions_name, release_identity, report_of
from sabre_desk.core.release.score_table import FORMATS, render
from sabre_desk.engines.answers import AnswerEngine
from sabre_desk.engines.batches import BatchClient
from sabre_desk.engines.models import base_url, parse_model, qualified_name
from sabre_desk.engines.providers import answerer_for
from sabre_desk.engines.sdk_batch import batch_client_for
from sabre_desk.ground.storage import atomic_write_bytes, atomic_write_json

TABLE_STEM = "table7"
FIGURES_NAME = "figures.json"


@dataclass
class ModelRun:
    """One model of an evaluation: what asks it, and (with --batch) its batch client."""

    engine: AnswerEngine
    batch: BatchClient | None = None

    @property
    def provider(self) -> str:
        return self.engine.kind

    @property
    def name(self) -> str:
        """``provider:model``, a Gemini model's too: the table's column, the file's name."""
        return qualified_name(self.engine.kind, self.engine.model)


def model_runs(
    models: list[str],
    urls: Mapping[str, str] | None = None,
    local_url: str | None = None,
    batch: bool = False,
) -> tuple[list[ModelRun], list[str]]:
    """The runs for *models* (``PROVIDER:MODEL`` names, duplicates dropped) and why any of
    them cannot run here (no key, the client missing). Raises ModelNameError."""
    names = list(dict.fromkeys(parse_model(m) for m in models if m.strip()))
    runs, problems = [], []
    for name in names:
        engine = answerer_for(name, urls, local_url)
        url = base_url(name.provider, urls)
        client = batch_client_for(name.provider, name.model, url) if batch else None
        reason = engine.unavailable_reason()
        if reason:
            problems.append(f"{name.qualified}: {reason}")
        runs.append(ModelRun(engine, client))
    return runs, problems


@dataclass
class EvaluateReport:
    predictions: dict[str, Path] = field(default_factory=dict)  # model → its file
    reports: dict[str, PredictReport] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # model → why it could not run
    cancelled: bool = False

    @property
    def failures(self) -> int:
        return sum(len(r.failures) for r in self.reports.values())


def evaluate(
    release: Path,
    out_dir: Path,
    runs: list[ModelRun],
    concurrency: int = 8,
    notify: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
    interval_s: float = 30.0,
) -> EvaluateReport:
    """Ask every model of *runs* every question of *release*; see the module's text."""
    cancel = cancel or threading.Event()
    say = notify or (lambda line: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(out_dir / LEDGER_NAME)
    report = EvaluateReport()
    lock = threading.Lock()
    by_provider: dict[str, list[ModelRun]] = {}
    for run in runs:
        by_provider.setdefault(run.provider, []).append(run)
        report.predictions[run.name] = out_dir / predictions_name(run.name)

    def one(run: ModelRun) -> None:
        model = run.name
        out = report.predictions[model]

        def progress(done: int, total: int, question_id: str) -> None:
            if done == total or done % 50 == 0:
                say(f"{model}: {done}/{total} questions")

        try:
            if run.batch is not None:
                result = predict_batch(release, out, run.batch, ledger, say, cancel, interval_s)
            else:
                result = predict(release, out, run.engine, ledger, concurrency, progress, cancel)
        except Exception as exc:  # one model's trouble never stops the others
            with lock:
                report.errors[model] = f"{type(exc).__name__}: {exc}"
            say(f"{model}: could not be evaluated ({exc})")
            return
        with lock:
            report.reports[model] = result
        say(
            f"{model}: {result.asked} asked, {result.already} answered before, "
            f"{len(result.failures)} failed"
        )

    def provider_thread(group: list[ModelRun]) -> None:
        for run in group:
            if cancel.is_set():
                return
            one(run)

    threads = [
        threading.Thread(target=provider_thread, args=(group,), name=f"evaluate-{provider}")
        for provider, group in by_provider.items()
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    report.cancelled = cancel.is_set()
    return report


def write_results(release: Path, out_dir: Path, report: EvaluateReport) -> str:
    """Score every model's predictions and write Table 7 (md, csv, tex), figures.json and
    report.html (the chart, every question, thumbnails) into *out_dir*; returns the table
    in Markdown."""
    reports = {
        model: report_of(release, path)
        for model, path in report.predictions.items()
        if path.is_file()
    }
    name, root = release_identity(release)
    for fmt in FORMATS:
        atomic_write_bytes(out_dir / f"{TABLE_STEM}.{fmt}", render(reports, fmt).encode("utf-8"))
    figures = {
        "release": name,
        "root_sha256": root,
        "release_path": str(release.absolute()),  # where `audit` finds the questions
        "models": {model: r.to_json() for model, r in reports.items()},
        "failed_calls": {m: len(r.failures) for m, r in report.reports.items()},
        "errors": report.errors,
    }
    atomic_write_json(out_dir / FIGURES_NAME, figures)
    files = [path for path in report.predictions.values() if path.is_file()]
    if files:
        write_report(load_evaluation(out_dir, release, files))
    return render(reports, "md")
