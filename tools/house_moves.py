"""Move modules to their rooms and rewrite every reference to them, idempotently.

The core is split into subpackages by subject and the command line is one package. This
script knows where each module lives now; run it after merging work written against the
old layout and it moves any module still at its old place and rewrites the imports,
dotted names in strings (``monkeypatch.setattr("sabre_desk.core.project.X", …)``) and file
paths in the docs. Running it twice changes nothing.

    python tools/house_moves.py             # move and rewrite
    python tools/house_moves.py --check     # exit 1 if anything still uses the old layout
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Each room of ``sabre_desk/core`` and the modules it holds.
ROOMS: dict[str, tuple[str, ...]] = {
    "case": (
        "spec",
        "review",
        "binding",
        "question_edits",
        "question_builder",
        "answer_rules",
        "scoring",
        "gate",
        "screening",
        "manifest",
        "assignments",
        "image_settings",
        "decode_cache",
        "preview_cache",
        "entry",
        "project",
        "locks",
        "validity",
        "validate",
        "primers",
        "primer_changes",
    ),
    "jobs": ("events", "child_job", "process_pool", "job_board", "memory", "ledger", "run_guard"),
    "screening": ("screen_run", "screen_batch", "screen_process", "request_cache", "prompts"),
    "team": ("final", "counts", "ratings", "agreement", "team", "stats", "activity", "live"),
    "repair": ("repairs", "instructions", "changes", "study"),
    "making": (
        "new_project",
        "importing",
        "authoring",
        "incoming",
        "spec_writer",
        "image_maker",
        "image_batch",
        "edited_maker",
        "generate_process",
        "funnel",
    ),
    "release": (
        "export",
        "export_formats",
        "staging",
        "release",
        "release_card",
        "provenance",
        "lmms_eval_task",
        "lmms_eval_hooks",
        "score_table",
        "predict",
    ),
    "upgrade": ("upgrade", "upgrade_plan"),
    "desk": ("case_editor", "case_edits", "boxes", "workbench", "review_save", "view_state"),
}

ROOM_OF = {module: room for room, modules in ROOMS.items() for module in modules}

#: The command line's modules: old top-level name -> module of the ``sabre_desk.cli`` package.
CLI_MODULES = {
    "cli_cache": "cache",
    "cli_common": "common",
    "cli_diff": "diff",
    "cli_generate": "generate",
    "cli_make": "make",
    "cli_primer": "primer",
    "cli_release": "release",
    "cli_repair": "repair",
    "cli_screen": "screen",
    "cli_study": "study",
    "cli_team": "team",
    "cli_upgrade": "upgrade",
}

#: The window's modules: old place under ``sabre_desk/gui`` -> place in its room (``shell``
#: modules stay at gui/'s top level). Only references are rewritten; the files have moved.
GUI_MODULES: dict[str, str] = {
    # the shell (gui's top level)
    "dialogs/shortcuts": "shortcuts",
    "widgets/welcome": "welcome",
    "widgets/status_labels": "status_labels",
    "dialogs/study_dialog": "study_session",
    # machinery
    **{
        m: f"machinery/{m}"
        for m in [
            "workers",
            "child_run",
            "process_jobs",
            "polling",
            "image_loader",
            "index_reader",
            "idle_sweep",
            "preview_sweep",
            "collector",
            "qimage",
            "job_views",
        ]
    },
    # desk
    **{m: f"desk/{m}" for m in ["session", "controller", "commands", "landings", "review_saver"]},
    **{
        f"canvas/{m}": f"desk/canvas/{m}"
        for m in [
            "__init__",
            "box_item",
            "compare_view",
            "image_canvas",
            "overlay_items",
            "pixmap_item",
            "rect_ops",
            "swipe",
            "zoom_view",
        ]
    },
    "widgets/fit_rows": "desk/fit_rows",
    "dialogs/buttons": "desk/buttons",
    # review
    "widgets/case_panel": "review/case_panel",
    "widgets/case_list": "review/case_list",
    "models/case_list_model": "review/case_list_model",
    "models/probe_model": "review/probe_model",
    "boxes_ui": "review/boxes_ui",
    "box_menu": "review/box_menu",
    "changes_ui": "review/changes_ui",
    "full_resolution": "review/full_resolution",
    "dialogs/conflict": "review/conflict",
    # repair
    "repair_ui": "repair/repair_ui",
    "repair_jobs": "repair/repair_jobs",
    "widgets/repair_panel": "repair/repair_panel",
    "widgets/engine_fields": "repair/engine_fields",
    "widgets/lock_banner": "repair/lock_banner",
    # team
    "team_ui": "team/team_ui",
    "dialogs/team_dialog": "team/team_dialog",
    "widgets/team_section": "team/team_section",
    "canvas/team_boxes": "team/team_boxes",
    "live_ui": "team/live_ui",
    # making and screening
    "pipeline_ui": "making/pipeline_ui",
    "widgets/pipeline_panel": "making/pipeline_panel",
    "screening_ui": "making/screening_ui",
    "dialogs/write_specs_dialog": "making/write_specs_dialog",
    "dialogs/new_case_dialog": "making/new_case_dialog",
    "dialogs/new_project_dialog": "making/new_project_dialog",
    "dialogs/make_edited": "making/make_edited",
    # evaluation and release
    "evaluate_ui": "evaluation/evaluate_ui",
    "dialogs/evaluate_dialog": "evaluation/evaluate_dialog",
    "dialogs/export_dialog": "evaluation/export_dialog",
    "dialogs/export_options": "evaluation/export_options",
}
GUI_PAIRS = sorted(
    (
        (f"{prefix}{old.replace('/', sep)}", f"{prefix}{new.replace('/', sep)}")
        for old, new in GUI_MODULES.items()
        if not old.endswith("__init__")
        for prefix, sep in (("sabre_desk.gui.", "."), ("gui/", "/"))
    ),
    key=lambda pair: -len(pair[0]),
)
GUI_OLD = re.compile(
    r"(?<![\w/.])(?:sabre_desk/)?("
    + "|".join(re.escape(old) for old, _ in GUI_PAIRS)
    + r")(?![\w/])"
)
GUI_NEW = dict(GUI_PAIRS)

TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml"}
SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache"}

DOTTED = re.compile(r"sabre_desk\.core\.(\w+)((?:\.\w+)?)(?= import (\w+))?")
SLASHED = re.compile(r"sabre_desk/core/(\w+)((?:/\w+)?)(\.py)?")
FROM_CORE = re.compile(r"^(\s*)from sabre_desk\.core import ([\w, ]+)$", re.MULTILINE)
CLI_DOTTED = re.compile(r"sabre_desk\.(cli_\w+)\b")
CLI_SLASHED = re.compile(r"sabre_desk/(cli_\w+)\.py")


def _new_dotted(match: re.Match[str]) -> str:
    first, rest, imported = match.group(1), match.group(2), match.group(3)
    if first in ROOMS and (_in_room(first, rest[1:]) or (not rest and _in_room(first, imported))):
        return match.group(0)  # already sabre_desk.core.<room>.<module> or "from <room> import"
    if first in ROOM_OF:
        return f"sabre_desk.core.{ROOM_OF[first]}.{first}{rest}"
    return match.group(0)


def _in_room(room: str, module: str | None) -> bool:
    """Whether *module* is one of *room*'s, listed or already there (a module added since)."""
    if not module:
        return False
    return module in ROOMS[room] or (ROOT / "sabre_desk" / "core" / room / f"{module}.py").exists()


