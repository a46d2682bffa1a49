"""Where a project comes from: a folder chosen, a new empty project, or the demo."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from sabre_desk.core.case.project import MANIFEST_NAME
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.machinery.workers import Worker, screen_pool
from sabre_desk.gui.making.new_project_dialog import NewProjectDialog
from sabre_desk.settings import config_dir


class ProjectSources:
    def __init__(
        self,
        parent: QWidget,
        open_project: Callable[[Path], object],
        report_error: Callable[[str, str], None],
        say: Callable[[str], None],
    ):
        self.parent, self.open_project, self.report_error = parent, open_project, report_error
        self.say = say
        self.pool = screen_pool(parent, 1)  # the demo, drawn off the GUI thread, waited for

    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self.parent, "Open sabre-desk project")
        if folder:
            self.open_project(Path(folder))

    def new(self) -> None:
        dialog = NewProjectDialog(self.parent)
        if dialog.exec() and dialog.created is not None:
            self.open_project(dialog.created)

    def demo(self) -> None:
        """The demo project, written into the settings folder the first time (drawn on a
        worker thread: about a second and a half), then opened like any other."""
        folder = config_dir() / "demo-project"
        if (folder / MANIFEST_NAME).is_file():
            self.open_project(folder)
            return
        self.say("Drawing the demo project…")
        from sabre_desk.demo.writer import write_demo_project  # draws with OpenCV: on demand

        worker = Worker(write_demo_project, folder)
        worker.returned.connect(lambda _root: self.open_project(folder))
        worker.errored.connect(
            lambda exc: self.report_error(
                "Cannot write the demo project",
                exc.message if isinstance(exc, ProjectError) else str(exc),
            )
        )
        worker.start(self.pool)
