"""Command line: `sabre-desk [open] PROJECT`, `demo`, `validate`, `stats`.

Qt is imported only by the commands that open a window, so validation and stats run on a
server without a display. Every error is one line on stderr that names the file and what
to do; exit codes: 0 success, 1 problems found, 2 bad usage or not a project (or not a
release), 141 the reader of the output went away (``| head``).
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import difflib
import importlib.util
import json
import logging
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from sabre_desk import __version__
from sabre_desk.app_log import configure_logging
from sabre_desk.cli_common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    require_current,
    reviewer_option,
    upgrade_plan_of,
)
from sabre_desk.cli_common import (
    open_project as _open_project,
)
from sabre_desk.cli_common import (
    reviewer_name as _reviewer,
)
from sabre_desk.cli_repair import add_engine_options
from sabre_desk.core.decode_cache import DecodeCache
from sabre_desk.core.manifest import project_folder
from sabre_desk.core.project import MANIFEST_NAME, Project
from sabre_desk.core.validate import validate_project
from sabre_desk.engines.base import RepairOp
from sabre_desk.ground.errors import ProjectError
from sabre_desk.settings import load_settings, write_crash_log

DEFAULT_DEMO_DIR = "sabre-desk-demo"

#: Command groups that live in modules of their own: each adds its subcommands with
#: ``register(sub, common)`` and names its handler with ``set_defaults(run=...)``.
COMMAND_MODULES: tuple[str, ...] = (
    "sabre_desk.cli_make",
    "sabre_desk.cli_generate",
    "sabre_desk.cli_study",
    "sabre_desk.cli_team",
    "sabre_desk.cli_cache",
    "sabre_desk.cli_screen",
    "sabre_desk.cli_upgrade",
)


def _parser() -> argparse.ArgumentParser:
    common = reviewer_option()
    parser = argparse.ArgumentParser(
        prog="sabre-desk",
        description="Review, repair and curate SABRE stress-test cases, offline.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"sabre-desk {__version__}")
    parser.add_argument(
        "--install-desktop",
        action="store_true",
        help="install the launcher, the icons and the project file type for this user "
        "(Linux desktops: under $XDG_DATA_HOME, default ~/.local/share) and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("open", parents=[common], help="open a project in the workbench")
    p.add_argument("project", nargs="?", type=Path, help="project folder")
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

    p = sub.add_parser("demo", parents=[common], help="write the demo project and open it")
    p.add_argument(
        "dir",
        nargs="?",
        type=Path,
        default=Path(DEFAULT_DEMO_DIR),
        help=f"where to write it (default: ./{DEFAULT_DEMO_DIR})",
    )
    p.add_argument("--no-open", action="store_true", help="only write the project")

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
    p.add_argument("--accept", action="store_true", help="accept the preview at once")

    p = sub.add_parser(
        "diff",
        parents=[common],
        help="what changed between Base and Edited (regions, outside score)",
    )
    p.add_argument("project", type=Path)
    p.add_argument("case")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--png", type=Path, metavar="OUT", help="write the overlay picture")

    p = sub.add_parser(
        "export",
        parents=[common],
        help="write the accepted cases as a release",
        description="Write the accepted cases as a release folder. It is built in a "
        "partial folder beside OUT and renamed at the end, so OUT is absent or complete; "
        "partial folders left by a killed export are removed by the next export there.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, help="the release folder (must not exist)")
    p.add_argument(
        "--decisions",
        default="keep",
        help="final decisions to export, comma-separated (default: keep)",
    )
    p.add_argument("--name", help="release name (default: from the project name)")
    p.add_argument(
        "--link",
        action="store_true",
        help="hard-link the images instead of copying them (instant, no extra space, same "
        "disk only); an in-place edit of a released image then also changes the project's "
        "image",
    )
    p.add_argument(
        "--license",
        metavar="ID",
        help="the Hugging Face license id the dataset card declares (e.g. cc-by-4.0; "
        "default: none chosen yet)",
    )
    p.add_argument("--json", action="store_true", help="the export's report as JSON")

    p = sub.add_parser(
        "verify",
        help="check a release against its manifest",
        description="Check every file of a release against MANIFEST.sha256, the manifest "
        "against the root hash in release.json, and release.json against its own hash and "
        "counts; then that the release is usable: every image decodes fully and every row "
        "of benchmark.jsonl parses and names images the release holds. Links, unsafe "
        "manifest names and a missing release.json are failures. "
        "Exit 0 if intact and usable, 1 otherwise, 2 if OUT is missing or is a project.",
    )
    p.add_argument("out", type=Path)
    p.add_argument("--json", action="store_true", help="the verification's report as JSON")

    p = sub.add_parser("score", help="score model predictions on a release")
    p.add_argument("out", type=Path, help="the release folder")
    p.add_argument(
        "predictions",
        type=Path,
        nargs="+",
        help='JSONL: {"question_id": …, "response": …} (or "index") lines, or VLMEvalKit\'s '
        "prediction TSVs (PRED_FORMAT=tsv: index, prediction); several files are merged",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--table",
        choices=["md", "csv", "tex"],
        help="one column per predictions file (a model each, named by the file), rows as in "
        "the paper's Table 7",
    )

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

    p = sub.add_parser("stats", parents=[common], help="cases per subset and decision")
    p.add_argument("project", type=Path)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub, common)
    return parser


def _rel(project: Project, file: str) -> str:
    try:
        return str(Path(file).relative_to(project.root))
    except ValueError:
        return file


def cmd_validate(args: argparse.Namespace) -> int:
    project = _open_project(args.project, _reviewer(args))
    upgrade = upgrade_plan_of(project)
    if upgrade.needed:  # its cases would be judged by rules they were not made for
        if args.json:
            print(
                json.dumps(
                    {"project": str(project.root), "valid": False, "upgrade": upgrade.to_json()},
                    indent=2,
                )
            )
        raise CliError(upgrade.need_line(), EXIT_PROBLEMS)
    cache = DecodeCache.disabled(project.root) if args.no_cache else None
    report = validate_project(project, cache=cache)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
        return EXIT_OK if report.valid else EXIT_PROBLEMS
    for problem in report.project_problems:
        print(f"{problem.severity.upper():8} {_rel(project, problem.file)}: {problem.reason}")
    for case in report.cases:
        if not case.problems:
            continue
        print(f"{'INVALID' if not case.valid else 'WARNING':8} {case.case_id}")
        for problem in case.problems:
            mark = "" if problem.severity == "error" else "(warning) "
            print(f"         {mark}{_rel(project, problem.file)}: {problem.reason}")
    total, bad = len(report.cases), len(report.invalid_cases)
    verdict = "all valid" if report.valid else f"{bad} invalid"
    print(
        f"{project.name} ({project.root}): {total} cases, {verdict}"
        + (" [read-only]" if project.read_only else "")
    )
    return EXIT_OK if report.valid else EXIT_PROBLEMS


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
    if project is not None:  # fail fast, in the terminal (the window reads the index itself)
        opened = _open_project(project, reviewer, index=False)
        if case is not None and not (opened.cases_dir / case).is_dir():
            raise CliError(f"--case: no case {case!r} in {opened.root}", EXIT_PROBLEMS)
    return _run_gui(
        project,
        reviewer,
        getattr(args, "case", None),
        getattr(args, "screenshot", None),
        getattr(args, "size", None),
    )


def _install_desktop(args: argparse.Namespace) -> int:
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
) -> int:
    if screenshot is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    problem = _display_problem()
    if problem:
        raise CliError(problem, EXIT_USAGE)
    from sabre_desk.gui.app import run_gui

    return run_gui(project, reviewer, case=case, screenshot=screenshot, size=size)


def cmd_repair(args: argparse.Namespace) -> int:
    from sabre_desk.cli_repair import run_repair_command

    project = _open_project(args.project, _reviewer(args))
    return run_repair_command(project, args)


def cmd_diff(args: argparse.Namespace) -> int:
    from sabre_desk.cli_diff import run_diff_command

    return run_diff_command(_open_project(args.project, _reviewer(args)), args)


def cmd_export(args: argparse.Namespace) -> int:
    from sabre_desk.cli_release import run_export

    project = _open_project(args.project, _reviewer(args))
    require_current(project)  # else the cases made with earlier primers would be left out
    return run_export(project, args)


def cmd_verify(args: argparse.Namespace) -> int:
    from sabre_desk.cli_release import run_verify

    return run_verify(args)


def cmd_score(args: argparse.Namespace) -> int:
    from sabre_desk.cli_release import run_score

    return run_score(args)


def cmd_primer(args: argparse.Namespace) -> int:
    from sabre_desk.cli_primer import run_primer_command

    return run_primer_command(args)


HANDLERS = {
    "open": cmd_open,
    "demo": cmd_demo,
    "validate": cmd_validate,
    "repair": cmd_repair,
    "diff": cmd_diff,
    "export": cmd_export,
    "verify": cmd_verify,
    "score": cmd_score,
    "primer": cmd_primer,
}


def _terminate_as_interrupt(signum: int, frame: object) -> None:
    """SIGTERM (a logout, `kill`, a CI timeout) unwinds like Ctrl+C: every ``finally`` and
    ``except BaseException`` runs, so temp files and a half-written export are removed."""
    raise KeyboardInterrupt


def _io_error_line(exc: OSError) -> str:
    where = exc.filename if exc.filename is not None else None
    reason = exc.strerror or str(exc) or type(exc).__name__
    return f"{where}: {reason}" if where else reason


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Exit codes: 0 success; 1 problems found or the command failed
    (one line on stderr naming the file and the reason); 2 bad usage, or not a project or
    not a release; 70 an internal error (the details are written to a crash log); 130
    interrupted; 141 the reader of the output went away (``| head``), said nothing about."""
    try:
        try:
            return _main(argv)
        finally:
            if sys.stdout is not None:
                sys.stdout.flush()  # a reader that went away is found here, not at exit
    except BrokenPipeError:  # only ever the output's (others are reported by _main)
        return _after_the_reader_left()