def _new_slashed(match: re.Match[str]) -> str:
    first, rest, suffix = match.group(1), match.group(2), match.group(3) or ""
    if first in ROOMS and (_in_room(first, rest[1:]) or (not rest and not suffix)):
        return match.group(0)
    if first in ROOM_OF and not rest:
        return f"sabre_desk/core/{ROOM_OF[first]}/{first}{suffix}"
    return match.group(0)


def _new_from_core(match: re.Match[str]) -> str:
    indent, names = match.group(1), [n.strip() for n in match.group(2).split(",") if n.strip()]
    if any(name in ROOMS for name in names):
        return match.group(0)
    by_room: dict[str, list[str]] = {}
    for name in names:
        by_room.setdefault(ROOM_OF.get(name.split(" as ")[0], ""), []).append(name)
    lines = []
    for room, members in by_room.items():
        where = f"sabre_desk.core.{room}" if room else "sabre_desk.core"
        lines.append(f"{indent}from {where} import {', '.join(members)}")
    return "\n".join(lines)


def _new_gui(match: re.Match[str]) -> str:
    whole, old = match.group(0), match.group(1)
    return whole[: len(whole) - len(old)] + GUI_NEW[old]


def rewrite(text: str) -> str:
    text = GUI_OLD.sub(_new_gui, text)
    text = FROM_CORE.sub(_new_from_core, text)
    text = DOTTED.sub(_new_dotted, text)
    text = SLASHED.sub(_new_slashed, text)
    text = CLI_DOTTED.sub(
        lambda m: f"sabre_desk.cli.{CLI_MODULES.get(m.group(1), m.group(1))}", text
    )
    return CLI_SLASHED.sub(
        lambda m: f"sabre_desk/cli/{CLI_MODULES.get(m.group(1), m.group(1))}.py", text
    )


def _git_mv(old: Path, new: Path) -> None:
    new.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "mv", str(old), str(new)], cwd=ROOT, check=True)


def move_modules() -> list[str]:
    moved = []
    core = ROOT / "sabre_desk" / "core"
    for module, room in ROOM_OF.items():
        old, new = core / f"{module}.py", core / room / f"{module}.py"
        if old.exists() and not new.exists():
            _git_mv(old, new)
            moved.append(f"core/{module}.py -> core/{room}/{module}.py")
    for room in ROOMS:
        init = core / room / "__init__.py"
        if not init.exists():
            sys.exit(f"{init} is missing: write the room's docstring first")
    package = ROOT / "sabre_desk"
    for old_name, new_name in CLI_MODULES.items():
        old, new = package / f"{old_name}.py", package / "cli" / f"{new_name}.py"
        if old.exists() and not new.exists():
            _git_mv(old, new)
            moved.append(f"{old_name}.py -> cli/{new_name}.py")
    strays = sorted(p.name for p in core.glob("*.py") if p.name != "__init__.py")
    if strays:
        print("modules with no room yet (add them to ROOMS):", ", ".join(strays))
    return moved


def text_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        if any(part in SKIP_DIRS for part in path.relative_to(ROOT).parts):
            continue
        if path.is_file() and path.suffix in TEXT_SUFFIXES and path.name != "house_moves.py":
            files.append(path)
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="report, change nothing")
    args = parser.parse_args()
    if not args.check:
        for line in move_modules():
            print("moved", line)
    stale = []
    for path in text_files():
        text = path.read_text(encoding="utf-8")
        new = rewrite(text)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new, encoding="utf-8")
    for path in stale:
        print(("uses the old layout: " if args.check else "rewrote ") + str(path))
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
