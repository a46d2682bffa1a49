"""The model work running in the background, Qt-free: what each job is, how far it got,
and its Cancel.

Whoever runs a job (screening, making images, writing specifications) puts it on the board
and reports to it; the views (the status bar, the Pipeline panel) subscribe to the board and
to each job, so a job started from a menu shows, with its Cancel, wherever a job is shown,
and nothing but its runner knows how it runs. Every method is called on one thread (the
window's); events are delivered synchronously.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum

from sabre_desk.core.jobs.events import Event


class JobKind(StrEnum):
    """One job of each kind runs at a time."""

    SCREENING = "screening"
    IMAGES = "images"
    SPECS = "specs"
    EVALUATION = "evaluation"


class Job:
    """A running job: its title, its progress and how to cancel it."""

    def __init__(self, kind: JobKind, title: str, cancel: Callable[[], None]) -> None:
        self.kind, self.title = kind, title
        self._cancel = cancel
        self.done = 0
        self.total = 0  # 0: not known yet
        self.detail = ""  # the last thing done, in words
        self.cancelling = False
        self.changed: Event[[]] = Event()

    def advance(self, done: int, total: int, detail: str = "") -> None:
        self.done, self.total = done, total
        if detail:
            self.detail = detail
        self.changed.emit()

    def cancel(self) -> None:
        """Ask the runner to stop; the job stays on the board until it has."""
        if self.cancelling:
            return
        self.cancelling = True
        self._cancel()
        self.changed.emit()


class JobBoard:
    def __init__(self) -> None:
        self.jobs: list[Job] = []
        self.added: Event[[Job]] = Event()
        self.ended: Event[[Job]] = Event()

    def running(self, kind: JobKind) -> Job | None:
        return next((job for job in self.jobs if job.kind is kind), None)

    def start(self, kind: JobKind, title: str, cancel: Callable[[], None]) -> Job:
        if self.running(kind) is not None:
            raise ValueError(f"a {kind.value} job is already running")
        job = Job(kind, title, cancel)
        self.jobs.append(job)
        self.added.emit(job)
        return job

    def end(self, job: Job) -> None:
        if job in self.jobs:
            self.jobs.remove(job)
            self.ended.emit(job)
