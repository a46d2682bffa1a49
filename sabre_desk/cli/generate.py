"""`sabre-desk generate specs` and `generate images`: the front of the pipeline, from a Test
Primer to cases ready for screening (paper §3.1-3.3)."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import (
    EXIT_INTERRUPTED,
    EXIT_PROBLEMS,
    CliError,
    open_project,
)
from sabre_desk.cli.run_limits import add_run_limit_options, guarded, guarded_exit
from sabre_desk.core.case.image_settings import AspectRatio, ImageSettings, ImageSize
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.making.image_batch import batch_images
from sabre_desk.core.making.image_maker import ImageRunReport, make_images
from sabre_desk.core.making.spec_writer import DEFAULT_TRIES, SpecRunReport, write_specs
from sabre_desk.engines.gemini_batch import GeminiBatchClient
from sabre_desk.engines.gemini_make import GeminiImageMaker
from sabre_desk.engines.models import ModelNameError
from sabre_desk.engines.providers import writer_for
from sabre_desk.settings import load_settings

RATIOS = AspectRatio.__args__  # type: ignore[attr-defined]
SIZES = ImageSize.__args__  # type: ignore[attr-defined]


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    gen = sub.add_parser(
        "generate",
        help="make cases with models: specifications from a primer, then their images",
        description="The front of the pipeline. `generate specs` writes Sample "
        "Specifications from a Test Primer with an LLM; `generate images` makes the images of "
        "every specification waiting for them, and turns each into a case ready for `screen`. "
        "Needs GEMINI_API_KEY (GOOGLE_GEMINI_BASE_URL points the client elsewhere).",
    )
    what = gen.add_subparsers(dest="what", metavar="{specs,images}", required=True)
    p = what.add_parser(
        "specs",
        help="write N new Sample Specifications from a primer",
        description="Asks the design model for one specification at a time (structured "
        "output to the primer's schema); a reply that fails the schema, the primer's rules or "
        "names a concept already used goes back with the validator's messages, up to --tries "
        "times. Each valid one waits in generation/ for `generate images`; each call is in "
        "the cost ledger. Exit 0 if all N were written, 1 if some failed.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--primer", required=True, metavar="P", help="the Test Primer (its name)")
    p.add_argument("--n", type=int, required=True, metavar="N", help="how many to write")
    p.add_argument(
        "--model",
        metavar="PROVIDER:MODEL",
        help="the design model: gemini:…, openai:…, anthropic:… or local:…; a bare name is "
        "Gemini's (default: settings spec_model)",
    )
    p.add_argument(
        "--tries", type=int, default=DEFAULT_TRIES, help="replies per specification (default 3)"
    )
    p.add_argument("--seed", type=int, default=0, help="seeds the answer-position balance")
    add_run_limit_options(p)
    p.set_defaults(run=run_specs)

    p = what.add_parser(
        "images",
        help="make the images of the specifications waiting for them",
        description="Base from base_prompt, Edited by editing that Base with edit_prompt, a "
        "single image from image_prompt. An image of the wrong shape, a safety stop or no "
        "image ends that case as failed, with the reason (`sabre-desk stats` lists them); "
        "running it again makes only what is missing. Exit 0 if every case got its images.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--cases", nargs="+", metavar="ID", help="only these specifications")
    p.add_argument("--model", help="the image model (default: settings gemini_model)")
    p.add_argument("--aspect-ratio", choices=RATIOS, help="overrides the primer and project")
    p.add_argument("--image-size", choices=SIZES, help="overrides the primer and project")
    p.add_argument("--concurrency", type=int, default=4, help="images made at once (default 4)")
    p.add_argument(
        "--batch",
        action="store_true",
        help="through the Batch API: half the price, within a day; Ctrl+C keeps the job, the "
        "next run collects it (a paired case takes two rounds: Base, then Edited)",
    )
    p.add_argument(
        "--poll-interval",
        type=float,
        default=30.0,
        metavar="S",
        help="--batch: seconds between polls",
    )
    add_run_limit_options(p)
    p.set_defaults(run=run_images)


def _writable(path: Path) -> Path:
    project = open_project(path, "generate", index=False)
    if project.read_only:
        raise CliError(f"{project.root}: the project folder is read-only", EXIT_PROBLEMS)
    return project.root


def _progress(done: int, total: int, what: str) -> None:
    print(f"[{done}/{total}] {what}", file=sys.stderr)


def run_specs(args: argparse.Namespace) -> int:
    root = _writable(args.project)
    library = PrimerLibrary.for_project(root)
    primer = library.primers.get(args.primer)
    if primer is None:
        known = ", ".join(sorted(library.primers)) or "none"
        raise CliError(f"--primer: no primer {args.primer!r} (known: {known})")
    if args.n < 1 or args.tries < 1:
        raise CliError("--n and --tries: at least 1")
    settings, _ = load_settings()
    try:
        writer = writer_for(args.model or settings.spec_model, settings.provider_base_urls)
    except ModelNameError as exc:
        raise CliError(f"--model: {exc}") from None
    reason = writer.unavailable_reason()
    if reason:
        raise CliError(reason)

    def work(cancel: threading.Event, guard: RunGuard) -> SpecRunReport:
        with writer:
            return write_specs(
                root,
                primer,
                args.n,
                writer,
                cancel,
                tries=args.tries,
                seed=args.seed,
                progress=_progress,
                guard=guard,
            )

    resume = "run `generate specs` again for the rest (the specifications written are kept)"
    report, interrupted, stopped = guarded(args, resume, work)
    if report is None:
        return EXIT_INTERRUPTED
    for reason in report.failed:
        print(f"a specification failed: {reason}", file=sys.stderr)
    print(
        f"wrote {len(report.written)} of {args.n} specifications for {primer.name} "
        f"({report.calls} calls, {len(report.failed)} failed); next: "
        f"sabre-desk generate images {root}"
    )
    return guarded_exit(stopped, interrupted, report.cancelled, bool(report.failed))


def run_images(args: argparse.Namespace) -> int:
    root = _writable(args.project)
    settings, _ = load_settings()
    maker = GeminiImageMaker(args.model or settings.gemini_model)
    reason = maker.unavailable_reason()
    if reason:
        raise CliError(reason)
    override = ImageSettings(aspect_ratio=args.aspect_ratio, image_size=args.image_size)

    def work(cancel: threading.Event, guard: RunGuard) -> ImageRunReport:
        if args.batch:
            client = GeminiBatchClient(maker.model)
            return batch_images(
                root,
                client,
                cancel,
                lambda line: print(line, file=sys.stderr),
                cases=args.cases,
                override=override,
                interval_s=max(0.01, args.poll_interval),
            )
        with maker:
            return make_images(
                root,
                maker,
                cancel,
                cases=args.cases,
                override=override,
                concurrency=max(1, args.concurrency),
                progress=_progress,
                guard=guard,
            )

    resume = "run the same command again to make the rest (the images made are kept)"
    report, interrupted, stopped = guarded(args, resume, work)
    if report is None:
        return EXIT_INTERRUPTED
    for case_id, why in report.failed:
        print(f"{case_id}: {why}", file=sys.stderr)
    print(
        f"imaged {len(report.imaged)} cases ({report.calls} calls), {len(report.failed)} "
        f"failed; next: sabre-desk screen {root}"
    )
    if report.not_done:
        print(f"not made: {', '.join(sorted(report.not_done))}", file=sys.stderr)
    return guarded_exit(stopped, interrupted, report.cancelled, bool(report.failed))
