"""`audit`: the questions an evaluation's models agree on against the reference, listed, and
with ``--flag`` recorded in the project for a reviewer to settle (core/release/audit.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, open_project, reviewer_name
from sabre_desk.core.release.audit import (
    AUDIT_NAME,
    find_disputes,
    load_evaluation,
    min_models_for,
    write_flags,
)


def _at_least_one(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return value


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "audit",
        parents=[common],
        help="questions the evaluated models agree on against the reference",
        description="List the questions of an evaluation where at least --min-models models "
        "give the same answer and none gives the reference: candidates for a wrong reference. "
        "EVAL_DIR is an `evaluate` folder, or a folder of predictions files in `score`'s "
        "format (then name the release with --release). --flag records them in the "
        f"project's {AUDIT_NAME}, where `stats` counts them and `export` names those not "
        "yet settled.",
    )
    p.add_argument(
        "eval_dir",
        type=Path,
        metavar="EVAL_DIR",
        help="the evaluation's folder (or a folder of predictions files)",
    )
    p.add_argument("project", type=Path, metavar="PROJECT", help="the project to flag them in")
    p.add_argument(
        "--min-models",
        type=_at_least_one,
        metavar="N",
        help="models that must agree (default 3, or all of them when fewer were evaluated)",
    )
    p.add_argument("--release", type=Path, help="the release the predictions answer")
    p.add_argument("--flag", action="store_true", help=f"record them in PROJECT/{AUDIT_NAME}")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run_audit)


def run_audit(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args))
    evaluation = load_evaluation(args.eval_dir, args.release)
    need = min_models_for(len(evaluation.answers), args.min_models)
    disputes = find_disputes(evaluation.rows, evaluation.answers, need)
    flagged = write_flags(project.root, evaluation, disputes) if args.flag else None
    if args.json:
        print(
            json.dumps(
                {
                    "release": str(evaluation.release),
                    "release_root_sha256": evaluation.root_sha256,
                    "models": list(evaluation.answers),
                    "min_models": need,
                    "flagged_in": None if flagged is None else str(flagged),
                    "questions": [d.to_json() for d in disputes],
                },
                indent=2,
                ensure_ascii=False,
            )
        )
        return EXIT_OK
    print(
        f"{len(disputes)} question(s) where at least {need} of {len(evaluation.answers)} "
        "models agree against the reference"
    )
    for d in disputes:
        print(f"\n{d.question_id} ({d.subset}): {d.question}")
        print(f"  reference: {d.reference}")
        for model, answer in d.answers.items():
            print(f"  {model}: {answer if answer is not None else '(no answer)'}")
    if flagged is not None:
        print(f"\nflagged in {flagged}")
    return EXIT_OK
