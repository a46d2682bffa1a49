"""``--deadline`` and ``--give-up-after`` for every command that calls a model: the run
stops on its own at its deadline, or after the same failure came back N times in a row,
with one line saying why and how to resume (exit 1; what was done is kept)."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from sabre_desk.cli.common import EXIT_PROBLEMS, CliError, exit_code, in_background
from sabre_desk.core.jobs.run_guard import DEFAULT_GIVE_UP_AFTER, RunGuard, RunLimits

T = TypeVar("T")


def add_run_limit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--deadline",
        type=float,
        metavar="SECONDS",
        help="stop the whole run after this many seconds (default: no deadline)",
    )
    p.add_argument(
        "--give-up-after",
        type=int,
        default=DEFAULT_GIVE_UP_AFTER,
        metavar="N",
        help=f"stop after N calls in a row failed the same way (default {DEFAULT_GIVE_UP_AFTER})",
    )


def run_limits(args: argparse.Namespace) -> RunLimits:
    try:
        return RunLimits(args.deadline, args.give_up_after)
    except ValueError as exc:
        raise CliError(f"--deadline/--give-up-after: {exc}") from None


def guarded(
    args: argparse.Namespace, resume: str, work: Callable[[threading.Event, RunGuard], T]
) -> tuple[T | None, bool, str | None]:
    """Run *work* in the background under a guard of the command's limits; returns (its
    result, whether Ctrl+C interrupted it, why the guard stopped it or None)."""
    limits = run_limits(args)
    guards: list[RunGuard] = []

    def inner(cancel: threading.Event) -> T:
        guard = RunGuard(limits, cancel, resume)
        guards.append(guard)
        with guard.watching():
            return work(cancel, guard)

    result, interrupted = in_background(inner)
    return result, interrupted, guards[0].stop_reason if guards else None


def guarded_exit(stop_reason: str | None, interrupted: bool, cancelled: bool, failed: bool) -> int:
    """The exit code of a guarded run, after printing the guard's one line if it stopped it:
    a run that stopped on its own failed (1), it was not interrupted."""
    if stop_reason is not None and not interrupted:
        print(f"sabre-desk: {stop_reason}", file=sys.stderr)
        return EXIT_PROBLEMS
    return exit_code(interrupted or cancelled, failed)
