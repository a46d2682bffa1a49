"""The review workbench window: case list, Base/Edited canvases, case panel. Wiring only.

State changes go through the CaseController; images come from the ImageLoader on the
window's thread pool; stale results (for a case the reviewer already left) are dropped.
"""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, QThread, QThreadPool, QTimer, Signal
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
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Box
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import Go, ViewMode, Workbench
from sabre_desk.core.jobs.job_board import JobBoard
from sabre_desk.core.jobs.memory import image_cache_budget
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import CaseController
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.escape import EscapeToImage
from sabre_desk.gui.evaluation.evaluate_ui import EvaluateUi
from sabre_desk.gui.evaluation.export_dialog import export_release
from sabre_desk.gui.keyboard_home import KeyboardHome
from sabre_desk.gui.machinery.collector import collect_on_gui_thread
from sabre_desk.gui.machinery.image_loader import ImageLoader, Key, image_key
from sabre_desk.gui.machinery.index_reader import IndexReader
from sabre_desk.gui.machinery.job_views import JobStrip
from sabre_desk.gui.machinery.preview_sweep import PreviewSweep
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.gui.machinery.qimage import DisplayImage
from sabre_desk.gui.making.new_case_dialog import author_new_case
from sabre_desk.gui.making.pipeline_ui import PipelineUi
from sabre_desk.gui.making.screening_ui import ScreeningUi
from sabre_desk.gui.menus import WindowActions, WindowParts
from sabre_desk.gui.project_sources import ProjectSources
from sabre_desk.gui.repair.repair_ui import RepairUi
from sabre_desk.gui.review.boxes_ui import BoxesUi
from sabre_desk.gui.review.case_list import CaseList
from sabre_desk.gui.review.case_panel import CasePanel
from sabre_desk.gui.review.changes_ui import ChangesUi
from sabre_desk.gui.review.conflict import ask_conflict
from sabre_desk.gui.review.full_resolution import FullResolution
from sabre_desk.gui.screen_fit import (
    FrameOnScreen,
    dock_state,
    open_within_screen,
    remember_geometry,
    restore_docks,
    restore_geometry,
)
from sabre_desk.gui.status_labels import PositionLabel, SaveLabel
from sabre_desk.gui.team.team_ui import TeamUi
from sabre_desk.gui.toolbar import build_toolbar
from sabre_desk.gui.upgrade_ui import OpenAs, UpgradeOffer
from sabre_desk.gui.welcome import WelcomePage
from sabre_desk.settings import Settings, save_settings

PREFETCH_NEIGHBOURS = 2  # cases decoded ahead on each side of the current one
PREVIEWS_AHEAD = 12  # cases each side whose previews the sweep makes first
EMPTY_PROJECT = (
    "no cases yet: put case folders into its cases/ folder (see docs/PROJECT_FORMAT.md), "
    "then reopen the project"
)


