"""The commands that open the window: `open` (and plain `sabre-desk PROJECT`), `demo`, and
`--install-desktop`.

Qt is imported only inside the handlers, so every other command runs on a server with no
display; before Qt is loaded, the reason no window can open here is said in one line
instead of Qt's abort over a plugin.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import importlib.util
import os
import re
import sys
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, CliError, open_project
from sabre_desk.cli.common import reviewer_name as _reviewer
from sabre_desk.core.case.manifest import project_folder
from sabre_desk.core.case.project import MANIFEST_NAME
from sabre_desk.ground.errors import ProjectError
from sabre_desk.settings import load_settings

DEFAULT_DEMO_DIR = "sabre-desk-demo"


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "open", parents=[common], help="open a project (or an evaluation's results) in the window"
    )
    p.add_argument(
        "project",
        nargs="?",
        type=Path,
        help="project folder, or an evaluation folder (what `evaluate` wrote): its results",
    )
    p.add_argument("--case", metavar="ID", help="case to show first")
    p.add_argument(
        "--screenshot", metavar="PNG", type=Path, help="render the window offscreen to PNG and exit"
    )
    p.add_argument(
        "--size",
        metavar="WxH",
        type=_window_size,
        default=(1560, 900),
        help="window size for --screenshot (default 1560x900; e.g. 1366x768 for a laptop)",
    )
    p.set_defaults(run=cmd_open)

    p = sub.add_parser("demo", parents=[common], help="write the demo project and open it")
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path(DEFAULT_DEMO_DIR),
        help=f"where to write it (default: ./{DEFAULT_DEMO_DIR})",
    )
    p.add_argument("--no-open", action="store_true", help="only write the project")
    p.set_defaults(run=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    from sabre_desk.demo.writer import write_demo_project

    dest: Path = args.dir.expanduser().absolute()
    reviewer = _reviewer(args)
    if (dest / MANIFEST_NAME).is_file():
        print(f"demo project already at {dest}; opening it (nothing regenerated)")
    else:
        try:
            write_demo_project(dest)
        except ProjectError as exc:
            raise CliError(exc.message) from exc
        print(f"demo project written to {dest}")
    if args.no_open:
        return EXIT_OK
    return _run_gui(dest, reviewer, None, None)


def cmd_open(args: argparse.Namespace) -> int:
    reviewer = _reviewer(args)
    project = getattr(args, "project", None)
    if project is None and args.command is None:
        project = _last_project()  # plain `sabre-desk` picks up where the reviewer left off
    if project is not None:
        project = project_folder(project)
    case = getattr(args, "case", None)
    if project is not None and _is_evaluation(project):
        return _run_gui(
            None,
            reviewer,
            None,
            getattr(args, "screenshot", None),
            getattr(args, "size", None),
            evaluation=project,
        )
    if project is not None:  # fail fast, in the terminal (the window reads the index itself)
        opened = open_project(project, reviewer, index=False)
        if case is not None and not (opened.cases_dir / case).is_dir():
            raise CliError(f"--case: no case {case!r} in {opened.root}", EXIT_PROBLEMS)
    return _run_gui(
        project,
        reviewer,
        getattr(args, "case", None),
        getattr(args, "screenshot", None),
        getattr(args, "size", None),
    )


def _is_evaluation(folder: Path) -> bool:
    """An evaluation folder, not a project: what `evaluate` writes (figures.json naming the
    release) and no project manifest."""
    return not (folder / MANIFEST_NAME).exists() and (folder / "figures.json").is_file()


def install_desktop_command(args: argparse.Namespace) -> int:
    """--install-desktop: Qt draws the icons, so the gui's installer is imported only here."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # drawing needs no screen
    from sabre_desk.gui.desktop_install import install_desktop

    for path in install_desktop():
        print(f"installed {path}")
    return 0


def _last_project() -> Path | None:
    settings, _ = load_settings()
    for path in settings.recent_projects:
        if (Path(path) / MANIFEST_NAME).is_file():
            return Path(path)
    return None


def _display_problem() -> str | None:
    """Why no window can open here, said before Qt aborts the process over it (exit 134
    with a message about a plugin), or None."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return (
            "no screen to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set); "
            "run it in a desktop session, or render the window to a file with "
            "--screenshot OUT.png"
        )
    if not os.environ.get("WAYLAND_DISPLAY"):
        missing = _missing_x11_library()
        if missing:
            return (
                f"Qt cannot load its X11 window plugin ({missing} is missing); on "
                "Debian/Ubuntu: sudo apt install libxcb-cursor0 libxcb-icccm4 "
                "libxcb-keysyms1 libxcb-shape0 libxkbcommon-x11-0"
            )
    return None


def _missing_x11_library() -> str | None:
    """The first system library Qt's X11 plugin cannot find, or None. Qt itself blames
    xcb-cursor whatever is missing, then aborts; loading the plugin here names the culprit.
    The standalone bundle carries its own xcb-cursor: there only the plugin's load decides."""
    frozen = getattr(sys, "frozen", False)
    if not frozen and ctypes.util.find_library("xcb-cursor") is None:
        return "libxcb-cursor"
    spec = importlib.util.find_spec("PySide6")
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            try:
                ctypes.CDLL(str(plugin))
            except OSError as exc:
                found = re.search(r"(lib[\w.+-]+\.so[\w.]*)", str(exc))
                return found.group(1) if found else str(exc)
    return None


def _window_size(text: str) -> tuple[int, int]:
    width, sep, height = text.lower().partition("x")
    if sep and width.isdigit() and height.isdigit() and int(width) >= 320 and int(height) >= 240:
        return int(width), int(height)
    raise argparse.ArgumentTypeError(f"{text!r} is not a size like 1366x768")


def _run_gui(
    project: Path | None,
    reviewer: str,
    case: str | None,
    screenshot: Path | None,
    size: tuple[int, int] | None = None,
    evaluation: Path | None = None,
) -> int:
    if screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = _display_problem()
    if problem:
        raise CliError(problem, EXIT_USAGE)
    from sabre_desk.gui.app import run_gui

    return run_gui(
        project, reviewer, case=case, screenshot=screenshot, size=size, evaluation=evaluation
    )
