"""The Pipeline panel (View > Pipeline Panel, Ctrl+Shift+P): the project's funnel, its
failures and cost, the running jobs with Cancel, and the front of the pipeline started from
the window: Write Specifications… and Make Images, each in a child process
(``core.generate_process``) so the window never waits on a model.

The funnel is read on a worker (the staging folder, the cost ledger, a copy of the index)
when the panel is shown, when a job ends, on F5 and when a project's index is whole. A case a
run writes into ``cases/`` joins the open index as it lands, panel shown or not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QDockWidget, QPushButton, QWidget

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import CaseEntry, Project
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.core.jobs.child_job import ChildJob, passed_env
from sabre_desk.core.jobs.job_board import Job, JobBoard, JobKind
from sabre_desk.core.jobs.ledger import ModelPrice
from sabre_desk.core.making.funnel import Funnel, count_cases, pipeline_funnel
from sabre_desk.core.making.generate_process import (
    GenerateProgress,
    ImagesOrder,
    SpecsOrder,
    images_job,
    specs_job,
)
from sabre_desk.core.making.image_maker import ImageRunReport
from sabre_desk.core.making.incoming import arrived_cases
from sabre_desk.core.making.spec_writer import SpecRunReport
from sabre_desk.core.team.ratings import collect
from sabre_desk.engines.gemini_make import GeminiImageMaker
from sabre_desk.engines.providers import Writer, writer_for
from sabre_desk.ground.ids import id_problem
from sabre_desk.gui.desk.session import SelectCase, Session
from sabre_desk.gui.machinery.child_run import ChildRun
from sabre_desk.gui.machinery.workers import Worker
from sabre_desk.gui.making.pipeline_panel import PipelinePanel
from sabre_desk.gui.making.write_specs_dialog import WriteSpecsDialog
from sabre_desk.settings import Settings

SHORTCUT = "Ctrl+Shift+P"
TITLES = {JobKind.IMAGES: "Making images", JobKind.SPECS: "Writing specifications"}


def read_pipeline(
    project: Project, entries: list[CaseEntry], prices: Mapping[str, ModelPrice]
) -> tuple[Funnel, list[str]]:
    """On the worker: the funnel over *entries*, and the cases on disk they lack. The cases
    are listed first, so a case that moves in between counts as waiting, never twice. The
    last stages are the curator's counts, read as `stats` reads them."""
    arrived = arrived_cases(project.root, {e.case_id for e in entries})
    ratings = collect(project, entries=entries)
    funnel = pipeline_funnel(project, prices, entries, ratings.counts(), ratings.verdicts)
    return funnel, arrived


def _summary(kind: JobKind, report: object) -> str:
    stopped = " (cancelled)" if getattr(report, "cancelled", False) else ""
    if isinstance(report, ImageRunReport):
        made, calls, failed = len(report.imaged), report.calls, len(report.failed)
        return f"Make Images{stopped}: {made} cases made ({calls} calls), {failed} failed"
    assert isinstance(report, SpecRunReport)
    made, calls, failed = len(report.written), report.calls, len(report.failed)
    return f"Write Specifications{stopped}: {made} written ({calls} calls), {failed} failed"


