"""The full check of every case, behind the index: the window's list and counts say what
`validate` and `stats` say.

The index is a quick look at each case's files; the full check (``core.case.validity``:
schema, primer, reviews, screening, every image decoded) is `validate`'s rule. Once the
index is whole, this sweep checks every case on a background thread, a few at a time and
only while the reviewer is not moving from case to case, and records each verdict into the
index (``Project.record_verdict``) on the window's thread, so the list's marks, reasons and
counts follow. A first pass decodes nothing (a broken spec or screening file is found
across the whole project in seconds); a second decodes each image once (a truncated image
is found; the decode cache remembers each file's verdict, so a later opening is quick).
Until a case's images are checked its entry is "unchecked", and the footer says how many.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, QThreadPool, Signal

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.project import Project, Verdict
from sabre_desk.core.case.validity import Validity, verdicts
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.gui.machinery.workers import Worker

SWEEP_CHUNK = 32  # cases per delivery: the list follows, and a stop waits for little
SWEEP_WAIT_S = 1.0  # the longest a case waits while the reviewer moves


@dataclass
class _Run:
    """One project's sweep: its passes still to go, the cases of this pass, how far."""

    project: Project
    passes: list[Validity]
    ids: list[str]
    close: Callable[[], None]
    at: int = 0
    cancel: threading.Event = field(default_factory=threading.Event)


class VerdictSweep(QObject):
    finished = Signal()  # every case of the project has its full verdict

    def __init__(self, workbench: Workbench, parent: QObject | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._run: _Run | None = None

    def start(self, project: Project) -> None:
        """Check every case of *project* (the last project's sweep stops)."""
        self.stop(wait=False)
        cache = DecodeCache.for_project(project.root)
        passes = [Validity(project, cache=cache, decode=False), Validity(project, cache=cache)]
        ids = [e.case_id for e in project.entries]
        self._run = _Run(project, passes, ids, cache.close)
        self._next(self._run)

    def _next(self, run: _Run) -> None:
        if run.cancel.is_set():
            run.close()
            return
        if run.at >= len(run.ids):  # this pass is done: the next decodes what it left
            run.passes, run.at = run.passes[1:], 0
            if not run.passes:
                run.close()
                self.finished.emit()
                return
        chunk = run.ids[run.at : run.at + SWEEP_CHUNK]
        run.at += len(chunk)
        worker = Worker(_unchecked_verdicts, run.passes[0], chunk, self._pause, run.cancel)
        worker.returned.connect(lambda found: self._on_verdicts(run, found))
        worker.start(self.pool)

    def _pause(self) -> None:  # on the worker, before each case
        self.workbench.pace.wait_until_still(SWEEP_WAIT_S)

    def _on_verdicts(self, run: _Run, found: list[Verdict]) -> None:
        if not run.cancel.is_set():  # not another project, nor a window closing
            for verdict in found:
                entry = run.project.record_verdict(verdict)
                if entry is not None:
                    self.workbench.update_entry(entry)
        self._next(run)

    def stop(self, wait: bool = True, timeout_ms: int = 5000) -> bool:
        """No more checks of this project (the one running ends with its case)."""
        if self._run is not None:
            self._run.cancel.set()
        return self.pool.waitForDone(timeout_ms) if wait else True


def _unchecked_verdicts(
    validity: Validity, ids: list[str], pause: Callable[[], None], cancel: threading.Event
) -> list[Verdict]:
    """On the worker: the verdicts of those of *ids* the sweep has not settled yet (the
    decoding pass skips a case the first found invalid, or the window checked in full), so
    a pass over 100,000 cases never filters them on the window's thread."""

    def open_(case_id: str) -> bool:
        entry = validity.project.entry(case_id)
        return entry is not None and entry.problem is None and not entry.checked

    wanted = [i for i in ids if open_(i)] if validity.decode else ids
    return verdicts(validity, wanted, pause, cancel)