class MainWindow(QMainWindow):
    images_shown = Signal(str)  # case id, once its images (or placeholders) are painted

    def __init__(self, reviewer: str, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        # cycles are freed on this thread, never on a pool's
        self.collector = collect_on_gui_thread()
        self.reviewer = reviewer
        self.settings = settings
        #: rendering a screenshot: problems go to stderr, never to a dialog nobody closes
        self.unattended = False
        self.session = Session(self)
        self.session.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
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
        self.loader.loaded.connect(self._on_image_loaded)
        self.loader.failed.connect(self._on_image_failed)
        self.loader.stale.connect(lambda _key: self.redisplay_case())
        self.jobs = ProcessJobs(parent=self)  # CPU-bound work, in worker processes
        self.previews = PreviewSweep(lambda f, a, d: self.jobs.submit(f, a, d, -10), self)
        self._waiting: dict[Key, ImageRole] = {}
        self._shown_case: str | None = None
        self.setWindowTitle("sabre-desk")
        self.setAcceptDrops(True)
        open_within_screen(self, 1560, 900)
        FrameOnScreen(self, lambda: self.unattended)

        self.compare = CompareView()
        self.compare.sync = settings.sync_views
        self.compare.all_painted.connect(self._on_all_painted)
        self.compare.settled.connect(self.loader.check_previews)
        self.full_res = FullResolution(self.loader, self.compare, self)
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
        self.central = QStackedWidget()
        self.central.addWidget(self.welcome)
        self.central.addWidget(self.compare)
        self.setCentralWidget(self.central)
        self.workbench = Workbench()
        self.index_reader = IndexReader(self.workbench, self)
        self.index_reader.progress.connect(self._on_index_progress)
        self.index_reader.finished.connect(self._on_index_finished)
        self.case_list = CaseList(self.workbench)
        self.case_list.case_selected.connect(self.show_case)
        self.case_list.message.connect(lambda text, ms: self.statusBar().showMessage(text, ms))
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
        for role, canvas in self.compare.canvases.items():
            canvas.cursor_moved.connect(lambda xy, r=role: self._on_cursor(r, xy))
            canvas.view_changed.connect(lambda r=role: self._on_cursor(r, None))

        self.position_label = PositionLabel()
        self.save_label = SaveLabel()
        self.statusBar().addPermanentWidget(self.position_label)
        self.statusBar().addPermanentWidget(self.save_label)
        self.repair_ui = RepairUi(
            self.session, self.compare, self.workbench, settings, self.jobs, self
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.repair_ui.dock)
        self.tabifyDockWidget(self.case_panel_dock, self.repair_ui.dock)
        self.case_panel_dock.raise_()
        self.repair_ui.show_files_requested.connect(self.show_files)
        self.repair_ui.redisplay_requested.connect(self.redisplay_case)
        self.changes_ui = ChangesUi(self.session, self.compare, self.workbench, self.jobs, self)
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
        self.actions_.add_to_edit(self.repair_ui.run_action)
        self.actions_.add_to_edit(self.repair_ui.accept_action)
        self.team_ui = TeamUi(
            self.session, self.compare, self.workbench, self.case_list.select, self.pool, self
        )
        self.actions_.add_to(self.actions_.review, "Team", self.team_ui.dialog_action)
        self.actions_.add_to(self.actions_.review, "Team", self.team_ui.reload_action)
        self.actions_.add_to(self.actions_.go, "Team", self.team_ui.next_action)
        self.job_board = JobBoard()  # model work in the background: status bar, Pipeline panel
        self.screening_ui = ScreeningUi(
            self.session, self.workbench, settings, self.job_board, self
        )
        self.actions_.review.addSeparator()
        self.actions_.add_to(self.actions_.review, "Review", self.screening_ui.case_action)
        self.actions_.add_to(self.actions_.review, "Review", self.screening_ui.project_action)
        self.evaluate_ui = EvaluateUi(self.session, settings, self.job_board, self)
        self.actions_.add_to_file(self.evaluate_ui.action)
        self.job_strip = JobStrip(self.job_board, parent=self)
        self.statusBar().addPermanentWidget(self.job_strip)
        # As tall as a running job's row from the start: a message or a job appearing never
        # changes its height and shifts the images above it.
        self.statusBar().setFixedHeight(
            max(self.statusBar().sizeHint().height(), self.job_strip.row_height() + 4)
        )
        self.actions_.add_to_view(self.changes_ui.action)
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
        self.statusBar().showMessage("Open a project folder (File > Open, or drop it here).")

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
        if open_as is OpenAs.NOT_AT_ALL:
            return False
        try:
            read_only = open_as is OpenAs.READ_ONLY
            project = Project.open(path, self.reviewer, index=False, read_only=read_only)
        except (ProjectError, ValueError) as exc:
            self.report_error("Cannot open project", str(exc))
            return False
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
            self._ask_for_images(project, first)  # decoded while the panels are built
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

    def _ask_for_images(self, project: Project, case_id: str) -> list[Key]:
        """Ask for the images of *case_id* as wanted on screen now (none for a case whose
        folder is not safe to read); their keys."""
        entry = project.entry(case_id)
        if entry is None or not entry.is_valid:
            return []
        return self.loader.request_folder(entry.folder, now=True)

    def _on_index_progress(self, done: int, total: int) -> None:
        self.statusBar().showMessage(
            f"{self._project_status} · reading the index: {done:,} of about {total:,} cases"
        )

    def _on_index_finished(self, project: Project) -> None:
        count = f"{len(project.entries):,} cases" if project.entries else EMPTY_PROJECT
        self.statusBar().showMessage(f"{self._project_status} · {count}")
        if not project.entries:
            self.compare.show_roles((ImageRole.IMAGE,))
            self.compare.canvases[ImageRole.IMAGE].show_message(EMPTY_PROJECT)
        self.collector.set_aside_long_lived()  # the index lives as long as the project
        self.changes_ui.sweep(project)
        self.team_ui.project_indexed(project)
        self.pipeline_ui.project_indexed(project)
        if self.loader.store is not None:
            self.previews.start(project, self.loader.store)

    def _attach_controller(self, controller: CaseController) -> None:
        controller.check_after_paint = True  # its images first, then the check of them
        controller.case_loaded.connect(self._on_case_loaded)
        controller.case_failed.connect(self._on_case_failed)
        controller.entry_changed.connect(self._on_entry_changed)
        controller.save_state_changed.connect(self.save_label.show_state)
        controller.conflict.connect(self._on_conflict)
        controller.job_failed.connect(self._on_job_failed)
        controller.decision_made.connect(self._on_decision_made)
        controller.undo_elsewhere.connect(self._undo_in)
        self.case_panel = CasePanel(controller)
        self.case_panel_dock.setWidget(self.case_panel)
        self.escape.watch(self.case_panel.notes)
        self.case_panel.add_section(self.changes_ui.section)
        self.case_panel.add_section(self.team_ui.section)
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
        wanted = self._ask_for_images(controller.project, case_id)  # read while it loads
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

    # --- the open case ----------------------------------------------------------------------

    def redisplay_case(self) -> None:
        """Show the open case's images again (after a comparison, or an image replaced)."""
        if self.controller is not None and self.controller.case is not None:
            self._on_case_loaded(self.controller.case)

    def show_files(self, files: dict[ImageRole, Path | None], boxes: list[Box]) -> None:
        """Show arbitrary image files on the canvases (a repair comparison), with *boxes*."""
        self._waiting.clear()
        self.boxes_ui.show_overlay(boxes, list(files))
        for role, path in files.items():
            canvas = self.compare.canvases[role]
            if path is None:
                self.compare.expect_paint(role)
                canvas.show_message("⚠ the image is missing")
                continue
            key = self.loader.request(path)
            image = self.loader.cached(key)
            if image is not None:
                self._show_image(role, key, image)
            else:
                self._waiting[key] = role
                canvas.show_message("Loading…")

    def _on_case_loaded(self, case: Case) -> None:
        self.workbench.set_current(case.case_id)
        self.workbench.set_mode(ViewMode.REVIEWING)  # a case opens to be reviewed
        self.boxes_ui.clear_overlay()
        self.changes_ui.note_activity()
        self.previews.sweep.note_activity()
        self._waiting.clear()
        self._shown_case = case.case_id
        roles = case.spec.image_roles
        self.compare.open_case(case.case_id)  # fitted, unless shown again
        info = case.image_info.get(roles[0])
        self.compare.set_aspect(info.width / info.height if info and info.height else None)
        self.compare.show_roles(roles)
        current = {image_key(case.images[r]) for r in roles if r in case.images}
        self.loader.cancel_except(current)
        self.jobs.hold()  # the case on screen first; released once it is painted
        self.compare.hold_frame()  # one frame for the case, with its images if they come soon
        for role in roles:
            canvas = self.compare.canvases[role]
            if role in case.image_problems:
                self.compare.expect_paint(role)
                canvas.show_message(f"⚠ {case.image_problems[role].message}")
                continue
            key = self.loader.request(case.images[role], now=True)
            image = self.loader.cached(key)
            failure = self.loader.failure(key)
            if image is not None:
                self._show_image(role, key, image)
            elif failure is not None:
                self.compare.expect_paint(role)
                canvas.show_message(f"⚠ {failure}")
            else:
                self._waiting[key] = role
                canvas.show_message("Loading…")

    def _on_case_failed(self, case_id: str, message: str) -> None:
        self._waiting.clear()
        self._shown_case = case_id
        self.compare.open_case(case_id)
        self.compare.show_roles((ImageRole.BASE, ImageRole.EDITED))
        for role in (ImageRole.BASE, ImageRole.EDITED):
            self.compare.expect_paint(role)
            self.compare.canvases[role].show_message("This case cannot be opened.")

    def _show_image(self, role: ImageRole, key: Key, image: DisplayImage) -> None:
        canvas = self.compare.canvases[role]
        self.compare.expect_paint(role)
        canvas.set_image(image)
        self.full_res.shown(role, key)
        self.boxes_ui.refresh(role, fresh=True)

    def _on_image_loaded(self, key: Key, image: DisplayImage) -> None:
        role = self._waiting.pop(key, None)
        if role is not None:  # otherwise a prefetch, or a case already left
            self._show_image(role, key, image)

    def _on_image_failed(self, key: Key, message: str) -> None:
        role = self._waiting.pop(key, None)
        if role is not None:
            self.compare.expect_paint(role)
            self.compare.canvases[role].show_message(f"⚠ {message}")

    def _on_all_painted(self) -> None:
        # Inside the paint of the frame: what follows is done once the frame is on the
        # screen (reading ahead, done here, kept it from there by 4 ms).
        QTimer.singleShot(0, self, partial(self._after_painted, self._shown_case))

    def _after_painted(self, case_id: str | None) -> None:
        if case_id != self._shown_case:
            return  # another case was opened meanwhile: its own paint follows
        self.jobs.release()
        self._show_zoom()
        if case_id is None:
            return
        if self.controller is not None:
            self.controller.case_shown(case_id)
        self.images_shown.emit(case_id)
        self._prefetch(case_id)  # only now: a quick flip queues no decode nobody will see

    def _prefetch(self, case_id: str) -> None:
        for entry in self.workbench.neighbours(case_id, PREFETCH_NEIGHBOURS):
            if entry.is_valid:
                self.loader.request_folder(entry.folder)
        ahead = self.workbench.neighbours(case_id, PREVIEWS_AHEAD)[2 * PREFETCH_NEIGHBOURS :]
        self.previews.ahead([e.folder for e in ahead if e.is_valid])  # found by later jumps

    # --- review changes -------------------------------------------------------------------

    def _on_entry_changed(self, case_id: str) -> None:
        entry = self.project.entry(case_id) if self.project else None
        if entry is not None:
            self.workbench.update_entry(entry)

    def _on_decision_made(self, decision: object) -> None:
        if self.settings.auto_advance and decision is not None:
            QTimer.singleShot(0, lambda: self.case_list.go(Go.UNREVIEWED))

    def _focus_image(self) -> None:
        """Esc in the notes or the filter: the keys decide and navigate again."""
        if self.case_panel is not None and self.case_panel.notes.hasFocus():
            self.case_panel.notes.commit()
        canvas = self.compare.active_canvas()
        if canvas is not None:
            canvas.setFocus()

    def focus_case(self) -> None:
        """Ctrl+I (or Esc with nothing else to cancel): the keyboard on the image, the Case
        tab in front: the review goes on from the keys wherever they were."""
        self._focus_image()
        if self.case_panel_dock.isVisible():
            self.case_panel_dock.raise_()

    # --- status, errors, conflicts --------------------------------------------------------

    def _show_zoom(self) -> None:
        """The status bar names an image of this case at its zoom now, never the last's."""
        canvas = self.compare.active_canvas()
        role = next((r for r, c in self.compare.canvases.items() if c is canvas), None)
        if role is not None:
            self._on_cursor(role, None)

    def _on_cursor(self, role: ImageRole, xy: tuple[int, int] | None) -> None:
        self.position_label.show_position(role, self.compare.canvases[role].screen_zoom, xy)

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
        self._waiting.clear()
        self.repair_ui.jobs.shutdown()
        self.changes_ui.shutdown()
        self.team_ui.shutdown()
        self.screening_ui.shutdown()
        self.evaluate_ui.shutdown()
        self.pipeline_ui.shutdown()
        self.previews.sweep.stop()
        self.jobs.shutdown()
        self.index_reader.stop()
        self.pool.waitForDone(5000)
        self.collector.hand_back()
        super().closeEvent(event)

    def wait_for_background(self, timeout_ms: int = 5000) -> bool:
        """Let image decodes, validity checks, repairs and change maps finish (tests,
        benchmarks, quitting)."""
        pools = [
            self.index_reader.pool,
            self.pool,
            self.repair_ui.jobs.pool,
            self.sources.pool,
            self.pipeline_ui.pool,
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
