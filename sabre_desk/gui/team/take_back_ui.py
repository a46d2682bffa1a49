"""File > Take Back Work from a Copy…: a reviewer's copy of the project (a train ride, a
clone, an unzipped archive) brought back into the open one (core/team/merge.py).

The copy is chosen, the merge runs dry first (off the window's thread) and the dialog
shows what it would take, in the words of `sabre-desk merge --dry-run`; Take Back runs it
for real and ``taken`` asks the window to open the project again, so the index and the
open case show what came back.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.team.merge import MergeResult, merge_copy
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.workers import Worker, screen_pool


class TakeBackDialog(QDialog):
    """What the merge would do (or the reason it cannot), and Take Back / Cancel; Take
    Back stays off until the dry run has said there is something to take."""

    def __init__(self, copy: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Take Back Work from a Copy")
        self.copy = copy
        self.intro = QLabel(f"Reading {copy}…")
        self.intro.setWordWrap(True)
        self.report = QPlainTextEdit()
        self.report.setObjectName("take_back_report")
        self.report.setReadOnly(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.take = self.buttons.addButton("Take Back", QDialogButtonBox.ButtonRole.AcceptRole)
        self.take.setObjectName("take_back")
        self.take.setEnabled(False)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.report, self.buttons):
            layout.addWidget(widget)
        self.resize(720, 420)

    def show_plan(self, result: MergeResult) -> None:
        self.intro.setText(
            "Nothing is written until you take it back; reviews changed on both sides are "
            "kept side by side, never overwritten."
        )
        self.report.setPlainText("\n".join(result.lines()))
        self.take.setEnabled(bool(result.steps))

    def show_problem(self, reason: str) -> None:
        self.intro.setText("This folder cannot be taken back:")
        self.report.setPlainText(reason)
        self.take.setEnabled(False)


class TakeBackUi(QObject):
    """The menu item and its dialog; ``taken`` carries what the merge did."""

    taken = Signal(object)

    def __init__(self, session: Session, parent: QWidget) -> None:
        super().__init__(parent)
        self.session, self._parent = session, parent
        self.pool = screen_pool(self, 1)  # a take-back the user started and waits for
        self.action = QAction("Take &Back Work from a Copy…", parent)
        self.action.setObjectName("take_back_work")
        self.action.setStatusTip("Bring the work done in a copy or clone of this project back")
        self.action.triggered.connect(self.choose)
        self.dialog: TakeBackDialog | None = None
        self.last: MergeResult | None = None

    def choose(self) -> None:
        if self.session.project is None:
            return
        folder = QFileDialog.getExistingDirectory(self._parent, "The copy to take work back from")
        if folder:
            self.preview(Path(folder))

    def preview(self, copy: Path) -> None:
        """Show the dialog with the dry run of merging *copy* into the open project."""
        project = self.session.project
        if project is None:
            return
        controller = self.session.controller
        if controller is not None:
            controller.flush()  # what is on screen is on disk before the two are compared
        self.dialog = dialog = TakeBackDialog(copy, self._parent)
        dialog.accepted.connect(lambda: self._apply(project.root, copy))
        self._run(project.root, copy, True, dialog.show_plan, dialog.show_problem)
        dialog.open()  # window-modal, not a nested event loop

    def _apply(self, root: Path, copy: Path) -> None:
        self._run(root, copy, False, self._done, self._failed)

    def _run(
        self,
        root: Path,
        copy: Path,
        dry: bool,
        ok: Callable[[MergeResult], None],
        bad: Callable[[str], None],
    ) -> None:
        worker = Worker(merge_copy, root, copy, dry_run=dry)
        worker.returned.connect(ok)
        worker.errored.connect(lambda exc: bad(str(exc)))
        worker.start(self.pool)

    def _done(self, result: MergeResult) -> None:
        self.last = result
        self.taken.emit(result)

    def _failed(self, reason: str) -> None:
        if self.dialog is not None:
            self.dialog.show_problem(reason)
            self.dialog.open()
