"""`sabre-desk merge PROJECT COPY [--dry-run] [--json]`: the work done in a copy of the
project taken back (core/team/merge.py), then the project's counts in `stats`'s words."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, CliError, open_project, require_current, reviewer_name
from sabre_desk.core.case.manifest import project_folder
from sabre_desk.core.team.conflict_copies import settle_newest_first
from sabre_desk.core.team.merge import merge_copy
from sabre_desk.core.team.ratings import collect
from sabre_desk.core.team.stats import compute_stats, reviewer_progress
from sabre_desk.ground.errors import NotAProjectError


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "merge",
        parents=[common],
        help="take back the work done in a copy of the project",
        description="Bring the work done in COPY (a copy, clone or unzipped archive of "
        "PROJECT) into PROJECT: reviews changed only in the copy are taken; a review "
        "changed on both sides is kept beside the project's as "
        "reviews/<name>.merge-conflict-<time>.json for its reviewer to settle; history is "
        "merged event by event; an image the copy repaired is taken where PROJECT still "
        "has the one it replaced, and becomes a repair waiting on the case where both "
        "replaced it. Every rewritten file keeps its old bytes in "
        "PROJECT/.sabre-desk/merge-backup-<time>/. COPY is never written. A second run "
        "changes nothing.",
    )
    p.add_argument("project", type=Path, help="the project to bring the work into")
    p.add_argument("copy", type=Path, help="the copy the work was done in")
    p.add_argument("--dry-run", action="store_true", help="only say what it would do")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--conflict-copies",
        action="store_true",
        help="with PROJECT given twice (`merge PROJECT PROJECT --conflict-copies`): settle "
        "its conflict copies (a synced drive's or a merge's), keeping the newest version of "
        "each and archiving the others under .archive/ beside them",
    )
    p.set_defaults(run=run_merge)


def _settle_copies(root: Path, args: argparse.Namespace) -> int:
    """--conflict-copies with PROJECT given twice: only settle, newest first."""
    report = settle_newest_first(root, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({"conflict_copies": report.to_json()}, indent=2, ensure_ascii=False))
        return EXIT_OK
    print("\n".join(report.lines or ["no conflict copies to settle"]))
    if args.dry_run:
        print("nothing was written (--dry-run)")
    return EXIT_OK


def run_merge(args: argparse.Namespace) -> int:
    root = project_folder(args.project)
    if args.conflict_copies:
        if project_folder(args.copy).resolve() != root.resolve():
            raise CliError(
                "--conflict-copies settles a project's own conflict copies: give the project "
                f"twice, `sabre-desk merge {args.project} {args.project} --conflict-copies`"
            )
        return _settle_copies(root, args)
    try:
        result = merge_copy(root, project_folder(args.copy), dry_run=args.dry_run)
    except NotAProjectError as exc:
        raise CliError(exc.message) from exc
    project = open_project(root, reviewer_name(args))
    require_current(project)
    ratings = collect(project)
    stats = compute_stats(ratings)
    stats.reviewers = reviewer_progress(ratings, project.assignments, project.manifest.reviewers)
    if args.json:
        print(json.dumps({**result.to_json(), **stats.to_json()}, indent=2, ensure_ascii=False))
        return EXIT_OK
    print("\n".join([*result.lines(), "", *stats.lines(project.name, project.reviewer)]))
    return EXIT_OK
