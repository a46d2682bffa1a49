"""What every command module shares: exit codes, the one-line error, the reviewer option."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from sabre_desk.core.project import MANIFEST_NAME, Project
from sabre_desk.ground.errors import NotAProjectError
from sabre_desk.settings import load_settings, resolve_reviewer

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL, EXIT_INTERRUPTED = 70, 130


class CliError(Exception):
    """A user-facing failure: printed as one line, exits with *code*."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def reviewer_option() -> argparse.ArgumentParser:
    """The ``--reviewer`` option, as a parent for the commands that act as someone."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--reviewer",
        metavar="NAME",
        help="your reviewer name (default: settings file, else your login)",
    )
    return common


def reviewer_name(args: argparse.Namespace) -> str:
    settings, warning = load_settings()
    if warning:
        print(f"sabre-desk: {warning}", file=sys.stderr)
    try:
        return resolve_reviewer(getattr(args, "reviewer", None), settings)
    except ValueError as exc:
        raise CliError(f"--reviewer: {exc}") from exc


def open_project(path: Path, reviewer: str, index: bool = True) -> Project:
    """The project at *path*, or a one-line usage error that says how to get one."""
    try:
        return Project.open(path, reviewer, index=index)
    except NotAProjectError as exc:
        hint = "; `sabre-desk demo` makes one to try" if MANIFEST_NAME in exc.reason else ""
        raise CliError(exc.message + hint) from exc