def _is_a_pipe(stream: TextIO | None) -> bool:
    """Whether *stream* writes to a pipe (or socket), whose reader can go away."""
    if stream is None:
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):  # a stream with no file behind it (a test's capture)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _output_is_a_pipe() -> bool:
    """Only when the output goes to a pipe is a broken pipe its reader going away rather
    than a failure to report."""
    return _is_a_pipe(sys.stdout) or _is_a_pipe(sys.stderr)


def _after_the_reader_left() -> int:
    """`sabre-desk stats P --json | head -1`: the reader has what it wanted. What is left
    to print goes nowhere (so Python's flush at exit finds nothing to complain about), and
    the status is the one a shell reports for a Unix tool stopped by the closed pipe."""
    if _is_a_pipe(sys.stdout):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    if argv is None:  # a process of its own (tests that call main() in-process pass argv)
        configure_logging()
    argv = list(sys.argv[1:] if argv is None else argv)
    # `sabre-desk PROJECT` is short for `sabre-desk open PROJECT`.
    parser = _parser()
    commands = _command_names(parser)
    if argv and not argv[0].startswith("-") and argv[0] not in commands:
        close = difflib.get_close_matches(argv[0], commands, n=1, cutoff=0.75)
        if close and not Path(argv[0]).exists():
            _error(f"unknown command {argv[0]!r}; did you mean {close[0]!r}?")
            return EXIT_USAGE
        argv.insert(0, "open")
    args = parser.parse_args(argv)
    handler = getattr(args, "run", None) or HANDLERS[args.command or "open"]
    if args.install_desktop:
        handler = _install_desktop
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        return handler(args)
    except CliError as exc:
        _error(str(exc))
        return exc.code
    except ProjectError as exc:
        _error(exc.message)
        return EXIT_PROBLEMS
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and _output_is_a_pipe():
            raise  # the reader of the output went away: main() ends quietly
        _error(_io_error_line(exc))
        return EXIT_PROBLEMS
    except MemoryError:
        _error("out of memory; close other programs or work on fewer cases at once")
        return EXIT_PROBLEMS
    except KeyboardInterrupt:
        _error("interrupted; nothing half-written was left behind")
        return EXIT_INTERRUPTED
    except Exception as exc:
        logging.getLogger("sabre_desk").exception("internal error")
        log = write_crash_log(exc)
        where = f"; details in {log}" if log else ""
        _error(f"internal error ({type(exc).__name__}: {exc}){where}")
        return EXIT_INTERNAL
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._subparsers._group_actions if parser._subparsers else []:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return list(HANDLERS)


def _error(line: str) -> None:
    print(f"sabre-desk: error: {line}", file=sys.stderr)
