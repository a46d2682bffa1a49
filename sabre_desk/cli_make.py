"""`sabre-desk init`: a new, empty project to bring cases into."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sabre_desk.cli_common import EXIT_OK, EXIT_USAGE, CliError
from sabre_desk.core.new_project import init_project
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


def run_init(args: argparse.Namespace) -> int:
    try:
        root = init_project(args.project, args.name, args.primer)
    except ProjectError as exc:
        raise CliError(exc.message, EXIT_USAGE) from exc
    print(f"new project at {root.absolute()}; add cases to {root / 'cases'} and open it with:")
    print(f"  sabre-desk open {root}")
    return EXIT_OK