class PipelineUi(QObject):
    refreshed = Signal(object)  # the Funnel now shown
    job_done = Signal(object, object)  # the JobKind, its report (None: it could not run)

    def __init__(
        self,
        session: Session,
        workbench: Workbench,
        select_case: SelectCase,
        settings: Settings,
        board: JobBoard,
        parent: QWidget,
    ):
        super().__init__(parent)
        self.session, self.workbench, self.select_case = session, workbench, select_case
        self.settings, self.board = settings, board
        self.parent_widget = parent
        self.panel = PipelinePanel(board)
        self.dock = QDockWidget("Pipeline", parent)
        self.dock.setObjectName("dock_pipeline")
        self.dock.setWidget(self.panel)
        self.dock.hide()  # until asked for; the saved layout may show it
        self.action = self.dock.toggleViewAction()
        self.action.setText("&Pipeline Panel")
        self.action.setShortcut(QKeySequence(SHORTCUT))
        self.action.setStatusTip("the funnel, its failures and cost, and the model jobs")
        self.action.toggled.connect(self._on_toggled)
        self.dock.visibilityChanged.connect(self._on_visibility)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.runs: dict[JobKind, ChildRun] = {}
        self.funnel: Funnel | None = None
        self._reading = False
        self._again = False
        self.panel.make_images.clicked.connect(self.make_images)
        self.panel.write_specs.clicked.connect(self.write_specs)
        self.panel.failure_activated.connect(self.open_failure)
        board.added.connect(lambda _job: self._update_buttons())
        board.ended.connect(lambda _job: self.refresh(pick_up=True))
        session.opened.connect(self._on_opened)
        self._update_buttons()

    # --- the funnel ----------------------------------------------------------------------

    def _on_toggled(self, shown: bool) -> None:
        if shown:
            # its tab in front, not one more tab behind the case panel (once it is placed)
            QTimer.singleShot(0, self.dock.raise_)

    def _on_visibility(self, shown: bool) -> None:
        if shown:
            self.refresh()

    def _on_opened(self, _controller: object) -> None:
        self.funnel = None
        self.panel.clear("Reading the project…")
        self._update_buttons()

    def project_indexed(self, project: Project) -> None:
        """The index is whole: the funnel can count it."""
        self.refresh()

    def refresh(self, pick_up: bool = False) -> None:
        """Read the funnel again on the worker. *pick_up*: a run may have written cases, so
        read even while the panel is hidden, to bring them into the open index."""
        project = self.session.project
        if project is None or project.indexing:
            return  # project_indexed comes
        if not pick_up and not self.dock.isVisible():
            return  # read when shown
        if self._reading:
            self._again = True
            return
        self._reading = True
        worker = Worker(read_pipeline, project, list(project.entries), dict(self.settings.prices))
        worker.returned.connect(lambda result, p=project: self._on_read(p, *result))
        worker.errored.connect(
            lambda exc: self.panel.clear(f"The pipeline could not be read: {exc}")
        )
        worker.finished.connect(self._on_read_finished)
        worker.start(self.pool)

    def _on_read(self, project: Project, funnel: Funnel, arrived: list[str]) -> None:
        if project is not self.session.project:
            return  # another project was opened meanwhile
        if not project.indexing:
            added = [project.index_added(c) for c in arrived if project.entry(c) is None]
            if added:
                self.workbench.append_entries(added)
                count_cases(funnel, added)
        self.funnel = funnel
        self.panel.show_funnel(funnel)
        self._update_buttons()
        self.refreshed.emit(funnel)

    def _on_read_finished(self) -> None:
        self._reading = False
        if self._again:
            self._again = False
            self.refresh(pick_up=True)

    def open_failure(self, what: str, reason: str) -> None:
        """A failed case in the project opens; one still waiting shows why it failed."""
        project = self.session.project
        if project is not None and project.entry(what) is not None:
            self.select_case(what)
            self.session.say(f"{what}: {reason}", 10000)
        elif id_problem(what) is None:
            self.panel.detail.setText(
                f"{what} is not a case yet: {reason}. Its specification waits in generation/; "
                "Make Images tries it again."
            )
        else:
            self.panel.detail.setText(f"{what}: {reason}")

    # --- the jobs ------------------------------------------------------------------------

    def _blocked(self, kind: JobKind, engine: GeminiImageMaker | Writer) -> str | None:
        """Why a job of *kind* cannot start now, or None."""
        project = self.session.project
        if project is None:
            return "Open a project first."
        if project.read_only:
            return "This project is read-only: nothing can be written into it."
        if self.board.running(kind) is not None:
            return f"{TITLES[kind]} already (Cancel it, or wait for it)."
        return engine.unavailable_reason()

    def _update_buttons(self) -> None:
        images = GeminiImageMaker(self.settings.gemini_model)
        writer = writer_for(self.settings.spec_model)
        waiting = self.funnel.specified + self.funnel.failed if self.funnel else None
        why = self._blocked(JobKind.IMAGES, images)
        if why is None and waiting == 0:
            why = "No specification waits for images: Write Specifications… first."
        count = f" {waiting:,}" if waiting else ""
        self._enable(
            self.panel.make_images,
            why,
            f"Make the images of the{count} specifications waiting, with {images.model}: "
            "each becomes a case ready for screening.",
        )
        self._enable(
            self.panel.write_specs,
            self._blocked(JobKind.SPECS, writer),
            f"Ask {writer.model} for new Sample Specifications from a Test Primer.",
        )

    @staticmethod
    def _enable(button: QPushButton, why: str | None, what: str) -> None:
        button.setEnabled(why is None)
        button.setToolTip(why or what)

    def _ready(self, kind: JobKind, engine: GeminiImageMaker | Writer) -> Project | None:
        """The project a job of *kind* can start on now; else None, and the reason said."""
        why = self._blocked(kind, engine)
        if why is not None:
            self.session.say(why)
        return self.session.project if why is None else None

    def make_images(self) -> bool:
        """Make the images of every specification waiting for them, in a child process."""
        project = self._ready(JobKind.IMAGES, GeminiImageMaker(self.settings.gemini_model))
        if project is None:
            return False
        order = ImagesOrder(project.root, self.settings.gemini_model, env=passed_env())
        self._start(JobKind.IMAGES, images_job(order))
        return True

    def write_specs(self) -> bool:
        """Ask which primer and how many, then write them in a child process."""
        project = self._ready(JobKind.SPECS, writer_for(self.settings.spec_model))
        if project is None:
            return False
        library = PrimerLibrary.for_project(project.root)
        dialog = WriteSpecsDialog(
            library, project.manifest.primer, self.settings.spec_model, self.parent_widget
        )
        if not dialog.exec():
            return False
        primer, n = dialog.choice
        order = SpecsOrder(project.root, primer, n, self.settings.spec_model, env=passed_env())
        self._start(JobKind.SPECS, specs_job(order))
        return True

    def _start(self, kind: JobKind, child: ChildJob[Any, Any, Any]) -> None:
        self.runs[kind] = ChildRun(
            child,
            self.board,
            kind,
            TITLES[kind],
            self._on_progress,
            lambda report, error: self._on_done(kind, report, error),
            self,
        )

    def _on_progress(self, job: Job, event: GenerateProgress) -> None:
        job.advance(event.done, event.total, event.what)
        self.refresh(pick_up=True)  # the case just made joins the list

    def _on_done(self, kind: JobKind, report: object, error: str | None) -> None:
        self.runs.pop(kind, None)
        self._update_buttons()
        if report is not None:
            self.session.say(_summary(kind, report), 15000)
        elif error is not None:
            self.session.error.emit(f"{TITLES[kind]} could not go on", error)
        else:
            self.session.say(f"{TITLES[kind]}: cancelled.", 8000)
        self.job_done.emit(kind, report)

    def shutdown(self) -> None:
        for run in list(self.runs.values()):
            run.shutdown()
        self.pool.waitForDone(5000)
