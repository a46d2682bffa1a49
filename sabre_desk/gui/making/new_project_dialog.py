"""File > New Project: a folder, a name and a primer; the project is made by `init`'s code
and opened, so a reviewer starting from their own cases never types a JSON file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.making.new_project import init_project, project_name_for
from sabre_desk.ground.errors import ProjectError

NO_PRIMER = "(none: choose per case later)"


class NewProjectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, start: Path | None = None):
        super().__init__(parent)
        self.setWindowTitle("New Project")
        self.created: Path | None = None
        self.folder = QLineEdit(str(start or Path.home() / "sabre-project"))
        self.folder.textChanged.connect(self._folder_changed)
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.folder, 1)
        row.addWidget(browse)
        self.name = QLineEdit(project_name_for(Path(self.folder.text())))
        self._name_touched = False
        self.name.textEdited.connect(lambda _t: setattr(self, "_name_touched", True))
        self.primer = QComboBox()
        self.primer.addItem(NO_PRIMER, None)
        library = PrimerLibrary.for_project(None)
        for primer in sorted(library.primers.values(), key=lambda p: p.name):
            self.primer.addItem(f"{primer.name}: {primer.header.title}", primer.name)
        self.problem = QLabel()
        self.problem.setObjectName("problem")
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.make_project)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Folder (new or empty)", row)
        form.addRow("Name", self.name)
        form.addRow("Test Primer", self.primer)
        form.addRow(self.problem)
        form.addRow(self.buttons)
        self.resize(560, self.sizeHint().height())

    def _folder_changed(self, text: str) -> None:
        if not self._name_touched:
            self.name.setText(project_name_for(Path(text)))

    def _browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Folder for the new project")
        if chosen:
            self.folder.setText(chosen)

    def make_project(self) -> None:
        """Make the project; on failure the reason stays in the dialog, nothing is written."""
        text = self.folder.text().strip()
        if not text:
            self.problem.setText("Choose a folder for the project.")
            return
        try:
            self.created = init_project(
                Path(text).expanduser(), self.name.text(), self.primer.currentData()
            )
        except ProjectError as exc:
            self.problem.setText(exc.message)
            return
        self.accept()
