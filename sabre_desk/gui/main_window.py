"""The review workbench window: case list, Base/Edited canvases, case panel. Wiring only.

State changes go through the CaseController; images come from the ImageLoader on the
window's thread pool; stale results (for a case the reviewer already left) are dropped.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import Qt, QThread, QThreadPool, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMessageBox,
    QStackedWidget,
    QWidget,
)

from sabre_desk.core.case.preview_cache import PreviewStore
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import Go, Workbench
from sabre_desk.core.jobs.job_board import JobBoard
from sabre_desk.core.jobs.memory import image_cache_budget
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import CaseController
from sabre_desk.gui.desk.session import OpenAs, Session
from sabre_desk.gui.desk.window_claims import WindowClaims
from sabre_desk.gui.escape import EscapeToImage
from sabre_desk.gui.evaluation.evaluate_ui import EvaluateUi
from sabre_desk.gui.evaluation.evaluation_view import EvaluationUi
from sabre_desk.gui.evaluation.export_dialog import export_release
from sabre_desk.gui.keyboard_home import KeyboardHome
from sabre_desk.gui.machinery.collector import collect_on_gui_thread
from sabre_desk.gui.machinery.image_loader import ImageLoader
from sabre_desk.gui.machinery.index_reader import IndexReader
from sabre_desk.gui.machinery.preview_sweep import PreviewSweep
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.gui.machinery.soon import call_soon
from sabre_desk.gui.machinery.verdict_sweep import VerdictSweep
from sabre_desk.gui.making.new_case_dialog import author_new_case
from sabre_desk.gui.making.pipeline_ui import PipelineUi
from sabre_desk.gui.making.project_sources import ProjectSources
from sabre_desk.gui.making.screening_ui import ScreeningUi
from sabre_desk.gui.making.upgrade_ui import UpgradeOffer
from sabre_desk.gui.menus import WindowActions, WindowParts
from sabre_desk.gui.repair.repair_ui import RepairUi
from sabre_desk.gui.review.audit_ui import AuditUi
from sabre_desk.gui.review.boxes_ui import BoxesUi
from sabre_desk.gui.review.case_display import CaseDisplay
from sabre_desk.gui.review.case_list import CaseList
from sabre_desk.gui.review.case_panel import CasePanel
from sabre_desk.gui.review.changes_ui import ChangesUi
from sabre_desk.gui.review.conflict import ask_conflict
from sabre_desk.gui.screen_fit import (
    FrameOnScreen,
    dock_state,
    open_within_screen,
    remember_geometry,
    restore_docks,
    restore_geometry,
)
from sabre_desk.gui.status_bar import WindowStatus
from sabre_desk.gui.team.conflict_copies_ui import ConflictCopiesUi
from sabre_desk.gui.team.switch_reviewer import SwitchReviewer
from sabre_desk.gui.team.take_back_ui import TakeBackUi
from sabre_desk.gui.team.team_ui import TeamUi
from sabre_desk.gui.toolbar import build_toolbar
from sabre_desk.gui.welcome import WelcomePage
from sabre_desk.settings import Settings, save_settings

EMPTY_PROJECT = (
    "no cases yet: put case folders into its cases/ folder (see docs/PROJECT_FORMAT.md), "
    "then reopen the project"
)

#: what the status bar says while no project is open
OPEN_HINT = "Open a project folder (File > Open, or drop it here)."


class MainWindow(QMainWindow):
    images_shown = Signal(str)  # case id, once its images (or placeholders) are painted
    closed = Signal()  # the reviewer closed the window (Ctrl+Q, the close button, a signal)

    def __init__(self, reviewer: str, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        # cycles are freed on this thread, never on a pool's
        self.collector = collect_on_gui_thread()
        self.reviewer = reviewer
        self.settings = settings
        #: rendering a screenshot: problems go to stderr, never to a dialog nobody closes
        self.unattended = False
        self.session = Session(self)
        self.session.error.connect(self.report_error)
        self.pool = QThreadPool(self)
        # Decoding is CPU-bound: one core is left to the window, or decoding threads and
        # the GUI thread fight over it and the reviewer sees late frames.
        cores = QThread.idealThreadCount()
        self.pool.setMaxThreadCount(max(1, min(settings.pool_size, cores - 1)))
        self._project_status = ""
        self.loader = ImageLoader(
            self.pool,
            lambda: image_cache_budget(settings.image_cache_min_mb, settings.image_cache_max_mb),
            self,
        )
        self.jobs = ProcessJobs(parent=self)  # CPU-bound work, in worker processes
        self.previews = PreviewSweep(lambda f, a, d: self.jobs.submit(f, a, d, -10), self)
        self.setWindowTitle("sabre-desk")
        self.setAcceptDrops(True)
        open_within_screen(self, 1560, 900)
        FrameOnScreen(self, lambda: self.unattended)

        self.compare = CompareView()
        self.compare.sync = settings.sync_views
        self.compare.settled.connect(self.loader.check_previews)
        self.job_board = JobBoard()  # model work in the background: status bar, Pipeline panel
        self.status = WindowStatus(self.statusBar(), self.compare, self.job_board)
        self.session.message.connect(self.status.say)
        self.welcome = WelcomePage()
        self.welcome.set_recent(settings.recent_projects)
        self.sources = ProjectSources(
            self, self.open_project, self.report_error, self.statusBar().showMessage
        )
        self.welcome.open_requested.connect(self.sources.choose)
        self.welcome.demo_requested.connect(self.sources.demo)
        self.welcome.new_requested.connect(self.sources.new)
        self.welcome.recent_requested.connect(self.open_project)
        self.upgrades = UpgradeOffer(self, self.report_error, lambda: self.unattended)
        self.claims = WindowClaims(self, lambda: self.unattended)
        self.central = QStackedWidget()
        self.central.addWidget(self.welcome)
        self.central.addWidget(self.compare)
        self.setCentralWidget(self.central)
        self.workbench = Workbench()
        self.index_reader = IndexReader(self.workbench, self)
        self.index_reader.progress.connect(self._on_index_progress)
        self.index_reader.finished.connect(self._on_index_finished)
        self.verdicts = VerdictSweep(self.workbench, self)  # the list says what validate says
        self.audit_ui = AuditUi(self.session, self.workbench, self)  # answers models dispute
        self.case_list = CaseList(self.workbench)
        self.case_list.case_selected.connect(self.show_case)
        self.case_list.message.connect(self.status.say)
        self.escape = EscapeToImage(self._focus_image, self)
        self.escape.watch(self.case_list.filter)
        self.case_panel_dock = self._dock(
            "Case", "dock_case", Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.cases_dock = self._dock("Cases", "dock_cases", Qt.DockWidgetArea.LeftDockWidgetArea)
        self.cases_dock.setWidget(self.case_list)
        self.case_panel: CasePanel | None = None
        self.resizeDocks(
            [self.cases_dock, self.case_panel_dock], [240, 440], Qt.Orientation.Horizontal
        )
        self.boxes_ui = BoxesUi(self.session, self.compare, self.workbench)
        self.display = CaseDisplay(
            self.session,
            self.workbench,
            self.compare,
            self.loader,
            self.jobs,
            self.previews,
            self.boxes_ui,
            self,
        )
        self.display.images_shown.connect(self.images_shown)
        self.display.painted.connect(self.status.show_zoom)
        self.repair_ui = RepairUi(
            self.session, self.compare, self.workbench, settings, self.jobs, self
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.repair_ui.dock)
        self.tabifyDockWidget(self.case_panel_dock, self.repair_ui.dock)
        self.case_panel_dock.raise_()
        self.repair_ui.show_files_requested.connect(self.display.show_files)
        self.repair_ui.redisplay_requested.connect(self.display.redisplay_case)
        self.repair_ui.box_reselect_requested.connect(self.boxes_ui.select_when_shown)
        self.changes_ui = ChangesUi(self.session, self.compare, self.workbench, self.jobs, self)
        # The background sweeps (previews, change maps) yield to the reviewer: a while after
        # a case is opened or edited (a box drawn: a repair may be next), and for as long as
        # a repair computes in the workers
        self.sweeps = (self.previews.sweep, self.changes_ui.idle_sweep)
        for sweep in self.sweeps:
            self.display.opening.connect(sweep.note_activity)
            sweep.wait_while(self.repair_ui.jobs.computing)
        self.images_shown.connect(lambda _case_id: self.changes_ui.refresh())
        self.actions_ = WindowActions(
            self.menuBar(),
            WindowParts(
                parent=self,
                session=self.session,
                compare=self.compare,
                case_list=self.case_list,
                settings=settings,
                docks=[self.cases_dock, self.case_panel_dock],
                panel=lambda: self.case_panel,
                choose_project=self.sources.choose,
                new_project=self.sources.new,
                new_case=lambda: author_new_case(
                    self, self.session, self.workbench, self.case_list.select, settings.gemini_model
                ),
                open_project=self.open_project,
                export_release=lambda: export_release(self.session, self.pool, self),
                focus_image=self.focus_case,
                save_settings=self._save_settings,
                quit=self.close,
            ),
        )
        self.actions_.add_to_edit(self.repair_ui.run_action, needs_project=True)
        self.actions_.add_to_edit(self.repair_ui.accept_action, needs_project=True)
        self.team_ui = TeamUi(
            self.session, self.compare, self.workbench, self.case_list.select, self.pool, self
        )
        for menu, action in (
            (self.actions_.review, self.team_ui.dialog_action),
            (self.actions_.review, self.team_ui.reload_action),
            (self.actions_.go, self.team_ui.next_action),
        ):
            self.actions_.add_to(menu, "Team", action, needs_project=True)
        self.screening_ui = ScreeningUi(
            self.session, self.workbench, settings, self.job_board, self
        )
        self.actions_.review.addSeparator()
        for action in (self.screening_ui.case_action, self.screening_ui.project_action):
            self.actions_.add_to(self.actions_.review, "Review", action, needs_project=True)
        self.evaluate_ui = EvaluateUi(self.session, settings, self.job_board, self)
        self.actions_.add_to_file(self.evaluate_ui.action)
        self.evaluation_ui = EvaluationUi(
            self.session, self.case_list.select, self.open_project, settings, self
        )
        self.actions_.add_to_file(self.evaluation_ui.action)  # needs no project
        self.reviewer_switch = SwitchReviewer(lambda: self.reviewer, self)
        self.reviewer_switch.chosen.connect(self.switch_reviewer)
        self.actions_.add_to_file(self.reviewer_switch.action)
        self.conflict_copies_ui = ConflictCopiesUi(self.session, self)
        self.conflict_copies_ui.settled.connect(self._open_again)
        self.actions_.add_to_file(self.conflict_copies_ui.action, needs_project=True)
        self.take_back_ui = TakeBackUi(self.session, self)
        self.take_back_ui.taken.connect(lambda _result: self._open_again())
        self.actions_.add_to_file(self.take_back_ui.action, needs_project=True)
        self.actions_.add_to_view(self.changes_ui.action, needs_project=True)
        self.pipeline_ui = PipelineUi(
            self.session, self.workbench, self.case_list.select, settings, self.job_board, self
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.pipeline_ui.dock)
        self.tabifyDockWidget(self.repair_ui.dock, self.pipeline_ui.dock)
        self.actions_.add_to_view(self.pipeline_ui.action)
        self.team_ui.reload_action.triggered.connect(lambda: self.pipeline_ui.refresh(pick_up=True))
        self.toolbar = build_toolbar(
            self, self.actions_, self.changes_ui.action, self.repair_ui.run_action
        )
        self.keyboard = KeyboardHome(self, self._focus_image, self.focus_case)
        docks = (self.cases_dock, self.case_panel_dock, self.repair_ui.dock, self.pipeline_ui.dock)
        for dock in docks:  # a panel closed: the keyboard goes back to the image
            self.keyboard.watch_dock(dock)
        self._restore_layout()
        self.status.rest(OPEN_HINT)

    def _dock(self, title: str, name: str, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        self.addDockWidget(area, dock)
        return dock

    @property
    def controller(self) -> CaseController | None:
        return self.session.controller

    @property
    def project(self) -> Project | None:
        return self.session.project

    # --- project --------------------------------------------------------------------------

    def open_project(self, path: Path, case_id: str | None = None) -> bool:
        if self.controller is not None and not self._leave_current():
            return False
        open_as = self.upgrades.before_open(path)  # an earlier sabre-desk's project
        if open_as is OpenAs.WRITABLE:  # this reviewer's window elsewhere: read-only here
            open_as = self.claims.before_open(path, self.reviewer)
        if open_as is OpenAs.NOT_AT_ALL:
            return False
        try:
            read_only = open_as is OpenAs.READ_ONLY
            project = Project.open(path, self.reviewer, index=False, read_only=read_only)
        except (ProjectError, ValueError) as exc:
            self.claims.not_opened()
            self.report_error("Cannot open project", str(exc))
            return False
        self.claims.opened()
        self.loader.clear()
        self.compare.state.close()  # nothing of the last project's view is kept
        self.collector.hand_back()
        limit = self.settings.preview_cache_mb * 1024**2
        controller = CaseController(project, self)
        self.loader.set_store(PreviewStore.for_project(project.root, project.read_only, limit))
        self.loader.verdicts = controller.decode_verdicts
        self.central.setCurrentWidget(self.compare)
        self._project_status = f"{project.root} · reviewer {self.reviewer}"
        if project.read_only:  # the folder cannot be written, or left to upgrade later
            self._project_status += " · read-only: nothing will be saved"
        self.index_reader.begin(project, case_id)  # the first cases now, the rest behind
        first = case_id or self.workbench.first()
        if first:
            self.display.ask_for_images(project, first)  # decoded while the panels are built
        self._attach_controller(controller)
        self.settings.add_recent(project.root)
        self._save_settings()
        self.actions_.fill_recent()
        mode = " [read-only]" if project.read_only else ""
        self.setWindowTitle(f"{project.name}{mode} — sabre-desk")
        self.case_list.show_project()
        self.index_reader.read_rest(project)
        canvas = self.compare.active_canvas()
        if canvas is not None:  # keys decide and navigate from the first moment
            canvas.setFocus()
        if first and not self.case_list.select(first):
            self.report_error("No such case", f"{case_id!r} is not a case of {project.root}")
            if project.entries:
                self.case_list.select(project.entries[0].case_id)
        return True

    def switch_reviewer(self, name: str) -> bool:
        """A laptop shared in turns: the open case is saved as the last reviewer, then the
        project is opened again as *name* (her reviews, blind review as it applies to
        her, the status bar naming her)."""
        project, controller = self.project, self.controller
        if name == self.reviewer or (controller is not None and not self._leave_current()):
            return False
        previous, self.reviewer = self.reviewer, name
        if project is None:
            self.status.rest(f"reviewer {name} · {OPEN_HINT}")
            return True
        case = controller.case.case_id if controller is not None and controller.case else None
        if not self.open_project(project.root, case):
            self.reviewer = previous
            return False
        return True

    def _open_again(self) -> None:
        """Files changed under the open project (a conflict settled): open it again at the
        same case, so nothing on screen holds a version set aside."""
        project, case = self.project, self.session.case
        if project is not None:
            self.open_project(project.root, case.case_id if case is not None else None)

    def _on_index_progress(self, done: int, total: int) -> None:
        self.status.rest(
            f"{self._project_status} · reading the index: {done:,} of about {total:,} cases"
        )

    def _on_index_finished(self, project: Project) -> None:
        count = f"{len(project.entries):,} cases" if project.entries else EMPTY_PROJECT
        self.status.rest(f"{self._project_status} · {count}")
        if not project.entries:
            self.compare.show_roles((ImageRole.IMAGE,))
            self.compare.canvases[ImageRole.IMAGE].show_message(EMPTY_PROJECT)
        self.collector.set_aside_long_lived()  # the index lives as long as the project
        self.verdicts.start(project)
        self.changes_ui.sweep(project)
        self.team_ui.project_indexed(project)
        self.audit_ui.project_indexed(project)
        self.pipeline_ui.project_indexed(project)
        if self.loader.store is not None:
            self.previews.start(project, self.loader.store)

    def _attach_controller(self, controller: CaseController) -> None:
        controller.check_after_paint = True  # its images first, then the check of them
        controller.case_loaded.connect(lambda case: self.status.case_opened(case.case_id))
        controller.case_failed.connect(lambda case_id, _why: self.status.case_opened(case_id))
        controller.case_loaded.connect(self.display.case_loaded)
        controller.case_failed.connect(self.display.case_failed)
        controller.entry_changed.connect(self._on_entry_changed)
        controller.save_state_changed.connect(self.status.save_label.show_state)
        controller.conflict.connect(self._on_conflict)
        controller.job_failed.connect(self._on_job_failed)
        controller.decision_made.connect(self._on_decision_made)
        controller.undo_elsewhere.connect(self._undo_in)
        for sweep in self.sweeps:
            controller.review_changed.connect(sweep.note_activity)
        self.case_panel = CasePanel(controller)
        self.case_panel_dock.setWidget(self.case_panel)
        self.escape.watch(self.case_panel.notes)
        self.audit_ui.attach(self.case_panel.probe_model)
        self.case_panel.add_section(self.changes_ui.section)
        self.case_panel.add_section(self.team_ui.section)
        self.case_panel.add_section(self.conflict_copies_ui.note)
        controller.case_loaded.connect(
            lambda case: self.conflict_copies_ui.case_loaded(case.folder)
        )
        primers = PrimerLibrary.for_project(controller.project.root)
        default = controller.project.manifest.primer
        self.case_panel.primer_for = lambda case: primers.for_spec(case.spec, default)[0]
        self.session.open(controller)

    # --- navigation -----------------------------------------------------------------------

    def show_case(self, case_id: str) -> None:
        controller = self.controller
        if controller is None or (controller.case and controller.case.case_id == case_id):
            return
        self.collector.reviewer_moved()
        self.jobs.hold()  # both cores for its images, from their first moment
        wanted = self.display.ask_for_images(controller.project, case_id)  # read while it loads
        if wanted:  # decodes queued for other cases are taken back
            self.loader.cancel_except(set(wanted))
        if not controller.load(case_id) and controller.case is not None:
            # the current case could not be saved: stay on it, the reason is shown
            self.case_list.blockSignals(True)
            self.case_list.select(controller.case.case_id)
            self.case_list.blockSignals(False)

    def _undo_in(self, case_id: str) -> None:
        """Ctrl+Z after auto-advance: back to the case last changed, and undo there."""
        controller = self.controller
        if controller is None or not self.case_list.select(case_id):
            return
        if controller.case is not None and controller.case.case_id == case_id:
            controller.undo()
            self.session.say(f"Undone on {case_id}", 4000)

    # --- review changes -------------------------------------------------------------------

    def _on_entry_changed(self, case_id: str) -> None:
        entry = self.project.entry(case_id) if self.project else None
        if entry is not None:
            self.workbench.update_entry(entry)

    def _on_decision_made(self, decision: object) -> None:
        if self.settings.auto_advance and decision is not None:
            call_soon(self, lambda: self.case_list.go(Go.UNREVIEWED))

    def _focus_image(self) -> None:
        """Esc in the notes or the filter: the keys decide and navigate again."""
        if self.case_panel is not None and self.case_panel.notes.hasFocus():
            self.case_panel.notes.commit()
        canvas = self.compare.active_canvas()
        if canvas is not None:
            canvas.setFocus()

    def focus_case(self) -> None:
        """Ctrl+I (or Esc with nothing else to cancel): the keyboard on the image, the Case
        tab in front: the review goes on from the keys wherever they were. In a repair
        comparison it leaves the comparison whole first."""
        self.repair_ui.leave_comparison()
        self._focus_image()
        if self.case_panel_dock.isVisible():
            self.case_panel_dock.raise_()

    # --- status, errors, conflicts --------------------------------------------------------

    def _on_job_failed(self, message: str) -> None:
        self.statusBar().showMessage(message, 10000)
        if self.case_panel is not None:
            self.case_panel.show_error(message)

    def _on_conflict(self, message: str) -> None:
        choice = self.ask_conflict(message)
        if self.controller is not None and choice is not None:
            self.controller.resolve_conflict(keep_mine=choice == "mine")

    def ask_conflict(self, message: str) -> str | None:
        """Ask how to resolve a save conflict: "mine", "theirs" or None (decide later)."""
        return ask_conflict(message, self)

    def report_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(f"{title}: {message}")
        if self.unattended:
            print(f"sabre-desk: error: {title}: {message}", file=sys.stderr)
            return
        QMessageBox.warning(self, title, message)

    # --- window -----------------------------------------------------------------------------

    def _restore_layout(self) -> None:
        """The saved geometry and docks; a damaged value is ignored, never fatal."""
        restore_geometry(self, self.settings.window_geometries)
        if not restore_docks(self, self.settings.window_state):
            self.settings.window_state = None

    def _save_settings(self) -> None:
        try:
            save_settings(self.settings)
        except ProjectError as exc:
            self.statusBar().showMessage(f"Settings not saved: {exc.message}", 8000)

    def _leave_current(self) -> bool:
        """Save the open case; if that fails, ask whether to leave it unsaved."""
        if self.controller is None or self.controller.flush():
            return True
        answer = QMessageBox.question(
            self,
            "Unsaved changes",
            "The current case could not be saved (see the status bar). Leave it unsaved?",
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
        )
        return answer == QMessageBox.StandardButton.Discard

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._leave_current():
            event.ignore()
            return
        self.settings.window_geometries = remember_geometry(self, self.settings.window_geometries)
        self.settings.window_state = dock_state(self)
        self.settings.sync_views = self.compare.sync
        self._save_settings()
        self.display.forget()
        self.claims.release()
        self.repair_ui.jobs.shutdown()
        self.changes_ui.shutdown()
        self.team_ui.shutdown()
        self.screening_ui.shutdown()
        self.evaluate_ui.shutdown()
        self.evaluation_ui.shutdown()
        self.pipeline_ui.shutdown()
        self.previews.sweep.stop()
        self.jobs.shutdown()
        self.index_reader.stop()
        self.verdicts.stop()
        self.pool.waitForDone(5000)
        self.collector.hand_back()
        super().closeEvent(event)
        self.closed.emit()

    def wait_for_background(self, timeout_ms: int = 5000) -> bool:
        """Let image decodes, validity checks, repairs and change maps finish (tests,
        benchmarks, quitting)."""
        pools = [
            self.index_reader.pool,
            self.verdicts.pool,
            self.pool,
            self.repair_ui.jobs.pool,
            self.sources.pool,
            self.pipeline_ui.pool,
            self.audit_ui.pool,
            self.evaluation_ui.pool,
            self.loader.background,
            self.loader.previews,
            *self.team_ui.pools,
            *([self.controller.checks] if self.controller is not None else []),
        ]
        done = all(pool.waitForDone(timeout_ms) for pool in pools)
        return self.jobs.wait_idle(timeout_ms) and done

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and Path(urls[0].toLocalFile()).is_dir():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.open_project(Path(event.mimeData().urls()[0].toLocalFile()))
