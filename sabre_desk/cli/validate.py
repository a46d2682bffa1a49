"""`validate`: every case checked by the one rule of validity the window, `stats` and
`export` use; exit 1 if any case is invalid."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    CliError,
    open_project,
    reviewer_name,
    upgrade_plan_of,
)
from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.git_files import git_conflicts
from sabre_desk.core.case.locks import CaseLockedError, clear_orphans
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.team.conflict_copies import find_conflict_copies, listing
from sabre_desk.ground.errors import ProjectError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "validate", parents=[common], help="check every case; exit 1 if any is invalid"
    )
    p.add_argument("project", type=Path)
    p.add_argument("--json", action="store_true", help="machine-readable report")
    p.add_argument(
        "--no-cache",
        action="store_true",
        help="decode every image again, even those decoded before (their verdicts are "
        "remembered by the files' identity)",
    )

    p.add_argument(
        "--fix",
        action="store_true",
        help="first remove what killed writes left in the cases (half-written temp copies "
        "of images, backups and the repair lock's record), listing each file removed",
    )

    p.set_defaults(run=cmd_validate)


def _rel(project: Project, file: str) -> str:
    try:
        return str(Path(file).relative_to(project.root))
    except ValueError:
        return file


def _fix(project: Project, quiet: bool) -> list[str]:
    """--fix: the temps of killed accepts, reverts and recoveries, case by case, each under
    the case's image lock (a case a window is repairing now is skipped, said on stderr)."""
    removed: list[str] = []
    for folder in sorted(project.cases_dir.iterdir()) if project.cases_dir.is_dir() else []:
        if folder.name.startswith(".") or folder.is_symlink() or not folder.is_dir():
            continue
        try:
            gone = clear_orphans(folder)
        except CaseLockedError as exc:
            print(f"sabre-desk: {folder.name}: {exc.reason}", file=sys.stderr)
            continue
        except ProjectError as exc:
            print(f"sabre-desk: {exc.message}", file=sys.stderr)
            continue
        for path in gone:
            removed.append(_rel(project, str(path)))
            if not quiet:
                print(f"{'REMOVED':8} {removed[-1]}: left by a killed write")
    if not quiet and not removed:
        print("--fix: nothing left by killed writes")
    return removed


def cmd_validate(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args))
    upgrade = upgrade_plan_of(project)
    if upgrade.needed:  # its cases would be judged by rules they were not made for
        if not args.json:
            raise CliError(upgrade.need_line(), EXIT_PROBLEMS)
        # one JSON object: the report carries the error (as every --json error does)
        refused = {"project": str(project.root), "valid": False, "upgrade": upgrade.to_json()}
        error = {"error": upgrade.need_line(), "exit_code": EXIT_PROBLEMS}
        print(json.dumps({**refused, **error}, indent=2))
        print(f"sabre-desk: error: {upgrade.need_line()}", file=sys.stderr)
        return EXIT_PROBLEMS
    removed = _fix(project, quiet=args.json) if args.fix else None
    cache = DecodeCache.disabled(project.root) if args.no_cache else None
    report = validate_project(project, cache=cache)
    copies = find_conflict_copies(project.root)
    unmerged = git_conflicts(project.root)  # a `git merge` stopped on them
    if args.json:
        found = [copy.to_json(project.root) for copy in copies]
        git = [{"file": name, "settle": how} for name, how in unmerged]
        out = {**report.to_json(), "conflict_copies": found, "git_conflicts": git}
        if removed is not None:
            out["removed"] = removed
        print(json.dumps(out, indent=2))
        return EXIT_OK if report.valid and not unmerged else EXIT_PROBLEMS
    for problem in report.project_problems:
        print(f"{problem.severity.upper():8} {_rel(project, problem.file)}: {problem.reason}")
    for case in report.cases:
        if not case.problems:
            continue
        print(f"{'INVALID' if not case.valid else 'WARNING':8} {case.case_id}")
        for problem in case.problems:
            mark = "" if problem.severity == "error" else "(warning) "
            print(f"         {mark}{_rel(project, problem.file)}: {problem.reason}")
    for line in listing(copies, project.root):  # never a problem: a second version to settle
        print(line)
    for name, how in unmerged:
        print(f"{'CONFLICT':8} {name}: {how}")
    total, bad = len(report.cases), len(report.invalid_cases)
    verdict = "all valid" if report.valid else f"{bad} invalid"
    print(
        f"{project.name} ({project.root}): {total} cases, {verdict}"
        + (" [read-only]" if project.read_only else "")
    )
    return EXIT_OK if report.valid and not unmerged else EXIT_PROBLEMS
