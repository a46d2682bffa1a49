"""`sabre-desk repair`: the GUI's repair, headless, writing exactly what the GUI writes."""

from __future__ import annotations

import argparse
import sys

from sabre_desk.core import repairs
from sabre_desk.core.instructions import entities, instruction
from sabre_desk.core.project import Project
from sabre_desk.core.spec import ImageRole
from sabre_desk.engines.base import RepairOp
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.engines.registry import make_engine
from sabre_desk.ground.errors import ReadOnlyProjectError, RepairError
from sabre_desk.imaging.blend import BlendParams
from sabre_desk.imaging.geometry import parse_box
from sabre_desk.settings import load_settings


def run_repair_command(project: Project, args: argparse.Namespace) -> int:
    if project.read_only:
        raise ReadOnlyProjectError(
            "project is read-only; a repair writes its preview into the case, nothing was done",
            project.root,
        )
    case = project.load_case(args.case)
    role = ImageRole(args.role)
    if role not in case.spec.image_roles:
        roles = " or ".join(f"--role {r.value}" for r in case.spec.image_roles)
        kind = "a single-image" if len(case.spec.image_roles) == 1 else "a paired"
        raise RepairError(
            f"--role {role.value}: {case.case_id} is {kind} case; use {roles}",
            case.folder,
            case.case_id,
        )
    for line in repairs.recover(project, case) if repairs.needs_recovery(case) else []:
        print(line)
    try:
        box = parse_box(args.box)
    except ValueError as exc:
        raise RepairError(f"--box {exc}") from exc
    settings, _ = load_settings()
    engine = make_engine(args.engine, model=args.model or settings.gemini_model, file=args.file)
    reason = engine.unavailable_reason()
    if reason:
        hint = " (give it with --file IMAGE)" if args.engine == "file" else ""
        raise RepairError(f"--engine {args.engine}: {reason}{hint}")
    source, target = entities(case.spec)
    op = RepairOp(args.op)
    text = args.instruction or instruction(op, source, target, args.refine)
    params = BlendParams(
        margin_fraction=args.margin if args.margin is not None else 0.5,
        grow_px=args.grow,
        feather_px=args.feather,
    )
    order = RepairOrder(box, op, text, params)
    try:
        record, outcome = repairs.compute_preview(case, role, order, engine)
    finally:
        engine.close()
    repairs.add_preview(project, case, record)
    print(f"preview {record.id}: {case.folder / record.preview}")
    print(
        f"  patch {outcome.plan.rect.width}×{outcome.plan.rect.height} at "
        f"({outcome.plan.rect.x0}, {outcome.plan.rect.y0}), seam score {outcome.seam:.2f}"
    )
    for note in outcome.notes:
        print(f"  note: {note}")
    for warning in outcome.warnings:
        print(f"  warning: {warning}", file=sys.stderr)
    if args.accept:
        repairs.accept(project, case, record.id)
        print(
            f"accepted {record.id}: {role.value} image replaced, the original kept at "
            f"{case.folder / (record.backup or '')}; the case needs a recheck"
        )
    return 0
