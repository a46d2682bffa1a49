"""`sabre-desk screen`, `predict` and `cost`: the Filtering VLM, a model on a release, and
what it all cost.

Progress goes to stderr (a bar on a terminal, a line per case otherwise); results to stdout.
Ctrl+C (or SIGTERM) cancels the calls under way within a fraction of a second; every answer
that came back is already in the request cache (or the predictions file), so a rerun sends
only what is missing. Exit codes: 0 done, 1 some probes failed or a run could not be
written, 2 bad usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import TypeVar

from sabre_desk.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    CliError,
    in_background,
    open_project,
    release_folder,
    reviewer_name,
)
from sabre_desk.cli.run_limits import add_run_limit_options, guarded, guarded_exit
from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import MANIFEST_NAME, Project
from sabre_desk.core.jobs.ledger import LEDGER_NAME, Ledger, summarize
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.screening.prompts import shipped_prompts
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import (
    ScreenProgress,
    ScreenReport,
    plan_screening,
    run_screening,
)
from sabre_desk.engines.answers import AnswerEngine
from sabre_desk.engines.batches import BatchClient
from sabre_desk.engines.gemini_call import CallFailedError
from sabre_desk.engines.models import ModelName, ModelNameError, Provider, base_url, parse_model
from sabre_desk.engines.openai_qa import OpenAIAnswerer
from sabre_desk.engines.providers import answerer_for
from sabre_desk.engines.sdk_batch import batch_client_for
from sabre_desk.settings import Settings, load_settings

T = TypeVar("T")
#: the providers whose batch service --batch uses
BATCH_PROVIDERS = frozenset({Provider.GEMINI, Provider.OPENAI, Provider.ANTHROPIC})


def register(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    p = sub.add_parser(
        "screen",
        parents=[common],
        help="ask the filtering model every probe; append a run to each case's screening.json",
        description="Screen cases with the Filtering VLM (SABRE paper §3.4): each probe's "
        "image and question with the zero-shot prompt of its format; the answer is parsed "
        "as `score` parses it and a run is appended to the case's screening.json. Without "
        "--cases or --stale: every case without a current run of the model. Answers are "
        "cached in the project (cache/), costs logged in ledger.jsonl.",
    )
    p.add_argument("project", type=Path)
    _model_options(p)
    p.add_argument("--cases", nargs="+", metavar="ID", help="screen these cases (again)")
    p.add_argument("--stale", action="store_true", help="screen the cases whose run is stale")
    p.add_argument("--dry-run", action="store_true", help="say what would be asked; ask nothing")
    p.add_argument("--no-cache", action="store_true", help="ask again even what is cached")
    add_run_limit_options(p)
    p.set_defaults(run=run_screen)

    p = sub.add_parser(
        "predict",
        help="run a model on a release; write the predictions file `score` reads",
        description="Ask a model every question of an exported release with the prompts "
        "the release ships, and write PREDICTIONS.jsonl for `sabre-desk score`. A rerun "
        "asks only the questions still without a response.",
    )
    p.add_argument("release", type=Path)
    _model_options(p)
    p.add_argument(
        "--out", type=Path, help="predictions file (default: predictions-MODEL.jsonl here)"
    )
    p.add_argument(
        "--ledger",
        type=Path,
        help="cost ledger to append to (default: a project's ledger.jsonl given with "
        "--project, else ledger.jsonl beside the predictions)",
    )
    p.add_argument("--project", type=Path, help="charge the calls to this project's ledger")
    add_run_limit_options(p)
    p.set_defaults(run=run_predict)

    p = sub.add_parser(
        "cost",
        help="what the model calls cost, per stage and model and per 100 candidates",
        description="Sum ledger.jsonl per stage and model, priced from the `prices` table "
        "of the settings file (US dollars per million tokens); a model without a price is "
        "reported as unknown, never as free.",
    )
    p.add_argument("project", type=Path, help="a project folder, or a ledger.jsonl file")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run_cost)


def _model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="the model: gemini:…, openai:…, anthropic:… or local:… (any OpenAI-compatible "
        "server); a bare name is Gemini's (default: settings screening_model)",
    )
    p.add_argument(
        "--batch", action="store_true", help="through the provider's Batch API (half price)"
    )
    p.add_argument(
        "--local",
        nargs="?",
        const="",
        metavar="URL",
        help="the server of a local: model (default: settings local_base_url); with a bare "
        "--model, that model on this server; needs the [local] extra",
    )
    p.add_argument("--concurrency", type=int, help="requests in flight at once (default 8)")
    p.add_argument(
        "--poll", type=float, default=30.0, metavar="S", help="--batch: seconds between polls"
    )


def model_name(args: argparse.Namespace, settings: Settings) -> ModelName:
    """--model as PROVIDER:MODEL (--local with a bare name: that model on the local server)."""
    if args.local is not None and not args.model:
        raise CliError("--local needs --model (the name the local server serves)")
    text = args.model or settings.screening_model
    try:
        if args.local is not None and ":" not in text:
            return ModelName(Provider.LOCAL, text)
        name = parse_model(text)
    except ModelNameError as exc:
        raise CliError(f"--model: {exc}") from None
    if args.local is not None and name.provider is not Provider.LOCAL:
        raise CliError(f"--local is the server of a local: model, not of {name.qualified}")
    return name


def _batch_client(args: argparse.Namespace, settings: Settings) -> BatchClient:
    name = model_name(args, settings)
    client: BatchClient | None = batch_client_for(
        name.provider, name.model, base_url(name.provider, settings.provider_base_urls)
    )
    if client is None:
        raise CliError(f"--batch: {name.label} has no batch service here; leave out --batch")
    return client


def _settings() -> Settings:
    settings, warning = load_settings()
    if warning:
        print(f"sabre-desk: {warning}", file=sys.stderr)
    return settings


def _engine(args: argparse.Namespace, settings: Settings, asks: bool = True) -> AnswerEngine:
    """The model the command asks; unless it *asks* nothing (a dry run), one that can be
    asked (a key for Gemini, the client library for a local server)."""
    name = model_name(args, settings)
    if args.batch and name.provider not in BATCH_PROVIDERS:
        raise CliError(f"--batch: {name.label} has no batch service here; leave out --batch")
    engine: AnswerEngine
    if args.local:  # a server named on the command line wins over every setting
        engine = OpenAIAnswerer(name.model, Provider.LOCAL, args.local)
    else:
        engine = answerer_for(name, settings.provider_base_urls, settings.local_base_url)
    reason = engine.unavailable_reason() if asks else None
    if reason:
        raise CliError(reason)
    return engine


class _Bar:
    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()

    def __call__(self, event: ScreenProgress) -> None:
        if event.failure:
            print(
                f"\ncase {event.case_id} probe {event.probe_id}: {event.failure}", file=sys.stderr
            )
        if self.tty:
            width = 30
            filled = int(width * event.done / max(event.total, 1))
            sys.stderr.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {event.done}/{event.total} probes, "
                f"{event.cases_done}/{event.cases_total} cases, {event.in_flight} in flight "
            )
            sys.stderr.flush()
        elif event.case_status is not None:
            print(
                f"{event.cases_done}/{event.cases_total} {event.case_id}: "
                f"{event.case_status.label}",
                file=sys.stderr,
            )


def run_screen(args: argparse.Namespace) -> int:
    settings = _settings()
    project = open_project(args.project, reviewer_name(args))
    if project.read_only and not args.dry_run:
        raise CliError(f"{project.root}: the project is read-only; screening writes into it")
    engine = _engine(args, settings, asks=not args.dry_run)
    prompts = shipped_prompts()
    cache = RequestCache.of_project(project.root)
    ledger = Ledger.of_project(project.root)
    concurrency = args.concurrency or settings.screening_concurrency
    if args.batch:
        return _screen_batch(project, args, engine, cache, ledger)

    def work(cancel: threading.Event, guard: RunGuard) -> tuple[int, ScreenReport | None]:
        plan = plan_screening(project, engine, prompts, args.cases, args.stale, cancel)
        for line in plan.skipped:
            print(f"skipped {line}", file=sys.stderr)
        cached = sum(
            1 for c in plan.cases for p in c.probes if not args.no_cache and cache.get(p.key)
        )
        print(
            f"{len(plan.cases)} cases, {plan.requests} probes to ask {engine.model} "
            f"(prompts {prompts.version}); {cached} answered from the cache",
            file=sys.stderr,
        )
        if args.dry_run:
            for case in plan.cases:
                print(f"{case.case_id}: {_n(len(case.probes), 'probe')}")
            return plan.requests, None
        report = run_screening(
            project,
            plan,
            engine,
            concurrency,
            cache,
            ledger,
            _Bar(),
            cancel,
            use_cache=not args.no_cache,
            guard=guard,
        )
        return plan.requests, report

    result, interrupted, stopped = guarded(args, SCREEN_RESUME, work)
    if result is None or result[1] is None:
        return EXIT_INTERRUPTED if interrupted else EXIT_OK
    return _screen_summary(result[1], interrupted, stopped)


#: How to go on after a run that stopped on its own (its deadline, its give-up rule).
SCREEN_RESUME = "run the same command again to screen the rest (every answer received is kept)"


def _screen_summary(report: ScreenReport, interrupted: bool, stopped: str | None = None) -> int:
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    counts: dict[ScreenStatus, int] = {}
    for status in report.statuses.values():
        counts[status] = counts.get(status, 0) + 1
    for case_id, status in sorted(report.statuses.items()):
        print(f"{case_id}: {status.label}")
    tally = ", ".join(f"{n} {s.label.lower()}" for s, n in sorted(counts.items()))
    print(
        f"screened {_n(len(report.cases_written), 'case')} ({tally or 'none'}); "
        f"{report.sent} requests sent, {report.cached} answered from the cache, "
        f"{len(report.failures)} failed"
    )
    for line in report.errors:
        print(f"sabre-desk: error: {line}", file=sys.stderr)
    if report.not_done:
        shown = ", ".join(report.not_done[:10])
        more = f" and {len(report.not_done) - 10} more" if len(report.not_done) > 10 else ""
        print(f"not screened: {shown}{more}", file=sys.stderr)
    failed = bool(report.failures or report.errors)
    return guarded_exit(stopped, interrupted, report.cancelled, failed)


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _screen_batch(
    project: Project,
    args: argparse.Namespace,
    engine: AnswerEngine,
    cache: RequestCache,
    ledger: Ledger,
) -> int:
    from sabre_desk.core.screening import screen_batch

    if args.dry_run:  # asks the service nothing, not even for the state of earlier jobs
        for job in screen_batch.pending_jobs(project):
            print(f"job {job.name}: not collected yet; a run without --dry-run collects it")

        def plan_only(cancel: threading.Event) -> int:
            plan = plan_screening(
                project, engine, shipped_prompts(), args.cases, args.stale, cancel
            )
            print(f"{len(plan.cases)} cases, {plan.requests} probes would go in a batch job")
            return plan.requests

        _, interrupted = in_background(plan_only)
        return EXIT_INTERRUPTED if interrupted else EXIT_OK
    client = _batch_client(args, _settings())

    def notify(line: str) -> None:
        print(line, file=sys.stderr)

    def work(cancel: threading.Event, guard: RunGuard) -> screen_batch.BatchReport:
        earlier = screen_batch.wait_and_collect(
            project, client, cache, ledger, notify, cancel, args.poll
        )
        if cancel.is_set():
            return earlier
        plan = plan_screening(project, engine, shipped_prompts(), args.cases, args.stale, cancel)
        try:
            job = screen_batch.submit(
                project, plan, client, None if args.no_cache else cache, cancel
            )
        except CallFailedError as exc:
            raise CliError(
                f"the batch job could not be created: {exc.reason}", EXIT_PROBLEMS
            ) from exc
        if job is not None:
            data = job.data
            notify(f"batch job {job.name} created ({data['mode']}, {data['requests']} requests)")
        later = screen_batch.wait_and_collect(
            project, client, cache, ledger, notify, cancel, args.poll
        )
        for attr in ("cases_written", "failures", "errors", "jobs"):
            getattr(earlier, attr).extend(getattr(later, attr))
        earlier.statuses.update(later.statuses)
        earlier.cancelled = later.cancelled
        return earlier

    resume = "the batch job keeps running at the service; run the same command again to collect it"
    report, interrupted, stopped = guarded(args, resume, work)
    if report is None:
        return EXIT_INTERRUPTED
    for line in report.jobs:
        print(f"job {line}")
    if interrupted or (report.cancelled and stopped is None):
        print(
            "the batch job keeps running at the service; run the same command again to "
            "collect its results",
            file=sys.stderr,
        )
    return _screen_summary(report, interrupted, stopped)


def run_predict(args: argparse.Namespace) -> int:
    from sabre_desk.core.release.predict import predict, predict_batch

    release = release_folder(args.release)
    settings = _settings()
    engine = _engine(args, settings)
    if not (release / "benchmark.jsonl").is_file():
        raise CliError(
            f"{release}: not a release (no benchmark.jsonl); `sabre-desk export` makes one"
        )
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in engine.model)
    out: Path = args.out or Path(f"predictions-{safe}.jsonl")
    if args.ledger:
        ledger_path = args.ledger
    elif args.project:
        ledger_path = (
            open_project(args.project, reviewer_name(args), index=False).root / LEDGER_NAME
        )
    else:
        ledger_path = out.absolute().parent / LEDGER_NAME
    ledger = Ledger(ledger_path)
    concurrency = args.concurrency or settings.screening_concurrency

    def progress(done: int, total: int, question_id: str) -> None:
        if sys.stderr.isatty():
            sys.stderr.write(f"\r{done}/{total} {question_id:50.50}")
            sys.stderr.flush()

    def work(cancel: threading.Event, guard: RunGuard):  # type: ignore[no-untyped-def]
        if args.batch:
            client = _batch_client(args, settings)
            return predict_batch(
                release, out, client, ledger, lambda s: print(s, file=sys.stderr), cancel, args.poll
            )
        return predict(release, out, engine, ledger, concurrency, progress, cancel, guard)

    resume = "run the same command again to ask the rest (every answer received is kept)"
    report, interrupted, stopped = guarded(args, resume, work)
    if sys.stderr.isatty():
        sys.stderr.write("\n")
    if report is None:
        return EXIT_INTERRUPTED
    for warning in report.warnings:
        print(f"sabre-desk: warning: {warning}", file=sys.stderr)
    for failure in report.failures:
        print(f"failed {failure}", file=sys.stderr)
    print(
        f"{report.asked} questions asked, {report.already} answered before; predictions in "
        f"{out}; costs in {ledger_path}"
    )
    if report.not_done:
        print(f"{report.not_done} questions not asked", file=sys.stderr)
    return guarded_exit(stopped, interrupted, report.cancelled, bool(report.failures))


def run_cost(args: argparse.Namespace) -> int:
    settings = _settings()
    target: Path = args.project
    project: Project | None = None
    if target.is_dir() and (target / MANIFEST_NAME).is_file():
        project = open_project(target, reviewer_name(args))
        path = project.root / LEDGER_NAME
    elif target.is_file():
        path = target
    elif not target.exists():
        raise CliError(f"{target}: does not exist")
    else:
        raise CliError(f"{target}: neither a project nor a ledger file")
    summary = summarize(path, settings.prices)
    kept = None
    if project is not None:
        kept = sum(1 for e in project.entries if e.screening is ScreenStatus.KEPT)
    if args.json:
        data = summary.to_json()
        data["ledger"] = str(path)
        data["kept_cases"] = kept
        print(json.dumps(data, indent=2))
        return EXIT_OK
    if not summary.rows:
        print(f"no model calls recorded in {path}")
        return EXIT_OK
    print(
        f"{'stage':8} {'model':28} {'calls':>6} {'input':>10} {'output':>8} {'image':>10} "
        f"{'thinking':>8} {'cost':>10} {'per 100 candidates':>18}"
    )
    for row in summary.rows:
        cost = "unknown" if row.usd is None else f"${row.usd:.4f}"
        per = row.per_100_candidates
        per_text = "unknown" if per is None else f"${per:.4f} ({len(row.cases)} cases)"
        print(
            f"{row.stage:8} {row.model[:28]:28} {row.calls:6} {row.input:10} {row.output:8} "
            f"{row.image:10} {row.thoughts:8} {cost:>10} {per_text:>18}"
        )
    total = summary.total_usd
    unknown = "unknown (a model has no price in the settings)"
    print(f"total: {unknown if total is None else f'${total:.4f}'}")
    if total is not None and kept:
        print(f"per 100 kept cases ({kept} kept by the filter): ${total / kept * 100:.4f}")
    for problem in summary.problems:
        print(f"sabre-desk: warning: {path}: {problem}", file=sys.stderr)
    return EXIT_OK
