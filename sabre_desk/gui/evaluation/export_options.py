"""File > Export Release…: what the release is, asked before it is written.

The same choices as `sabre-desk export`: the new folder, the release's name, the licence
its dataset card declares, the final decisions it takes, how many current reviews a case
needs, and hard links instead of copies. Defaults are the command's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.review import Decision
from sabre_desk.core.release.export import default_release_name
from sabre_desk.core.release.release_card import HF_LICENSES

NO_LICENSE = "(none chosen yet)"
MOST_REVIEWS = 20


@dataclass
class ExportOptions:
    """What `export` is given (the command's options, by the same names)."""

    out: Path
    name: str | None = None
    license_id: str | None = None
    min_reviews: int = 1
    decisions: set[Decision] = field(default_factory=lambda: {Decision.KEEP})
    link: bool = False


class ExportOptionsDialog(QDialog):
    def __init__(self, project_root: Path, project_name: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Export Release")
        self.folder = QLineEdit(str(project_root.parent / f"{project_root.name}-release"))
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        self.name = QLineEdit()
        self.name.setPlaceholderText(default_release_name(project_name))
        self.license = QComboBox()
        self.license.addItem(NO_LICENSE, None)
        for license_id in sorted(HF_LICENSES):
            self.license.addItem(license_id, license_id)
        self.min_reviews = QSpinBox()
        self.min_reviews.setRange(1, MOST_REVIEWS)
        self.min_reviews.setToolTip(
            "Leave out cases resting on fewer current reviews (adjudicated cases are kept)"
        )
        self.decisions: dict[Decision, QCheckBox] = {}
        grid = QGridLayout()
        for i, decision in enumerate(Decision):
            box = QCheckBox(decision.label)
            box.setChecked(decision is Decision.KEEP)
            box.toggled.connect(self._check)
            self.decisions[decision] = box
            grid.addWidget(box, i // 2, i % 2)
        self.link = QCheckBox("Hard-link the images instead of copying them (same disk only)")
        form = QFormLayout()
        form.addRow("New folder", folder_row)
        form.addRow("Name", self.name)
        form.addRow("Licence", self.license)
        form.addRow("Final decisions", grid)
        form.addRow("Reviews per case, at least", self.min_reviews)
        form.addRow("", self.link)
        self.problem = QLabel()
        self.problem.setStyleSheet("color: #c62828")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Export")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.folder.textChanged.connect(self._check)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._check()

    def _browse(self) -> None:
        chosen, _ = QFileDialog.getSaveFileName(self, "Export release to a new folder", "")
        if chosen:
            self.folder.setText(chosen)

    def _check(self) -> None:
        """Export is offered once the choices can make a release (the export checks the
        rest, such as a name VLMEvalKit accepts, and says so)."""
        folder = self.folder.text().strip()
        problem = ""
        if not folder:
            problem = "Name a new folder for the release."
        elif Path(folder).exists():
            problem = "That folder exists already: a release goes into a new one."
        elif not any(box.isChecked() for box in self.decisions.values()):
            problem = "Choose at least one final decision to export."
        self.problem.setText(problem)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(not problem)

    def options(self) -> ExportOptions:
        return ExportOptions(
            out=Path(self.folder.text().strip()),
            name=self.name.text().strip() or None,
            license_id=self.license.currentData(),
            min_reviews=self.min_reviews.value(),
            decisions={d for d, box in self.decisions.items() if box.isChecked()},
            link=self.link.isChecked(),
        )
