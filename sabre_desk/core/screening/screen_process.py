"""Screening in a child process, for the window (``core.child_job``: a spawned child, its
progress through a pipe, cancel as Ctrl+C stops the command).

While 1,000 probes are screened the window's largest stall is 15 ms with the run in a child
and 80 ms with it on a worker thread of the same interpreter (docs/performance.md, Screening).

Usage (Qt-free)::

    job = ScreenProcess(ScreenOrder(project.root, "alice", case_ids=["ctx01"]))
    job.start(on_progress, on_done)   # both called on the reader thread
    job.cancel()                      # any time; on_done still comes, with cancelled=True
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.project import Project
from sabre_desk.core.jobs.child_job import ChildFailedError, ChildJob, require
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.screening.prompts import shipped_prompts
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import (
    ScreenProgress,
    ScreenReport,
    plan_screening,
    run_screening,
)
from sabre_desk.engines.answers import AnswerEngine
from sabre_desk.engines.models import ModelNameError, parse_model
from sabre_desk.engines.providers import answerer_for


@dataclass(frozen=True)
class ScreenOrder:
    """Everything the child needs, picklable."""

    root: Path
    reviewer: str
    case_ids: list[str] | None = None
    stale_only: bool = False
    model: str = "gemini-3.5-flash"
    concurrency: int = 8
    use_cache: bool = True
    #: the server of a local: model when SABRE_DESK_LOCAL_BASE_URL names none
    local_url: str | None = None
    env: dict[str, str] = field(default_factory=dict)  # e.g. GOOGLE_GEMINI_BASE_URL


def screen_in_child(
    order: ScreenOrder, progress: Callable[[ScreenProgress], None], stop: threading.Event
) -> ScreenReport:
    """The child's run: plan, calls, writes."""
    try:
        engine: AnswerEngine = answerer_for(parse_model(order.model), None, order.local_url)
    except ModelNameError as exc:
        raise ChildFailedError(str(exc)) from None
    require(engine.unavailable_reason())
    project = Project.open(order.root, order.reviewer)
    plan = plan_screening(
        project, engine, shipped_prompts(), order.case_ids, order.stale_only, stop
    )
    report = run_screening(
        project,
        plan,
        engine,
        order.concurrency,
        RequestCache.of_project(project.root),
        Ledger.of_project(project.root),
        progress,
        stop,
        order.use_cache,
    )
    report.errors += plan.skipped
    return report


class ScreenProcess(ChildJob[ScreenOrder, ScreenProgress, ScreenReport]):
    def __init__(self, order: ScreenOrder) -> None:
        super().__init__(screen_in_child, order, order.env, "screening")
