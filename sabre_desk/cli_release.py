"""`sabre-desk export`, `verify` and `score`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sabre_desk.core.errors import ProjectError
from sabre_desk.core.export import export
from sabre_desk.core.project import Project
from sabre_desk.core.release import RELEASE, verify
from sabre_desk.core.review import Decision
from sabre_desk.core.scoring import Sample, score


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
    summary = export(project, args.out, decisions, args.name, progress=_progress_bar)
    print(
        f"exported {summary.cases} cases, {summary.questions} questions, "
        f"{summary.images} images to {summary.out}"
    )
    print(f"root sha256 {summary.root_hash}")
    for line in summary.skipped:
        print(f"  left out: {line}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    root: Path = args.out
    expected = None
    try:
        expected = json.loads((root / RELEASE).read_text(encoding="utf-8")).get("root_sha256")
    except (OSError, ValueError):
        print(
            f"warning: {root / RELEASE} is missing or unreadable; checking the manifest only",
            file=sys.stderr,
        )
    result = verify(root, expected)
    for name in result.changed:
        print(f"CHANGED  {name}")
    for name in result.missing:
        print(f"MISSING  {name}")
    for name in result.extra:
        print(f"EXTRA    {name}")
    for problem in result.problems:
        print(f"PROBLEM  {problem}")
    if result.ok:
        print(f"OK: {result.checked} files match; root sha256 {result.root_hash}")
        return 0
    print(
        f"FAILED: {len(result.changed)} changed, {len(result.missing)} missing, "
        f"{len(result.extra)} extra",
        file=sys.stderr,
    )
    return 1


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ProjectError(f"cannot read ({exc.strerror or exc})", path) from exc
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except ValueError as exc:
            raise ProjectError(f"line {number} is not JSON ({exc})", path) from exc
    return rows


def run_score(args: argparse.Namespace) -> int:
    benchmark = _read_jsonl(args.out / "benchmark.jsonl")
    predictions = _read_jsonl(args.predictions)
    by_id = {p["question_id"]: p.get("response", "") for p in predictions if "question_id" in p}
    by_index = {
        int(p["index"]): p.get("response", "")
        for p in predictions
        if "index" in p and "question_id" not in p
    }
    known = {row["question_id"] for row in benchmark}
    unknown = [q for q in by_id if q not in known]
    samples = []
    for row in benchmark:
        response = by_id.get(row["question_id"], by_index.get(row["index"]))
        samples.append(
            Sample(
                row["question_id"],
                row["group_id"],
                row["subset"],
                row["probe_id"],
                row["eval_type"],
                row["answer"],
                None if response is None else str(response),
            )
        )
    report = score(samples)
    if args.json:
        print(json.dumps({**report.to_json(), "unknown_question_ids": unknown}, indent=2))
        return 0
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
    print(
        f"{'macro average':22} {'':9} {'':6} {report.macro:7.1%}   "
        f"[{report.macro_ci[0]:.1%}, {report.macro_ci[1]:.1%}]"
    )
    print(
        f"{report.questions} questions; {report.missing} without a prediction (counted "
        f"wrong); {report.unparseable} unparseable (counted wrong)"
    )
    if unknown:
        print(
            f"{len(unknown)} predictions name questions not in this release, e.g. {unknown[0]}",
            file=sys.stderr,
        )
    return 0
