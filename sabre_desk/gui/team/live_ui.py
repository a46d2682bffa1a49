"""What other windows and other people write, brought in while the window is open.

Polling (``core.live`` says why: change notifications never hear of a write made by
another computer on a network drive): the open case on the GUI thread (a few ``stat``
calls), the whole project on a thread of its own. Each poll backs off while it finds
nothing: the open case from every second to every few seconds, the project from every ten
seconds to every minute, and both are back at their quick pace as soon as something changed
or the reviewer opened another case. An idle window then wakes a few times a minute, not
several times a second. Nothing here changes anything; it says what changed, and the team
tools decide what to read again.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal

from sabre_desk.core.case.project import Project
from sabre_desk.core.desk.pace import ReviewerPace
from sabre_desk.core.team.live import CaseStamp, ProjectWatch, case_stamp, compare
from sabre_desk.gui.machinery.polling import backed_off
from sabre_desk.gui.machinery.workers import Worker

CASE_POLL_MS = 1000
CASE_POLL_MAX_MS = 4000
PROJECT_POLL_MS = 10_000
PROJECT_POLL_MAX_MS = 60_000


class LiveUpdates(QObject):
    case_changed = Signal(object)  # core.live.CaseChanges of the open case
    cases_changed = Signal(object)  # [case id]: other cases whose files changed on disk

    def __init__(self, pace: ReviewerPace, parent: QObject | None = None):
        super().__init__(parent)
        self.pace = pace
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._folder: Path | None = None
        self._stamp = CaseStamp()
        self._project: Project | None = None
        self._watch = ProjectWatch()
        self._looking: Worker | None = None
        self.case_timer = QTimer(self)
        self.case_timer.setInterval(CASE_POLL_MS)
        self.case_timer.timeout.connect(self.poll_case)
        self.project_timer = QTimer(self)
        self.project_timer.setInterval(PROJECT_POLL_MS)
        self.project_timer.timeout.connect(self.poll_project)

    @property
    def cases_noted(self) -> int:
        """How many cases of the project the watch has taken note of (0: not yet)."""
        return self._watch.noted

    def follow_case(self, folder: Path | None) -> None:
        """Watch the open case from now on (its current state is the reference)."""
        self._folder = folder
        self._stamp = case_stamp(folder) if folder is not None else CaseStamp()
        if folder is None:
            self.case_timer.stop()
        else:
            self.case_timer.start(CASE_POLL_MS)

    def follow_project(self, project: Project) -> None:
        """Watch the rest of *project*; the first look, behind the index, takes note."""
        self._project, self._watch = project, ProjectWatch()
        self.project_timer.start(PROJECT_POLL_MS)

    def poll_case(self) -> None:
        if self._folder is None:
            return
        stamp = case_stamp(self._folder)
        changes = compare(self._stamp, stamp)
        self._stamp = stamp
        backed_off(self.case_timer, bool(changes), CASE_POLL_MS, CASE_POLL_MAX_MS)
        if changes:
            self.case_changed.emit(changes)

    def poll_project(self) -> None:
        project = self._project
        if project is None or project.indexing or self._looking is not None:
            return
        worker = Worker(self._watch.look, list(project.entries), self.pace.wait_until_still)
        worker.returned.connect(lambda ids, p=project: self._on_looked(p, ids))
        worker.finished.connect(self._on_finished)
        self._looking = worker
        worker.start(self.pool)

    def _on_looked(self, project: Project, ids: list[str]) -> None:
        if project is not self._project:
            return
        backed_off(self.project_timer, bool(ids), PROJECT_POLL_MS, PROJECT_POLL_MAX_MS)
        if ids:
            self.cases_changed.emit(ids)

    def _on_finished(self) -> None:
        self._looking = None

    def shutdown(self) -> None:
        self.case_timer.stop()
        self.project_timer.stop()
        self.pool.waitForDone(3000)
