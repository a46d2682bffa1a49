"""Pipeline > Write Specifications…: which Test Primer, and how many specifications to ask
the design model for (what `sabre-desk generate specs --primer P --n N` asks)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QSpinBox,
    QWidget,
)

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.gui.desk.buttons import note, ok_cancel

MAX_SPECS = 1000
DEFAULT_SPECS = 10


class WriteSpecsDialog(QDialog):
    def __init__(
        self, library: PrimerLibrary, default: str | None, model: str, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.setWindowTitle("Write Specifications")
        self.primer = QComboBox()
        for primer in sorted(library.primers.values(), key=lambda p: p.name):
            self.primer.addItem(f"{primer.name}: {primer.header.title}", primer.name)
        self.primer.setCurrentIndex(max(self.primer.findData(default), 0))
        self.n = QSpinBox()
        self.n.setRange(1, MAX_SPECS)
        self.n.setValue(DEFAULT_SPECS)
        self.buttons = ok_cancel(self, "Write")
        form = QFormLayout(self)
        form.addRow("Test Primer", self.primer)
        form.addRow("How many", self.n)
        form.addRow(
            note(
                f"Written one at a time by {model} (the spec_model setting), each checked "
                "against the primer and sent back with the reasons when it fails them. Each "
                "waits for Make Images; every call is entered in the cost ledger."
            )
        )
        form.addRow(self.buttons)
        self.resize(520, self.sizeHint().height())

    @property
    def choice(self) -> tuple[str, int]:
        """The primer's name and how many specifications."""
        return str(self.primer.currentData()), self.n.value()
