"""The main window: case list, Base/Edited images, case panel. Wiring only.

Images are decoded on the window's own thread pool; each load carries a token and results
for a case the reviewer already left are dropped.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QThreadPool, Signal
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QImage, QKeySequence
from PySide6.QtWidgets import (
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QMainWindow,
    QMessageBox,
    QWidget,
)

from sabre_desk import __version__
from sabre_desk.core.errors import CaseLoadError, ProjectError
from sabre_desk.core.project import Case, Project
from sabre_desk.core.spec import ImageRole
from sabre_desk.gui.qimage import decode_to_qimage
from sabre_desk.gui.widgets.case_list import CaseList
from sabre_desk.gui.widgets.case_panel import CasePanel
from sabre_desk.gui.widgets.image_panel import ImagePanel
from sabre_desk.gui.workers import Worker
from sabre_desk.settings import Settings, save_settings

ROLE_CAPTIONS = {ImageRole.BASE: "Base", ImageRole.EDITED: "Edited", ImageRole.IMAGE: "Image"}


class MainWindow(QMainWindow):
    images_shown = Signal(str)  # case id, once every image of the case is painted or failed

    def __init__(self, reviewer: str, settings: Settings, parent: QWidget | None = None):
        super().__init__(parent)
        self.reviewer = reviewer
        self.settings = settings
        self.project: Project | None = None
        self.case: Case | None = None
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(max(2, settings.pool_size))
        self._token = 0
        self._pending: set[ImageRole] = set()
        self.setWindowTitle("sabre-desk")
        self.setAcceptDrops(True)
        self.resize(1440, 860)

        self.case_list = CaseList()
        self.case_panel = CasePanel()
        self.panels = {role: ImagePanel(ROLE_CAPTIONS[role]) for role in ImageRole}
        center = QWidget()
        row = QHBoxLayout(center)
        row.setContentsMargins(0, 0, 0, 0)
        for panel in self.panels.values():
            row.addWidget(panel, 1)
        self.setCentralWidget(center)
        docks = [
            self._dock("Cases", self.case_list, left=True),
            self._dock("Case", self.case_panel, left=False),
        ]
        self.resizeDocks(docks, [250, 470], Qt.Orientation.Horizontal)
        self._build_menu()
        self.case_list.case_selected.connect(self.show_case)
        self._show_roles(())
        self.statusBar().showMessage("Open a project folder (File > Open, or drop it here).")

    # --- construction -------------------------------------------------------------------

    def _dock(self, title: str, widget: QWidget, left: bool) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{title.lower()}")
        dock.setWidget(widget)
        side = (
            Qt.DockWidgetArea.LeftDockWidgetArea if left else Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.addDockWidget(side, dock)
        return dock

    def _build_menu(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        open_action = QAction("&Open Project…", self)
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._choose_project)
        file_menu.addAction(open_action)
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self._fill_recent()
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        help_menu = self.menuBar().addMenu("&Help")
        about = QAction("&About sabre-desk", self)
        about.triggered.connect(
            lambda: QMessageBox.about(
                self,
                "About sabre-desk",
                f"sabre-desk {__version__}\nHuman verification of "
                "SABRE stress-test cases, offline.",
            )
        )
        help_menu.addAction(about)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent_projects:
            action = QAction(path, self)
            action.triggered.connect(lambda _=False, p=path: self.open_project(Path(p)))
            self.recent_menu.addAction(action)
        self.recent_menu.setEnabled(bool(self.settings.recent_projects))

    # --- project ------------------------------------------------------------------------

    def open_project(self, path: Path, case_id: str | None = None) -> bool:
        try:
            project = Project.open(path, self.reviewer)
        except (ProjectError, ValueError) as exc:
            self.report_error("Cannot open project", str(exc))
            return False
        self.project = project
        self.settings.add_recent(project.root)
        try:
            save_settings(self.settings)
        except ProjectError as exc:
            self.statusBar().showMessage(f"Recent projects not saved: {exc.message}")
        self._fill_recent()
        mode = " [read-only]" if project.read_only else ""
        self.setWindowTitle(f"{project.name}{mode} — sabre-desk")
        self.case_list.set_entries(project.entries)
        status = f"{project.root} · reviewer {self.reviewer} · {len(project.entries)} cases"
        if project.read_only:
            status += " · read-only: this folder cannot be written, nothing will be saved"
        self.statusBar().showMessage(status)
        first = case_id or (project.entries[0].case_id if project.entries else None)
        if first and not self.case_list.select(first):
            self.report_error("No such case", f"{case_id!r} is not a case of {project.root}")
            if project.entries:
                self.case_list.select(project.entries[0].case_id)
        return True

    def _choose_project(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open sabre-desk project")
        if folder:
            self.open_project(Path(folder))

    # --- case ---------------------------------------------------------------------------

    def show_case(self, case_id: str) -> None:
        if self.project is None:
            return
        self._token += 1
        try:
            case = self.project.load_case(case_id)
        except CaseLoadError as exc:
            self.case = None
            self.case_panel.show_error(exc.message)
            self._show_roles(())
            self.images_shown.emit(case_id)
            return
        self.case = case
        self.case_panel.show_case(case)
        roles = case.spec.image_roles
        self._show_roles(roles)
        self._pending = set(roles)
        for role in roles:
            view = self.panels[role].view
            if role in case.image_problems:
                view.set_message(f"⚠ {case.image_problems[role].message}")
                self._pending.discard(role)
                continue
            view.set_message("Loading…")
            worker = Worker(decode_to_qimage, case.images[role])
            token = self._token
            worker.signals.returned.connect(
                lambda image, r=role, t=token: self._on_image_loaded(t, r, image)
            )
            worker.signals.errored.connect(
                lambda exc, r=role, t=token: self._on_image_failed(t, r, exc)
            )
            worker.start(self.pool)
        self._maybe_done()

    def _show_roles(self, roles: tuple[ImageRole, ...]) -> None:
        for role, panel in self.panels.items():
            panel.setVisible(role in roles or (not roles and role is not ImageRole.IMAGE))
            if not roles:
                panel.view.set_message("")

    def _on_image_loaded(self, token: int, role: ImageRole, image: QImage) -> None:
        if token != self._token:
            return  # the reviewer has moved on; drop the stale image
        self.panels[role].view.set_image(image)
        self._pending.discard(role)
        self._maybe_done()

    def _on_image_failed(self, token: int, role: ImageRole, exc: Exception) -> None:
        if token != self._token:
            return
        message = exc.message if isinstance(exc, ProjectError) else f"{type(exc).__name__}: {exc}"
        self.panels[role].view.set_message(f"⚠ {message}")
        self._pending.discard(role)
        self._maybe_done()

    def _maybe_done(self) -> None:
        if not self._pending and self.case is not None:
            self.images_shown.emit(self.case.case_id)

    # --- errors, drag and drop, closing -------------------------------------------------

    def report_error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(f"{title}: {message}")
        QMessageBox.warning(self, title, message)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile() and Path(urls[0].toLocalFile()).is_dir():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.open_project(Path(event.mimeData().urls()[0].toLocalFile()))

    def closeEvent(self, event: QCloseEvent) -> None:
        self._token += 1
        self.pool.waitForDone(3000)
        super().closeEvent(event)
