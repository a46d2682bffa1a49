"""`sabre-desk upgrade PROJECT [--dry-run] [--json]`: a project an earlier sabre-desk wrote,
brought to the current format in place (core/upgrade/upgrade.py), saying what it changed.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, CliError
from sabre_desk.core.case.manifest import PROJECT_VERSION, project_folder
from sabre_desk.core.upgrade.upgrade import UpgradeResult, upgrade_project
from sabre_desk.ground.errors import NotAProjectError

UNTOUCHED = "reviews, images, screening records and history are left as they are"


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "upgrade",
        help="bring a project an earlier sabre-desk wrote up to date (in place, with backups)",
        description="Bring a project written by an earlier sabre-desk to the current format: "
        "cases made with an earlier version of a primer get the name their task has now "
        "(attribute_count → attribute_two_property, spatial → spatial_relations for cases "
        "without the new tasks' canonical_count / lattice), and sabre-project.json records "
        "the primers its cases follow. The new files are prepared in "
        "PROJECT/.sabre-desk/upgrade-backup-<time>/ beside the old ones (kept there at the "
        "same relative path) and switched in under a journal: the project is old or new, "
        "never mixed, and a run that was killed part-way is finished by the next one. "
        "Reviews and images are never touched. A second run changes nothing. Close the "
        "project in any window first.",
    )
    p.add_argument("project", type=Path, help="project folder")
    p.add_argument("--dry-run", action="store_true", help="only say what would change")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(run=run_upgrade)


def run_upgrade(args: argparse.Namespace) -> int:
    try:
        result = upgrade_project(project_folder(args.project), dry_run=args.dry_run)
    except NotAProjectError as exc:
        raise CliError(exc.message) from exc
    if args.json:
        print(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
        return EXIT_OK
    print("\n".join(report_lines(result)))
    return EXIT_OK


def report_lines(result: UpgradeResult) -> list[str]:
    """What the run changed (or, dry, would change), a file a line."""
    plan = result.plan
    title = f"{plan.name} ({plan.root})"
    earlier = result.recovered
    finished = (
        [
            f"{title}: finished the upgrade that stopped part-way ({earlier.run}): "
            f"{len(earlier.completed)} file(s) put in place"
        ]
        if earlier.run
        else []
    )
    if not plan.changes and finished:
        return finished
    verb = "would write" if result.dry_run else "wrote"
    git = f"{verb} {', '.join(result.git_files)}: git keeps locks and caches out, merges history"
    if not plan.changes and result.git_files:
        return [f"{title}: {git}"]
    if not plan.changes:
        return [
            f"nothing to upgrade: {title} is at format {PROJECT_VERSION} and its cases "
            "follow the current primers; nothing was written"
        ]
    lines = [*finished, f"{title}: format {plan.version} → {PROJECT_VERSION}"]
    lines += [f"  {m.line()}" for m in plan.moves]
    if plan.manifest is not None:
        lines.append(f"  {plan.manifest.line()}")
    lines += [f"  not read, left as it is: {file}: {reason}" for file, reason in plan.unread]
    if result.git_files:
        lines.append(f"  {git}")
    lines.append(f"  {UNTOUCHED}")
    if result.dry_run:
        lines.append("dry run: nothing was written; run it without --dry-run to upgrade")
    else:
        backup = result.backup.relative_to(plan.root) if result.backup else None
        lines.append(
            f"upgraded: {len(result.written)} file(s) rewritten; the old ones are in {backup}/"
        )
    return lines
