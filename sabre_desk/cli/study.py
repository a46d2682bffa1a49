"""`sabre-desk study new | take | report`: the blind repair-method study of the paper."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    open_project,
    reviewer_name,
)
from sabre_desk.cli.repair import add_engine_options, engine_from_args
from sabre_desk.core.repair.study import (
    METHOD_NAMES,
    load_session,
    load_study,
    make_study,
    study_report,
)
from sabre_desk.engines.registry import ENGINES
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.geometry import parse_box
from sabre_desk.settings import load_settings

DEFAULT_INSTRUCTION = (
    "Remove the object inside the red box completely and fill the area so that it matches "
    "its surroundings. Change nothing else."
)


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("study", help="a blind study of repair methods (Method 1-4)")
    study = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    q = study.add_parser(
        "new",
        parents=[common],
        help="make the candidates of a study",
        description="For each case, the defect box (given, or your first box on its edited "
        "image) is repaired four ways: "
        + "; ".join(f"{k}: {v}" for k, v in METHOD_NAMES.items())
        + ". Written to PROJECT/studies/NAME/.",
    )
    q.add_argument("project", type=Path)
    q.add_argument("name", help="the study's name (letters, digits, . _ -)")
    q.add_argument(
        "--case",
        action="append",
        required=True,
        metavar="ID[=x0,y0,x1,y1]",
        help="a case and its defect box; repeat for each question",
    )
    # Every question gets its own repair, so an engine that needs a value of its own for
    # each (the file engine's image) cannot make a study.
    add_engine_options(
        q, [cls for cls in ENGINES.values() if not any(p.required for p in cls.params)]
    )
    q.add_argument("--instruction", default=DEFAULT_INSTRUCTION)
    q.set_defaults(run=run_new)
    q = study.add_parser("take", help="take a study as a participant (opens a window)")
    q.add_argument("project", type=Path)
    q.add_argument("name")
    q.add_argument("--participant", required=True, help="the participant's id")
    q.set_defaults(run=run_take)
    q = study.add_parser("report", help="votes and preferences (the paper's Table 8)")
    q.add_argument("project", type=Path)
    q.add_argument("name")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.set_defaults(run=run_report)


def _defect(text: str) -> tuple[str, tuple[float, float, float, float] | None]:
    case_id, sep, box = text.partition("=")
    if not sep:
        return case_id, None
    try:
        return case_id, parse_box(box)
    except ValueError as exc:
        raise CliError(f"--case {text}: {exc}", EXIT_USAGE) from exc


def run_new(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args))
    defects = [_defect(text) for text in args.case]
    try:
        engine = engine_from_args(args, load_settings()[0])
    except RepairError as exc:
        raise CliError(exc.reason) from None

    def progress(done: int, total: int, case_id: str) -> None:
        print(f"[{done}/{total}] {case_id}", file=sys.stderr)

    study = make_study(project, args.name, defects, engine, args.instruction, progress)
    print(
        f"study {study.name}: {len(study.questions)} questions × {len(study.methods)} methods "
        f"in {project.root / 'studies' / study.name}; participants take it with:"
    )
    print(f"  sabre-desk study take {project.root} {study.name} --participant P01")
    return EXIT_OK


def run_take(args: argparse.Namespace) -> int:
    project = open_project(args.project, "study", index=False)
    study = load_study(project, args.name)
    load_session(project, study, args.participant)  # a bad one is refused before the window
    from sabre_desk.gui.app import run_study

    return run_study(project, study, args.participant)


def run_report(args: argparse.Namespace) -> int:
    project = open_project(args.project, "study", index=False)
    study = load_study(project, args.name)
    report = study_report(project, study)
    rows: list[dict[str, Any]] = [
        {
            "method": METHOD_NAMES[m.method],
            "key": m.method,
            "votes": m.votes,
            "preference": m.share,
            "participant_mean": m.mean,
            "participant_sd": m.sd,
            "participant_min": min(m.per_participant, default=0.0),
            "participant_max": max(m.per_participant, default=0.0),
        }
        for m in report.methods
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "study": report.study,
                    "completed_sessions": report.completed,
                    "started_sessions": report.started,
                    "selections": report.selections,
                    "methods": rows,
                    "problems": report.problems,
                },
                indent=2,
            )
        )
        return _problems(report.problems)
    print(
        f"study {report.study}: {report.completed} completed sessions of {report.started} "
        f"started, {report.selections} selections"
    )
    print(f"{'Repair method':38} {'Votes':>6} {'Preference (%)':>15}   per participant")
    for row in rows:
        spread = (
            f"mean {row['participant_mean']:.1%}, SD {row['participant_sd'] * 100:.1f} pp, "
            f"range {row['participant_min']:.0%}-{row['participant_max']:.0%}"
        )
        print(f"{row['method']:38} {row['votes']:6} {row['preference'] * 100:15.1f}   {spread}")
    return _problems(report.problems)


def _problems(problems: list[str]) -> int:
    """Each problem of the report on a line of its own; exit 1 when there was any."""
    for problem in problems:
        print(problem, file=sys.stderr)
    return EXIT_PROBLEMS if problems else EXIT_OK
