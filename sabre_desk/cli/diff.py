"""`sabre-desk diff`: what changed between Base and Edited, outside the edit or not."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from PIL import Image

from sabre_desk.cli.common import open_project, reviewer_name
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair.changes import case_change_map
from sabre_desk.ground.errors import ProjectError
from sabre_desk.imaging.diff import overlay
from sabre_desk.imaging.io import load_image


def run_diff_command(project: Project, args: argparse.Namespace) -> int:
    case = project.load_case(args.case)
    result = case_change_map(case)
    if args.png:
        picture = overlay(load_image(case.images[ImageRole.EDITED]), result)
        out = Path(args.png)
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            Image.fromarray(picture).save(out)
        except (OSError, ValueError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise ProjectError(f"cannot write the overlay ({reason})", out) from exc
    if args.json:
        print(json.dumps({"case_id": case.case_id, **result.to_json()}, indent=2))
        return 0
    print(
        f"{case.case_id}: {len(result.regions)} changed region(s), threshold ΔE "
        f"{result.threshold:.1f}"
    )
    for note in result.notes:
        print(f"  note: {note}")
    if result.edit_box:
        box = ", ".join(f"{v:.3f}" for v in result.edit_box)
        print(f"  edit: [{box}] ({result.edit_box_source})")
    for region in result.regions:
        box = ", ".join(f"{v:.3f}" for v in region.box)
        where = "OUTSIDE the edit" if region.outside else "inside the edit"
        print(f"  [{box}]  area {region.area:.2%}  mean ΔE {region.mean_change:.1f}  {where}")
    print(f"  changed area outside the edit: {result.outside_share:.0%}")
    if result.possibly_scene_changed:
        print('  hint: changes well outside the edit: possibly "Scene changed"')
    if args.png:
        print(f"  overlay written to {args.png}")
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "diff",
        parents=[common],
        help="what changed between Base and Edited (regions, outside score)",
    )
    p.add_argument("project", type=Path)
    p.add_argument("case")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--png", type=Path, metavar="OUT", help="write the overlay picture")
    p.set_defaults(run=cmd_diff)


def cmd_diff(args: argparse.Namespace) -> int:
    return run_diff_command(open_project(args.project, reviewer_name(args)), args)
