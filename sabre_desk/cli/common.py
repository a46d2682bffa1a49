"""What every command module shares: exit codes, the one-line error, the reviewer option,
opening the project or the release a command names, and columns that line up."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from sabre_desk.core.case.project import MANIFEST_NAME, Project
from sabre_desk.core.upgrade.upgrade_plan import UpgradePlan, plan_upgrade
from sabre_desk.engines.gemini_call import CallCancelledError
from sabre_desk.ground.errors import NotAProjectError
from sabre_desk.ground.reading import folder_problem
from sabre_desk.settings import REVIEWER_ENV, load_settings, resolve_reviewer

EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL, EXIT_INTERRUPTED = 70, 130
#: The reader of the output went away (``| head``): what a shell reports for a Unix tool
#: stopped by the closed pipe (128 + SIGPIPE).
EXIT_BROKEN_PIPE = 141
T = TypeVar("T")


class CliError(Exception):
    """A user-facing failure: printed as one line, exits with *code*."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def reviewer_option() -> argparse.ArgumentParser:
    """The ``--reviewer`` option, as a parent for the commands that act as someone."""
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a command's parser leaves the name given before the command in place
    # (with a default it would overwrite it with None), so the flag works in either spot.
    common.add_argument(
        "--reviewer",
        metavar="NAME",
        default=argparse.SUPPRESS,
        help=f"your reviewer name, before or after the command (default: ${REVIEWER_ENV}, "
        "else the settings file, else your login)",
    )
    return common


def reviewer_name(args: argparse.Namespace) -> str:
    settings, warning = load_settings()
    if warning:
        print(f"sabre-desk: {warning}", file=sys.stderr)
    try:
        return resolve_reviewer(getattr(args, "reviewer", None), settings)
    except ValueError as exc:
        raise CliError(str(exc)) from exc


def open_project(path: Path, reviewer: str, index: bool = True) -> Project:
    """The project at *path*, or a one-line usage error that says how to get one."""
    try:
        return Project.open(path, reviewer, index=index)
    except NotAProjectError as exc:
        hint = "; `sabre-desk demo` makes one to try" if MANIFEST_NAME in exc.reason else ""
        raise CliError(exc.message + hint) from exc


def upgrade_plan_of(project: Project) -> UpgradePlan:
    """What `sabre-desk upgrade` would change in *project*, opened with its index (the
    index's types spare reading the specs no change concerns)."""
    candidates = [(e.case_id, e.subset) for e in project.entries]
    return plan_upgrade(project.root, project.manifest, candidates)


def require_current(project: Project) -> None:
    """Stop a command on a project an earlier sabre-desk wrote that does not work unchanged
    (its cases would be judged by rules they were not made for), with the one line that
    says to run `sabre-desk upgrade` and what it will change."""
    plan = upgrade_plan_of(project)
    if plan.needed:
        raise CliError(plan.need_line(), EXIT_PROBLEMS)


def release_folder(path: Path) -> Path:
    """The release folder *path* names, or a one-line usage error: a path that names
    nothing, a file, or a project (a release is what ``export`` makes of a project)."""
    problem = folder_problem(path)
    if problem:
        raise CliError(f"{path}: {problem}")
    if (path / MANIFEST_NAME).is_file():
        raise CliError(
            f"{path}: this is a project, not a release; `sabre-desk export {path} OUT` "
            "makes a release of it"
        )
    return path


def columns(rows: Sequence[Sequence[str]], gap: int = 2) -> list[str]:
    """*rows* (of equally many cells) as lines whose columns each start at the same offset:
    every column as wide as its widest cell, *gap* spaces between, the last one unpadded."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        (" " * gap).join([*(cell.ljust(w) for cell, w in zip(row, widths, strict=False)), row[-1]])
        for row in rows
    ]


def in_background(work: Callable[[threading.Event], T]) -> tuple[T | None, bool]:
    """Run *work* on a thread so that Ctrl+C (or SIGTERM) only sets its cancel event and
    waits for it to wind down; returns (its result, whether it was interrupted)."""
    cancel = threading.Event()
    box: dict[str, T] = {}
    failure: list[BaseException] = []

    def target() -> None:
        try:
            box["result"] = work(cancel)
        except BaseException as exc:  # re-raised on the main thread
            failure.append(exc)

    thread = threading.Thread(target=target, name="sabre-desk-work")
    thread.start()
    interrupted = False
    while thread.is_alive():
        try:
            thread.join(0.2)
        except KeyboardInterrupt:
            interrupted = True
            cancel.set()
            print("\nsabre-desk: stopping; answers already received are kept", file=sys.stderr)
    if failure:
        if isinstance(failure[0], CallCancelledError):
            return None, True
        raise failure[0]
    return box.get("result"), interrupted


def exit_code(stopped: bool, failed: bool) -> int:
    """A run's exit code: interrupted (Ctrl+C, SIGTERM, a cancel) before failed before ok."""
    if stopped:
        return EXIT_INTERRUPTED
    return EXIT_PROBLEMS if failed else EXIT_OK
