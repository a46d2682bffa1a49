"""File > Switch Reviewer…: a laptop shared in turns. The next reviewer types her name and
the window acts as her from then on; what to do with the name (save the last reviewer's
work, open the project again as her) is the window's, which listens to ``chosen``."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.ground.ids import id_problem


class ReviewerDialog(QDialog):
    """Asks for a reviewer name; OK only while the name is one a review file can carry
    (the reason shown under the field otherwise), never the current one."""

    def __init__(self, current: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Switch Reviewer")
        self.current = current
        self.field = QLineEdit()
        self.field.setObjectName("reviewer_name")
        self.field.setPlaceholderText("the next reviewer's name")
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"Reviewing as {current}. The open case is saved first; from then on every "
            "decision is written under the new name, and blind review applies to it."
        )
        intro.setWordWrap(True)
        for widget in (intro, self.field, self.problem, self.buttons):
            layout.addWidget(widget)
        self.field.textChanged.connect(self._check)
        self._check("")

    def name(self) -> str:
        return self.field.text().strip()

    def _check(self, _text: str) -> None:
        name = self.name()
        problem = ""
        if name == self.current:
            problem = f"already reviewing as {name}"
        elif name:
            problem = id_problem(name, "reviewer name") or ""
        self.problem.setText(problem)
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(name) and not problem)


class SwitchReviewer(QObject):
    """The menu item and its dialog; ``chosen`` carries the new name."""

    chosen = Signal(str)

    def __init__(self, current: Callable[[], str], parent: QWidget) -> None:
        super().__init__(parent)
        self._current = current
        self._parent = parent
        self.action = QAction("Switch &Reviewer…", parent)
        self.action.setObjectName("switch_reviewer")
        self.action.setStatusTip("Let the next reviewer on this laptop work under her name")
        self.action.triggered.connect(self.ask)
        self.dialog: ReviewerDialog | None = None

    def ask(self) -> None:
        self.dialog = ReviewerDialog(self._current(), self._parent)
        self.dialog.accepted.connect(
            lambda: self.chosen.emit(self.dialog.name()) if self.dialog else None
        )
        self.dialog.open()  # window-modal, not a nested event loop
