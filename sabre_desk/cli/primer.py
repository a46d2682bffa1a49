"""`sabre-desk primer list | show NAME | check FILE | new NAME`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import CliError, columns
from sabre_desk.core.case.manifest import project_folder, read_manifest
from sabre_desk.core.case.primers import Primer, PrimerLibrary, load_primer, scaffold
from sabre_desk.ground.errors import NotAProjectError


def _library(project: Path | None) -> PrimerLibrary:
    """The shipped primers and, with --project, that project's own (which must exist)."""
    if project is not None:
        project = project_folder(project)
        try:  # a wrong path is one line, never silently the shipped primers alone
            read_manifest(project)
        except NotAProjectError as exc:
            raise CliError(exc.message) from exc
    return PrimerLibrary.for_project(project)


def run_primer_command(args: argparse.Namespace) -> int:
    if args.action == "list":
        library = _library(args.project)
        rows = [
            [p.name, p.header.pressure_test_type, p.header.title, f"({p.path})"]
            for p in sorted(library.primers.values(), key=lambda p: p.name)
        ]
        for line in columns(rows):
            print(line)
        for problem in library.problems:
            print(f"unreadable: {problem.message}")
        return 1 if library.problems else 0
    if args.action == "show":
        library = _library(args.project)
        found: Primer | None = library.primers.get(args.name) or library.by_type(args.name)
        if found is None:
            names = ", ".join(sorted(library.primers))
            print(f"sabre-desk: error: no primer {args.name!r}; known: {names}", file=sys.stderr)
            return 2
        h = found.header
        print(f"{h.title}\n{found.path}\npressure_test_type: {h.pressure_test_type}")
        if h.probes:
            print("probes: " + ", ".join(f"{p.probe_id}={p.answer}" for p in h.probes))
        print("checklist:")
        for item in h.checklist:
            print(f"  [ ] {item.text}")
        print()
        print(found.design)
        return 0
    if args.action == "check":
        primer = load_primer(args.file)  # a PrimerError is printed by main() as one line
        print(
            f"OK: primer {primer.name!r} for {primer.header.pressure_test_type!r}, "
            f"{len(primer.header.checklist)} checklist items, "
            f"{len(primer.header.probes)} fixed probes"
        )
        return 0
    path = scaffold(args.name, args.dir)
    print(f"wrote {path}: fill in the task design and rules, then `sabre-desk primer check {path}`")
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("primer", help="list, show, check or create primers")
    primer = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    q = primer.add_parser("list", help="the primers a project sees")
    q.add_argument("--project", type=Path, help="include this project's own primers/")
    q = primer.add_parser("show", help="a primer's rules, checklist and task design")
    q.add_argument("name", help="primer name or pressure_test_type")
    q.add_argument("--project", type=Path)
    q = primer.add_parser("check", help="validate a primer file")
    q.add_argument("file", type=Path)
    q = primer.add_parser("new", help="write a primer template")
    q.add_argument("name")
    q.add_argument(
        "--dir",
        type=Path,
        default=Path("primers"),
        help="where to write it (default ./primers, e.g. a project's primers/)",
    )
    p.set_defaults(run=run_primer_command)
