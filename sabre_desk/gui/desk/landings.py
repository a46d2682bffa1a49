"""Finished repairs recorded in a case the reviewer has left, without the window waiting on
the disk.

Recording a preview saves the case's review and appends to its history, each fsynced; on
a disk busy with other writes (the repairs' own PNGs, other programs) one fsync can take
tens of milliseconds, a hitch the reviewer sees when it happens on the GUI thread (found by
``benchmarks/cpu_jobs.py --trace-stalls``). So a landing for a case not on screen is
written on a thread of its own, one at a time (two repairs of one case get distinct ids),
and reported back on the GUI thread. Before a case is opened, its landings are finished
and reported first (``settle``): the window never reads a review that is about to change
under it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThreadPool, Signal, Slot

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import RepairRecord
from sabre_desk.core.repair import repairs
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.machinery.workers import Worker

#: How long opening a case waits for a landing of its own still being written; past it the
#: case opens anyway and a save over the landing is caught as a conflict, never silent.
SETTLE_S = 10.0


@dataclass(eq=False)
class Landing:
    case_id: str
    record: RepairRecord
    summary: str  # the outcome in one line, for the status bar
    written: threading.Event = field(default_factory=threading.Event)
    case: Case | None = None  # the case as saved with the preview in it
    error: str | None = None  # why it could not be recorded
    reported: bool = False


class Landings(QObject):
    recorded = Signal(object)  # Landing, on disk (or with its error)

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._pending: list[Landing] = []

    def submit(self, case_id: str, record: RepairRecord, summary: str) -> None:
        landing = Landing(case_id, record, summary)
        self._pending.append(landing)
        worker = Worker(_write, self.project, landing)
        worker.returned.connect(self._report)
        worker.start(self.pool)

    def settle(self, case_id: str | None = None) -> None:
        """Finish and report the landings of *case_id* (of every case when None)."""
        for landing in [x for x in self._pending if case_id in (None, x.case_id)]:
            landing.written.wait(SETTLE_S)
            self._report(landing)

    @Slot(object)
    def _report(self, landing: Landing) -> None:
        if landing.reported or not landing.written.is_set():
            return
        landing.reported = True
        self._pending.remove(landing)
        self.recorded.emit(landing)


def _write(project: Project, landing: Landing) -> Landing:
    """On the landings' thread: the case read afresh, the preview added, saved."""
    try:
        case = project.load_case(landing.case_id)
        repairs.add_preview(project, case, landing.record, index=False)
        landing.case = case
    except ProjectError as exc:
        landing.error = exc.message
    except Exception as exc:  # reported like any other failure, never lost on this thread
        landing.error = f"{type(exc).__name__}: {exc}"
    finally:
        landing.written.set()
    return landing
