"""`sabre-desk export`, `verify` and `score`."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import (
    EXIT_INTERRUPTED,
    CliError,
    exit_code,
    in_background,
    open_project,
    release_folder,
    require_current,
    reviewer_name,
)
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.scoring import score
from sabre_desk.core.release.audit import project_standing
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import BENCHMARK, verify
from sabre_desk.core.release.release_read import release_file
from sabre_desk.core.release.score_files import (
    STANDARD_INPUT,
    benchmark_samples,
    read_predictions,
    release_identity,
    report_of,
)
from sabre_desk.core.release.score_table import render
from sabre_desk.ground.errors import ProjectError


def _progress_bar(done: int, total: int, case_id: str) -> None:
    if not sys.stderr.isatty():
        return
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {case_id:40.40}")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def run_export(project: Project, args: argparse.Namespace) -> int:
    try:
        decisions = {Decision(d.strip()) for d in args.decisions.split(",")}
    except ValueError as exc:
        valid = ", ".join(d.value for d in Decision)
        raise ProjectError(f"--decisions: {exc}; use any of {valid}") from exc
    summary = export(
        project,
        args.out,
        decisions,
        args.name,
        progress=_progress_bar,
        link=getattr(args, "link", False),
        license_id=getattr(args, "license", None),
        min_reviews=getattr(args, "min_reviews", 1),
    )
    unsettled = project_standing(project).unsettled
    if getattr(args, "json", False):
        report = {**summary.to_json(), "audit_unsettled": list(unsettled)}
        print(json.dumps(report, indent=2, ensure_ascii=False))
        return 0
    for folder in summary.removed_partials:
        print(f"removed {folder}: a partial folder left by an export that was killed")
    print(
        f"exported {summary.cases} cases, {summary.questions} questions, "
        f"{summary.images} images to {summary.out}"
    )
    print(f"root sha256 {summary.root_hash}")
    if summary.left_out:
        print(f"not exported: {len(summary.left_out)} cases ({summary.not_exported()})")
    for line in summary.left_out:
        print(f"  left out: {line}")
    for line in summary.warnings:
        print(f"  warning: {line}")
    if unsettled:
        print(f"answers the models dispute, not yet settled: {len(unsettled)} questions")
    for question_id in unsettled:
        print(f"  to settle: {question_id}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    """Print one line per problem (file and reason); exit 1 unless the release is intact
    and usable."""
    result = verify(release_folder(args.out))
    if getattr(args, "json", False):
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return 0 if result.ok else 1
    for name in result.changed:
        print(f"CHANGED  {name}")
    for name in result.missing:
        print(f"MISSING  {name}")
    for name in result.extra:
        print(f"EXTRA    {name}")
    for problem in result.problems:
        print(f"PROBLEM  {problem}")
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.ok:
        print(
            f"OK: {result.checked} files match, {result.decoded} images decode, "
            f"{result.rows} rows name images the release holds; root sha256 {result.root_hash}"
        )
        return 0
    print(
        f"FAILED: {len(result.changed)} changed, {len(result.missing)} missing, "
        f"{len(result.extra)} extra, {len(result.problems)} other problems",
        file=sys.stderr,
    )
    return 1


def _score_table(args: argparse.Namespace) -> int:
    if STANDARD_INPUT in args.predictions:
        raise CliError("--table names each column by its file: give files, not -")
    reports = {path.stem: report_of(args.out, path) for path in args.predictions}
    name, root = release_identity(args.out)
    sys.stdout.write(render(reports, args.table))
    print(f"release {name or '(unnamed)'}, root sha256 {root or '(unknown)'}", file=sys.stderr)
    return 0


def run_score(args: argparse.Namespace) -> int:
    """Score predictions; both files are streamed line by line with a bound per line."""
    release_folder(args.out)
    if getattr(args, "table", None):
        return _score_table(args)
    benchmark = benchmark_samples(release_file(args.out, BENCHMARK))
    by_id, by_index = read_predictions(args.predictions, sys.stdin.buffer)
    known = {sample.question_id for _, sample in benchmark}
    unknown = [q for q in by_id if q not in known]
    samples = []
    for index, sample in benchmark:
        sample.response = by_id.get(sample.question_id, by_index.get(index))
        samples.append(sample)
    report = score(samples)
    name, root = release_identity(args.out)
    if args.json:
        identity = {"release": name, "root_sha256": root}
        print(
            json.dumps({**identity, **report.to_json(), "unknown_question_ids": unknown}, indent=2)
        )
        return 0
    print(f"release {name or '(unnamed)'}, root sha256 {root or '(unknown: no release.json)'}")
    print(f"{'subset':22} {'metric':9} {'cases':>6} {'score':>7}   95% CI          extra")
    for s in report.subsets:
        extra = ""
        if s.edit2 is not None:
            extra = f"Edit2 {s.edit2:.1%}  " + "  ".join(
                f"{k.split()[0]} {v:.0%}" for k, v in s.probes.items()
            )
        print(
            f"{s.subset:22} {s.metric:9} {s.cases:6} {s.accuracy:7.1%}   "
            f"[{s.ci[0]:.1%}, {s.ci[1]:.1%}]   {extra}"
        )
    if report.macro is not None and report.macro_ci is not None:
        named = ", ".join(report.macro_subsets)
        print(
            f"{'macro (paper, Prior)':22} {'':9} {'':6} {report.macro:7.1%}   "
            f"[{report.macro_ci[0]:.1%}, {report.macro_ci[1]:.1%}]   over {named}"
        )
    print(
        f"{'average, all subsets':22} {'':9} {'':6} {report.macro_all:7.1%}   "
        f"[{report.macro_all_ci[0]:.1%}, {report.macro_all_ci[1]:.1%}]   pilots included"
    )
    print(
        f"{report.questions} questions; {report.missing} without a prediction (counted "
        f"wrong); {report.unparseable} unparseable (counted wrong)"
    )
    if unknown:
        print(
            f"{len(unknown)} prediction{'s' if len(unknown) != 1 else ''} name"
            f"{'' if len(unknown) != 1 else 's'} questions not in this release, "
            f"e.g. {unknown[0]}",
            file=sys.stderr,
        )
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "export",
        parents=[common],
        help="write the accepted cases as a release",
        description="Write the accepted cases as a release folder. It is built in a "
        "partial folder beside OUT and renamed at the end, so OUT is absent or complete; "
        "partial folders left by a killed export are removed by the next export there.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, help="the release folder (must not exist)")
    p.add_argument(
        "--decisions",
        default="keep",
        help="final decisions to export, comma-separated (default: keep)",
    )
    p.add_argument("--name", help="release name (default: from the project name)")
    p.add_argument(
        "--link",
        action="store_true",
        help="hard-link the images instead of copying them (instant, no extra space, same "
        "disk only); an in-place edit of a released image then also changes the project's "
        "image",
    )
    p.add_argument(
        "--license",
        metavar="ID",
        help="the Hugging Face license id the dataset card declares (e.g. cc-by-4.0; "
        "default: none chosen yet)",
    )
    p.add_argument("--json", action="store_true", help="the export's report as JSON")
    p.add_argument(
        "--min-reviews",
        type=_at_least_one,
        default=1,
        metavar="N",
        help="leave out cases resting on fewer than N current reviews (adjudicated cases are kept)",
    )
    p.set_defaults(run=cmd_export)

    p = sub.add_parser(
        "verify",
        help="check a release against its manifest",
        description="Check every file of a release against MANIFEST.sha256, the manifest "
        "against the root hash in release.json, and release.json against its own hash and "
        "counts; then that the release is usable: every image decodes fully and every row "
        "of benchmark.jsonl parses and names images the release holds. Links, unsafe "
        "manifest names and a missing release.json are failures. "
        "Exit 0 if intact and usable, 1 otherwise, 2 if OUT is missing or is a project.",
    )
    p.add_argument("out", type=Path)
    p.add_argument("--json", action="store_true", help="the verification's report as JSON")
    p.set_defaults(run=run_verify)

    p = sub.add_parser("score", help="score model predictions on a release")
    p.add_argument("out", type=Path, help="the release folder")
    p.add_argument(
        "predictions",
        type=Path,
        nargs="+",
        help='JSONL: {"question_id": …, "response": …} (or "index") lines, or VLMEvalKit\'s '
        "prediction TSVs (PRED_FORMAT=tsv: index, prediction); several files are merged; "
        "- reads JSONL from standard input",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--table",
        choices=["md", "csv", "tex"],
        help="one column per predictions file (a model each, named by the file), rows as in "
        "the paper's Table 7",
    )
    p.set_defaults(run=run_score)

    p = sub.add_parser(
        "evaluate",
        help="ask several models every question of a release and write Table 7",
        description="Predict with every model named (PROVIDER:MODEL, e.g. gemini:gemini-3.5-"
        "flash,openai:gpt-5.4,anthropic:claude-opus-4-6), models of different providers at "
        "the same time, then score them: table7.md, table7.csv, table7.tex, figures.json "
        "(every figure with its 95% bootstrap interval) and report.html (the chart and every "
        "question, to open in a browser) in --out, with one predictions file per model and "
        "the costs in ledger.jsonl there. A rerun asks only what is missing.",
    )
    p.add_argument("release", type=Path, help="the release folder")
    p.add_argument("--models", required=True, metavar="A,B,C", help="the models, comma-separated")
    p.add_argument(
        "--batch",
        action="store_true",
        help="through each provider's batch service (half price, within a day); a local: "
        "model is asked directly",
    )
    p.add_argument(
        "--out", type=Path, help="the evaluation's folder (default: evaluation-RELEASE here)"
    )
    p.add_argument(
        "--concurrency", type=int, help="requests in flight at once per model (default 8)"
    )
    p.add_argument(
        "--poll", type=float, default=30.0, metavar="S", help="--batch: seconds between polls"
    )
    p.set_defaults(run=run_evaluate)

    p = sub.add_parser(
        "report",
        help="(re)write an evaluation's report.html",
        description="Write report.html for an evaluation: one self-contained page that opens "
        "offline in a browser, with Table 7 as a chart (95% intervals as error bars), the "
        "figures, and every question with each model's answer, right or wrong, beside a "
        "thumbnail of its image. `evaluate` writes it itself; this rewrites it for a folder "
        "evaluated before, or makes one for predictions files from elsewhere (`score`'s "
        "format; then name the release with --release).",
    )
    p.add_argument(
        "eval_dir",
        type=Path,
        metavar="EVAL_DIR",
        help="the evaluation's folder (or a folder of predictions files)",
    )
    p.add_argument("--release", type=Path, help="the release the predictions answer")
    p.add_argument("--out", type=Path, help="where to write it (default: EVAL_DIR/report.html)")
    p.set_defaults(run=run_report)


def run_report(args: argparse.Namespace) -> int:
    from sabre_desk.core.release.evaluation_report import write_report
    from sabre_desk.core.release.evaluation_results import load_evaluation

    results = load_evaluation(args.eval_dir, args.release)
    path = write_report(results, args.out)
    print(
        f"{path}: {len(results.models)} model(s), {len(results.questions)} question(s), "
        f"{len(results.disputed)} disputed"
    )
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    from sabre_desk.core.release.evaluate import (
        FIGURES_NAME,
        TABLE_STEM,
        evaluate,
        model_runs,
        write_results,
    )
    from sabre_desk.engines.models import ModelNameError
    from sabre_desk.settings import load_settings

    release = release_folder(args.release)
    if not (release / BENCHMARK).is_file():
        raise CliError(f"{release}: not a release (no {BENCHMARK}); `sabre-desk export` makes one")
    settings, warning = load_settings()
    if warning:
        print(f"sabre-desk: {warning}", file=sys.stderr)
    try:
        runs, problems = model_runs(
            args.models.split(","),
            settings.provider_base_urls,
            settings.local_base_url,
            args.batch,
        )
    except ModelNameError as exc:
        raise CliError(f"--models: {exc}") from None
    if not runs:
        raise CliError("--models: name at least one model")
    if problems:
        raise CliError("; ".join(problems))
    out: Path = args.out or Path(f"evaluation-{release.absolute().name}")
    concurrency = args.concurrency or settings.screening_concurrency

    def work(cancel: threading.Event):  # type: ignore[no-untyped-def]
        def say(line: str) -> None:
            print(line, file=sys.stderr)

        return evaluate(release, out, runs, concurrency, say, cancel, args.poll)

    report, interrupted = in_background(work)
    if report is None:
        return EXIT_INTERRUPTED
    table = write_results(release, out, report)
    sys.stdout.write(table)
    release_name, _ = release_identity(release)
    print(
        f"release {release_name or '(unnamed)'}; Table 7 in {out}/{TABLE_STEM}.md, .csv, "
        f".tex; every figure in {out}/{FIGURES_NAME}; every question in {out}/report.html; "
        f"costs in {out}/ledger.jsonl",
        file=sys.stderr,
    )
    for model, why in report.errors.items():
        print(f"sabre-desk: error: {model}: {why}", file=sys.stderr)
    stopped = interrupted or report.cancelled
    return exit_code(stopped, bool(report.failures or report.errors))


def _at_least_one(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of reviews (1 or more)")
    return int(text)


def cmd_export(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args))
    require_current(project)  # else the cases made with earlier primers would be left out
    return run_export(project, args)
