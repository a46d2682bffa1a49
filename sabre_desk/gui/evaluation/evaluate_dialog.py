"""File > Evaluate a Release…: which release, which models (``PROVIDER:MODEL``, comma-
separated), and whether through the providers' batch services."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QWidget,
)

from sabre_desk.gui.desk.buttons import ok_cancel


class EvaluateDialog(QDialog):
    def __init__(self, models: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Evaluate a Release")
        form = QFormLayout(self)
        self.release = QLineEdit(self)
        self.release.setPlaceholderText("the folder Export Release… wrote")
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.release)
        row.addWidget(browse)
        form.addRow("Release", row)
        self.models = QLineEdit(models, self)
        self.models.setToolTip(
            "PROVIDER:MODEL, comma-separated: gemini:…, openai:…, anthropic:…, local:…"
        )
        form.addRow("Models", self.models)
        self.batch = QCheckBox("Through the providers' batch services (half price, within a day)")
        form.addRow("", self.batch)
        form.addRow(ok_cancel(self, "Evaluate"))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Release folder")
        if folder:
            self.release.setText(folder)

    @property
    def release_path(self) -> Path | None:
        text = self.release.text().strip()
        return Path(text) if text else None

    @property
    def model_names(self) -> list[str]:
        return [m.strip() for m in self.models.text().split(",") if m.strip()]
