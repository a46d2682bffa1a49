"""`stats`: the project's counts (one definition, shared with the window and the release
card), each reviewer's progress and the pipeline from primer to reviewed case."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, open_project, require_current, reviewer_name
from sabre_desk.core.making.funnel import pipeline_funnel
from sabre_desk.core.release.audit import project_standing
from sabre_desk.core.team.conflict_copies import find_conflict_copies, listing
from sabre_desk.core.team.ratings import collect
from sabre_desk.core.team.stats import compute_stats, reviewer_progress
from sabre_desk.settings import load_settings


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("stats", parents=[common], help="cases per subset and decision")
    p.add_argument("project", type=Path)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run_stats)


def run_stats(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args))
    require_current(project)
    ratings = collect(project)
    stats = compute_stats(ratings)
    stats.reviewers = reviewer_progress(ratings, project.assignments, project.manifest.reviewers)
    settings, _ = load_settings()
    funnel = pipeline_funnel(
        project, settings.prices, counts=stats.counts, verdicts=ratings.verdicts
    )
    copies = find_conflict_copies(project.root)
    audit = project_standing(project)
    if args.json:
        print_json(
            {
                "project": str(project.root),
                "reviewer": project.reviewer,
                **stats.to_json(),
                "pipeline": funnel.to_json(),
                "conflict_copies": [copy.to_json(project.root) for copy in copies],
                "audit": audit.to_json(),
            }
        )
        return EXIT_OK
    print("\n".join([*stats.lines(project.name, project.reviewer), "", *funnel.lines()]))
    if copies:
        print("\n".join(["", *listing(copies, project.root)]))
    if audit.flagged:
        print(
            f"\nanswers the models dispute: {len(audit.flagged)} flagged, "
            f"{len(audit.settled)} settled, {len(audit.unsettled)} to settle"
        )
    for warning in project.warnings:
        print(f"problem: {warning.message}")
    return EXIT_OK


def print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))
