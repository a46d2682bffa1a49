"""Screening from the window: the open case again (after a repair made its result stale), or
the whole project, in a child process (``core.screen_process``) so the window never waits
and a busy interpreter never stalls it; the run is on the window's job board (its progress
and Cancel in the status bar and the Pipeline panel), and the case list and probe table are
brought up to date as runs land.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.core.jobs.child_job import passed_env
from sabre_desk.core.jobs.job_board import Job, JobBoard, JobKind
from sabre_desk.core.screening.screen_process import ScreenOrder, ScreenProcess
from sabre_desk.core.screening.screen_run import ScreenProgress, ScreenReport
from sabre_desk.gui.desk.controller import Aspect
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.child_run import ChildRun
from sabre_desk.settings import Settings


class ScreeningUi(QObject):
    finished = Signal(object)  # the ScreenReport (None when it could not run)

    def __init__(
        self,
        session: Session,
        workbench: Workbench,
        settings: Settings,
        board: JobBoard,
        parent: QWidget,
    ):
        super().__init__(parent)
        self.session, self.workbench, self.settings = session, workbench, settings
        self.board = board
        self.run: ChildRun | None = None
        self.case_action = QAction("Screen This Case &Again", parent)
        self.case_action.setShortcut(QKeySequence("Ctrl+Alt+S"))
        self.case_action.setStatusTip("ask the filtering model about the open case once more")
        self.case_action.triggered.connect(self.screen_case)
        self.project_action = QAction("Screen the &Project (new and stale cases)", parent)
        self.project_action.triggered.connect(self.screen_project)

    @property
    def running(self) -> bool:
        return self.run is not None

    def screen_case(self) -> bool:
        case = self.session.case
        if case is None:
            self.session.say("Open a case to screen it.")
            return False
        return self._start([case.case_id], stale_only=False, what=case.case_id)

    def screen_project(self) -> bool:
        return self._start(None, stale_only=False, what="the project")

    def _start(self, case_ids: list[str] | None, stale_only: bool, what: str) -> bool:
        project = self.session.project
        if project is None:
            self.session.say("Open a project first.")
            return False
        if project.read_only:
            self.session.say("This project is read-only: screening results cannot be written.")
            return False
        if self.run is not None:
            self.session.say("A screening run is under way; cancel it or wait for it.")
            return False
        controller = self.session.controller
        if controller is not None and not controller.flush():
            return False  # a question edit not yet on disk would be screened as it was
        order = ScreenOrder(
            project.root,
            project.reviewer,
            case_ids=case_ids,
            stale_only=stale_only,
            model=self.settings.screening_model,
            concurrency=self.settings.screening_concurrency,
            local_url=self.settings.local_base_url,
            env=passed_env(),
        )
        self.run = ChildRun(
            ScreenProcess(order),
            self.board,
            JobKind.SCREENING,
            f"Screening {what}",
            self._on_progress,
            self._on_done,
            self,
        )
        return True

    def cancel(self) -> None:
        if self.run is not None:
            self.run.job.cancel()

    def _refresh(self, case_id: str) -> None:
        project = self.session.project
        if project is None:
            return
        entry = project.fresh_entry(case_id)
        if entry is not None:
            project.replace_entry(entry)
            self.workbench.update_entry(entry)
        controller = self.session.controller
        case = controller.case if controller is not None else None
        if controller is not None and case is not None and case.case_id == case_id:
            project.reload_screening(case)
            controller.review_changed.emit(Aspect.ALL)

    def _on_progress(self, job: Job, event: ScreenProgress) -> None:
        job.advance(event.done, max(event.total, 1), event.case_id)
        if event.case_status is not None:
            self._refresh(event.case_id)

    def _on_done(self, report: ScreenReport | None, error: str | None) -> None:
        self.run = None
        if report is None:
            self.session.error.emit("Screening could not run", error or "no reason was given")
            self.finished.emit(None)
            return
        for case_id in report.cases_written:
            self._refresh(case_id)
        solved = sum(1 for s in report.statuses.values() if s is ScreenStatus.SOLVED)
        failed = f", {len(report.failures)} calls failed" if report.failures else ""
        stopped = " (cancelled)" if report.cancelled else ""
        self.session.say(
            f"Screening{stopped}: {len(report.cases_written)} cases written, {solved} solved by "
            f"the filter, {report.sent} requests sent, {report.cached} from the cache{failed}",
            15000,
        )
        self.finished.emit(report)

    def shutdown(self) -> None:
        if self.run is not None:
            self.run.shutdown()
