"""`sabre-desk repair`: the GUI's repair, headless, writing exactly what the GUI writes.

Its ``--engine`` choices, their help and a flag for each engine's values come from the
engine registry (``add_engine_options``), so a registered engine is on the command line
with no change here.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import open_project, reviewer_name
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import comparison, repairs
from sabre_desk.core.repair.instructions import entities, instruction
from sabre_desk.engines.base import (
    EngineParam,
    EngineSettings,
    ParamKind,
    ParamValue,
    RepairEngine,
    RepairOp,
)
from sabre_desk.engines.patchmatch import fill_whole_box
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.engines.registry import (
    ENGINES,
    MissingValueError,
    default_engine,
    engine_class,
    engines_for,
    make_engine,
)
from sabre_desk.ground import limits
from sabre_desk.ground.errors import EngineUnavailableError, ReadOnlyProjectError, RepairError
from sabre_desk.imaging.blend import BlendParams
from sabre_desk.imaging.geometry import parse_box
from sabre_desk.settings import load_settings


def _engine_line(cls: type[RepairEngine]) -> str:
    needs = [f"{p.flag} {p.metavar}" for p in cls.params if p.required]
    why = cls.unavailable_reason()
    return (
        f"{cls.name}: {cls.label}"
        + (f" (needs {', '.join(needs)})" if needs else "")
        + (f" (unavailable here: {why})" if why else "")
    )


def _dest(param: EngineParam) -> str:
    return f"engine_{param.name}"


def add_engine_options(
    parser: argparse.ArgumentParser, engines: Iterable[type[RepairEngine]] | None = None
) -> None:
    """``--engine`` with the registered engines (or those given) as its choices and each
    one's label in its help, and one flag for each value an engine takes."""
    classes = list(ENGINES.values() if engines is None else engines)
    names = [cls.name for cls in classes]
    lines = "; ".join(_engine_line(cls) for cls in classes)
    parser.add_argument(
        "--engine",
        default=default_engine() if default_engine() in names else names[0],
        choices=names,
        help=f"the repair engine (default: %(default)s): {lines.replace('%', '%%')}",
    )
    takers: dict[str, tuple[EngineParam, list[str]]] = {}
    for cls in classes:
        for param in cls.params:
            takers.setdefault(param.name, (param, []))[1].append(cls.name)
    for param, names in takers.values():
        parser.add_argument(
            param.flag,
            dest=_dest(param),
            metavar=param.metavar,
            help=f"{param.help}, for --engine {' or '.join(names)}".replace("%", "%%"),
        )


def engine_values(
    args: argparse.Namespace, cls: type[RepairEngine]
) -> dict[str, ParamValue | None]:
    """The values given on the command line for the parameters of ``cls``."""
    values: dict[str, ParamValue | None] = {}
    for param in cls.params:
        value = getattr(args, _dest(param), None)
        values[param.name] = Path(value) if value and param.kind is ParamKind.IMAGE_FILE else value
    return values


def engine_from_args(
    args: argparse.Namespace, settings: EngineSettings | None = None
) -> RepairEngine:
    """The engine ``--engine`` names, made with its flags; a reason a person can act on
    (the flag to give, the key to set) when it cannot run."""
    cls = engine_class(args.engine)
    try:
        return make_engine(args.engine, settings=settings, **engine_values(args, cls))
    except MissingValueError as exc:
        hint = f" (give it with {exc.param.flag} {exc.param.metavar})"
        raise RepairError(f"--engine {args.engine}: {exc.reason}{hint}") from None
    except EngineUnavailableError as exc:
        raise RepairError(f"--engine {args.engine}: {exc.reason}") from None


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
    op = RepairOp(args.op)
    if op not in engine_class(args.engine).ops:
        able = ", ".join(f"--engine {cls.name}" for cls in engines_for(op)) or "none"
        raise RepairError(
            f"--op {op.value}: {args.engine} cannot {op.value}; engines that can: {able}"
        )
    settings, _ = load_settings()
    engine = engine_from_args(args, settings)
    if args.fill_box:
        engine = fill_whole_box(engine)
    source, target = entities(case.spec)
    text = args.instruction or instruction(op, source, target, args.refine)
    too_long = limits.INSTRUCTION.problem(len(text))  # refused before any file is made
    if too_long is not None:
        raise RepairError(f"--instruction: {too_long}")
    params = BlendParams(
        margin_fraction=args.margin if args.margin is not None else 0.5,
        grow_px=args.grow,
        feather_px=args.feather,
    )
    # a repair of a box repaired before is the engine's next fill of it, as in the window
    variant = comparison.next_variant(case.review.repairs, role, box, engine.name)
    order = RepairOrder(box, op, text, params, variant)
    try:
        record, outcome = repairs.compute_preview(case, role, order, engine)
    finally:
        engine.close()
    repairs.add_preview(project, case, record)
    print(f"preview {record.id} ({comparison.made_by(record)}): {case.folder / record.preview}")
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
            f"accepted {record.id} as {project.reviewer}: {role.value} image replaced, "
            f"the original kept at "
            f"{case.folder / (record.backup or '')}; the case needs a recheck"
        )
    return 0


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "repair",
        parents=[common],
        help="repair a box of a case's image (writes a preview; --accept)",
    )
    p.add_argument("project", type=Path)
    p.add_argument("case")
    p.add_argument("--role", default="edited", choices=["base", "edited", "image"])
    p.add_argument(
        "--box",
        required=True,
        metavar="x0,y0,x1,y1",
        help="normalized box, e.g. 0.4,0.55,0.52,0.63",
    )
    p.add_argument("--op", default="remove", choices=[op.value for op in RepairOp])
    add_engine_options(p)
    p.add_argument(
        "--instruction",
        metavar="TEXT",
        help="the whole instruction (default: the operation's template)",
    )
    p.add_argument("--refine", metavar="TEXT", default="", help="added to the template")
    p.add_argument("--margin", type=float, help="context margin, as a share of the box")
    p.add_argument("--grow", type=int, help="mask growth in pixels")
    p.add_argument("--feather", type=int, help="mask fall-off in pixels")
    p.add_argument(
        "--fill-box",
        action="store_true",
        help="fill every pixel of the box (--engine patchmatch fills only what stands out "
        "in it by default; the other engines always fill the whole box)",
    )
    p.add_argument("--accept", action="store_true", help="accept the preview at once")
    p.set_defaults(run=cmd_repair)


def cmd_repair(args: argparse.Namespace) -> int:
    return run_repair_command(open_project(args.project, reviewer_name(args)), args)
