"""Repair jobs: several at once, on several cases, cancellable.

An engine that computes on this machine (OpenCV) runs in a worker process, where it cannot
hold the window's interpreter and a cancel ends it at once; one that waits on a network
(Gemini) runs on this pool's threads. A job gets copies of what it needs (the case as
loaded, the box, the engine) and writes only its preview file; the review is updated on the
GUI thread when it lands, whether or not the reviewer is still on that case.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from PySide6.QtCore import QObject, Signal

from sabre_desk.core.case.project import Case
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.jobs.process_pool import ASKED_FOR
from sabre_desk.core.repair import repairs
from sabre_desk.engines.base import RepairCancelledError, RepairEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.gui.machinery.workers import Worker, screen_pool


@dataclass
class RepairJob:
    id: int
    case_id: str
    role: ImageRole
    engine: str
    box: tuple[float, float, float, float]
    variant: int = 0  # which of the engine's fills of the box (``RepairOrder.variant``)
    cancel: threading.Event = field(default_factory=threading.Event)
    worker: Worker | None = None
    runner: RepairEngine | None = None  # the engine object; the job closes it when it ends
    stop: Callable[[], None] | None = None  # ends it in its worker process


class RepairJobs(QObject):
    started = Signal(object)  # RepairJob
    landed = Signal(object, object, str)  # RepairJob, RepairRecord, the outcome in one line
    failed = Signal(object, str)  # RepairJob, message
    cancelled = Signal(object)  # RepairJob
    count_changed = Signal(int)

    def __init__(
        self, pool_size: int, processes: ProcessJobs | None = None, parent: QObject | None = None
    ):
        super().__init__(parent)
        self.processes = processes
        # repairs on threads (a model's): asked for and waited on, as the images on screen
        self.pool = screen_pool(self, max(1, pool_size))
        self.jobs: dict[int, RepairJob] = {}
        self._ids = itertools.count(1)

    def submit(
        self,
        case: Case,
        role: ImageRole,
        order: RepairOrder,
        engine: RepairEngine,
        stands_in_for: str | None = None,
    ) -> RepairJob:
        """Run *engine* on the box; *stands_in_for*: it is the quick preview of that engine."""
        job = RepairJob(next(self._ids), case.case_id, role, engine.name, order.box, order.variant)
        job.runner = engine
        # The worker gets its own copy: the reviewer keeps editing the live case meanwhile.
        snapshot = replace(
            case,
            images=dict(case.images),
            image_problems=dict(case.image_problems),
            review=case.review.model_copy(deep=True),
        )
        self.jobs[job.id] = job
        if self.processes is not None and engine.cpu_bound:

            def done(result: tuple | None, exc: Exception | None) -> None:
                if exc is None:
                    self._on_returned(job, result or ())
                else:
                    self._on_errored(job, exc)

            args = (snapshot, role, order, engine, None, stands_in_for)
            # the reviewer waits for it: before every sweep's job (change maps at 0, previews
            # at -10, the engine's warm-up at -1), and run at the priority of what is watched
            job.stop = self.processes.submit(repairs.make_preview, args, done, ASKED_FOR)
        else:
            worker = Worker(
                repairs.make_preview, snapshot, role, order, engine, job.cancel, stands_in_for
            )
            worker.returned.connect(lambda result, j=job: self._on_returned(j, result))
            worker.errored.connect(lambda exc, j=job: self._on_errored(j, exc))
            job.worker = worker
            worker.start(self.pool)
        self.started.emit(job)
        self.count_changed.emit(len(self.jobs))
        return job

    def cancel(self, job_id: int) -> None:
        job = self.jobs.get(job_id)
        if job is None:
            return
        job.cancel.set()
        if job.stop is not None:
            job.stop()  # its worker process ends; the pool reports it cancelled
        elif job.worker is not None and job.worker.withdraw():
            self._finish(job)  # had not started: it never will
            self.cancelled.emit(job)

    def computing(self) -> bool:
        """Any repair on its way in the worker processes (queued or running); one waiting on
        a model's reply takes no core."""
        return any(job.stop is not None for job in self.jobs.values())

    def for_case(self, case_id: str) -> list[RepairJob]:
        return [j for j in self.jobs.values() if j.case_id == case_id]

    def for_box(
        self, case_id: str, role: ImageRole, box: tuple[float, float, float, float]
    ) -> list[RepairJob]:
        """The repairs of one box still on their way."""
        key = tuple(box)
        return [j for j in self.for_case(case_id) if j.role == role and j.box == key]

    def variants_running(
        self, case_id: str, role: ImageRole, box: tuple[float, float, float, float], engine: str
    ) -> list[int]:
        """The fills of one box by one engine still computing: a repair asked for twice
        before the first lands is another fill too."""
        return [j.variant for j in self.for_box(case_id, role, box) if j.engine == engine]

    def _finish(self, job: RepairJob) -> None:
        self.jobs.pop(job.id, None)
        if job.runner is not None:
            job.runner.close()
        self.count_changed.emit(len(self.jobs))

    def _on_returned(self, job: RepairJob, result: tuple) -> None:
        self._finish(job)
        if job.cancel.is_set():
            self.cancelled.emit(job)  # finished anyway; the reviewer asked not to see it
            return
        record, summary = result
        self.landed.emit(job, record, summary)

    def _on_errored(self, job: RepairJob, exc: Exception) -> None:
        self._finish(job)
        if isinstance(exc, RepairCancelledError) or job.cancel.is_set():
            self.cancelled.emit(job)
            return
        message = exc.message if isinstance(exc, ProjectError) else f"{type(exc).__name__}: {exc}"
        self.failed.emit(job, message)

    def shutdown(self, wait_ms: int = 3000) -> None:
        for job in list(self.jobs.values()):
            job.cancel.set()
            if job.stop is not None:
                job.stop()
                self._finish(job)
            elif job.worker is not None and job.worker.withdraw():
                self._finish(job)
        self.pool.waitForDone(wait_ms)
