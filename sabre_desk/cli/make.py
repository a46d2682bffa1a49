"""`sabre-desk init` and `import`: a new, empty project, and cases brought into it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, open_project
from sabre_desk.core.making.importing import PAIR_SUFFIXES, import_cases
from sabre_desk.core.making.new_project import init_project
from sabre_desk.ground.errors import ProjectError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "init",
        help="make a new, empty project",
        description="Write sabre-project.json and an empty cases/ folder into PROJECT (a new "
        "or empty folder).",
    )
    p.add_argument("project", type=Path, help="the folder to make the project in")
    p.add_argument("--name", help="the project's name (default: the folder's name)")
    p.add_argument(
        "--primer",
        metavar="P",
        help="the Test Primer whose rules apply to its cases (see `sabre-desk primer list`)",
    )
    p.set_defaults(run=run_init)

    pair = " + ".join(f"NAME{suffix}.png" for suffix in PAIR_SUFFIXES.values())
    p = sub.add_parser(
        "import",
        help="bring in cases made elsewhere (a JSONL of specs, or a folder of images)",
        description="SOURCE is a JSONL file (one specification a line, with "
        '"images": {"base": PATH, "edited": PATH} or {"image": PATH}, paths relative to the '
        f'file, optional "case_id") or a folder where NAME.json is the spec of {pair} (a '
        "pair) or NAME.png (a single image). Every row that fails is listed with its line "
        "and reason; the valid ones are imported; running it again changes nothing. Exit 0 "
        "if every row was imported (or already there), 1 if some failed.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("source", type=Path, help="a .jsonl file or a folder")
    p.add_argument("--dry-run", action="store_true", help="check every row, write nothing")
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.set_defaults(run=run_import)


def run_init(args: argparse.Namespace) -> int:
    try:
        root = init_project(args.project, args.name, args.primer)
    except ProjectError as exc:
        raise CliError(exc.message, EXIT_USAGE) from exc
    print(f"new project at {root.absolute()}; add cases to {root / 'cases'} and open it with:")
    print(f"  sabre-desk open {root}")
    return EXIT_OK


def run_import(args: argparse.Namespace) -> int:
    project = open_project(args.project, "import", index=False)
    if project.read_only:
        raise CliError(f"{project.root}: the project folder is read-only", EXIT_PROBLEMS)
    report = import_cases(project.root, args.source, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for where, reason in report.problems:
            print(f"{where}: {reason}", file=sys.stderr)
        verb = "would import" if args.dry_run else "imported"
        print(
            f"{verb} {len(report.imported)} cases, {len(report.unchanged)} already there, "
            f"{len(report.problems)} failed"
        )
    return EXIT_PROBLEMS if report.problems else EXIT_OK
