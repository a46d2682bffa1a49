"""The command line's entry: the parser built from every command group, and `main`, which
turns every failure into one line on stderr and an exit code.

Each command group is a module of this package with ``register(sub, common)``, adding its
subcommands and naming each one's handler with ``set_defaults(run=...)``; they are listed
once, statically, in ``COMMAND_GROUPS`` (the order is the order of ``--help``). Qt is
imported only by the commands that open a window, so every other command runs on a server
without a display. Exit codes: 0 success, 1 problems found, 2 bad usage or not a project
(or not a release), 70 an internal error, 130 interrupted, 141 the reader of the output
went away (``| head``).
"""

from __future__ import annotations

import argparse
import difflib
import json
import logging
import os
import signal
import stat
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn, TextIO

from sabre_desk import __version__
from sabre_desk.app_log import configure_logging
from sabre_desk.cli import (
    audit,
    cache,
    diff,
    fake_server,
    generate,
    make,
    merge,
    primer,
    release,
    repair,
    screen,
    stats,
    study,
    team,
    upgrade,
    validate,
    window,
)
from sabre_desk.cli.common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_PROBLEMS,
    EXIT_USAGE,
    CliError,
    reviewer_option,
)
from sabre_desk.ground.errors import ProjectError
from sabre_desk.settings import write_crash_log

#: Every command group, in the order ``sabre-desk --help`` lists their commands.
COMMAND_GROUPS = (
    window,
    validate,
    repair,
    diff,
    release,
    audit,
    primer,
    stats,
    make,
    generate,
    study,
    team,
    merge,
    cache,
    screen,
    upgrade,
    fake_server,
)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors a ``--json`` run also gets as JSON on stdout
    (the subcommands' parsers are of this class too: argparse makes them from their parent's)."""

    def error(self, message: str) -> NoReturn:
        if "--json" in sys.argv[1:] or _JSON_RUN[0]:
            _json_error(message, EXIT_USAGE)
        super().error(message)


#: Whether the command line being run asked for --json (set by ``_main`` before parsing, so
#: that a usage error of an in-process run is reported in JSON as well).
_JSON_RUN = [False]


def build_parser() -> argparse.ArgumentParser:
    """The parser `sabre-desk` runs with (also the source of docs/commands.md)."""
    common = reviewer_option()
    parser = _Parser(
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

    for group in COMMAND_GROUPS:
        group.register(sub, common)
    return parser


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
    parser = build_parser()
    commands = _command_names(parser)
    _JSON_RUN[0] = as_json = "--json" in argv
    at = _first_word(argv)
    if at is not None and argv[at] not in commands:
        if not Path(argv[at]).exists() and (line := _not_a_command(argv[at], commands)):
            _error(line, EXIT_USAGE, as_json)
            return EXIT_USAGE
        argv.insert(at, "open")
    try:
        args = parser.parse_args(argv)
    finally:
        _JSON_RUN[0] = False
    handler = getattr(args, "run", window.cmd_open)  # no command: `sabre-desk` alone
    if args.install_desktop:
        handler = window.install_desktop_command
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    as_json = bool(getattr(args, "json", False))
    try:
        return handler(args)
    except CliError as exc:
        return _error(str(exc), exc.code, as_json)
    except ProjectError as exc:
        return _error(exc.message, EXIT_PROBLEMS, as_json)
    except OSError as exc:
        if isinstance(exc, BrokenPipeError) and _output_is_a_pipe():
            raise  # the reader of the output went away: main() ends quietly
        return _error(_io_error_line(exc), EXIT_PROBLEMS, as_json)
    except MemoryError:
        line = "out of memory; close other programs or work on fewer cases at once"
        return _error(line, EXIT_PROBLEMS, as_json)
    except KeyboardInterrupt:
        return _error(
            "interrupted; nothing half-written was left behind", EXIT_INTERRUPTED, as_json
        )
    except Exception as exc:
        logging.getLogger("sabre_desk").exception("internal error")
        log = write_crash_log(exc)
        where = f"; details in {log}" if log else ""
        line = f"internal error ({type(exc).__name__}: {exc}){where}"
        return _error(line, EXIT_INTERNAL, as_json)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _command_names(parser: argparse.ArgumentParser) -> list[str]:
    for action in parser._subparsers._group_actions if parser._subparsers else []:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices)
    return []


def _first_word(argv: list[str]) -> int | None:
    """Where the command (or the project of `sabre-desk PROJECT`) stands: after the options
    given before it (``--reviewer NAME`` takes the next word); None when there is none."""
    at = 0
    while at < len(argv) and argv[at].startswith("-"):
        at += 2 if argv[at] == "--reviewer" else 1
    return at if at < len(argv) else None


def _not_a_command(word: str, commands: list[str]) -> str | None:
    """Why *word* (neither a command nor an existing path) is not taken for a project to
    open: a near miss of a command, or a bare word that names nothing; None for a path
    (``open`` then says it does not exist)."""
    close = difflib.get_close_matches(word, commands, n=3, cutoff=0.6)
    if close and difflib.SequenceMatcher(None, word, close[0]).ratio() >= 0.75:
        return f"unknown command {word!r}; did you mean {close[0]!r}?"
    if os.sep in word or "/" in word:
        return None
    nearest = f"the nearest: {', '.join(close)}; " if close else ""
    return (
        f"{word!r} is neither a command nor a folder here; {nearest}"
        "`sabre-desk --help` lists every command"
    )


def _json_error(line: str, code: int) -> None:
    """A --json run's failure as JSON on stdout, for the script that reads it."""
    print(json.dumps({"error": line, "exit_code": code}))


def _error(line: str, code: int = EXIT_USAGE, as_json: bool = False) -> int:
    """One line on stderr (and, for a --json run, the same as JSON on stdout); *code*."""
    if as_json:
        _json_error(line, code)
    print(f"sabre-desk: error: {line}", file=sys.stderr)
    return code
