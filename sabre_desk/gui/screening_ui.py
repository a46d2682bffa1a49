"""Screening from the window: the open case again (after a repair made its result stale), or
the whole project, in a child process (``core.screen_process``) so the window never waits
and a busy interpreter never stalls it; a progress bar with a cancel button in the status
bar while it runs, and the case list and probe table brought up to date as runs land.
"""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from sabre_desk.core.gate import ScreenStatus
from sabre_desk.core.screen_process import ScreenOrder, ScreenProcess
from sabre_desk.core.screen_run import ScreenProgress, ScreenReport
from sabre_desk.core.workbench import Workbench
from sabre_desk.gui.controller import Aspect
from sabre_desk.gui.menus import WindowActions
from sabre_desk.gui.session import Session
from sabre_desk.settings import Settings

#: What the child process needs from this environment to reach the same model server.
PASSED_ENV = ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY", "GOOGLE_API_KEY")


class ScreeningProgress(QWidget):
    """The status bar's piece: what is being screened, how far, and Cancel."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(160)
        self.cancel = QPushButton("Cancel")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.cancel):
            layout.addWidget(widget)
        self.hide()


class ScreeningUi(QObject):
    _progress = Signal(object)  # ScreenProgress, from the reader thread
    _done = Signal(object, object)  # ScreenReport | None, error text | None
    finished = Signal(object)  # the ScreenReport (None when it could not run)

    def __init__(self, session: Session, workbench: Workbench, settings: Settings, parent: QWidget):
        super().__init__(parent)
        self.session, self.workbench, self.settings = session, workbench, settings
        self.job: ScreenProcess | None = None
        self.widget = ScreeningProgress(parent)
        self.widget.cancel.clicked.connect(self.cancel)
        self.case_action = QAction("Screen This Case &Again", parent)
        self.case_action.setShortcut(QKeySequence("Ctrl+Alt+S"))
        self.case_action.setStatusTip("ask the filtering model about the open case once more")
        self.case_action.triggered.connect(self.screen_case)
        self.project_action = QAction("Screen the &Project (new and stale cases)", parent)
        self.project_action.triggered.connect(self.screen_project)
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)

    def add_actions(self, actions: WindowActions) -> None:
        actions.review.addSeparator()
        actions.add_to(actions.review, "Review", self.case_action)
        actions.add_to(actions.review, "Review", self.project_action)

    @property
    def running(self) -> bool:
        return self.job is not None

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
        if self.job is not None:
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
            env={k: os.environ[k] for k in PASSED_ENV if k in os.environ},
        )
        self.job = ScreenProcess(order)
        self.widget.label.setText(f"Screening {what}…")
        self.widget.bar.setRange(0, 0)
        self.widget.show()
        self.job.start(self._progress.emit, self._done.emit)
        return True

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.widget.label.setText("Cancelling the screening…")

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

    def _on_progress(self, event: ScreenProgress) -> None:
        self.widget.bar.setRange(0, max(event.total, 1))
        self.widget.bar.setValue(event.done)
        if event.case_status is not None:
            self._refresh(event.case_id)

    def _on_done(self, report: ScreenReport | None, error: str | None) -> None:
        self.job = None
        self.widget.hide()
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
        if self.job is not None:
            self.job.cancel()
            self.job.wait(5.0)
