"""Conflict copies in the window: a note in the case panel when the open case holds a
second version of your review, File > Settle Conflict Copies…, and the dialog that shows
both versions side by side and keeps the one you pick (the other is archived under
``.archive/`` beside it, never deleted; see core/team/conflict_copies).

Only your own reviews' copies are shown (another reviewer's would break blind review),
and the copies of the project's own files (``sabre-project.json``, ``assignments.json``).
After a settle the window opens the project again (``settled``), so nothing on screen
still holds the version set aside.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QGridLayout,
    QLabel,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.team.conflict_copies import (
    ARCHIVE_DIR,
    HEADING,
    ConflictCopy,
    copies_in,
    find_conflict_copies,
    settle,
)
from sabre_desk.gui.desk.session import Session


def yours(copies: list[ConflictCopy], reviewer: str) -> list[ConflictCopy]:
    """The copies *reviewer* may settle: of her own review, or of the project's files."""
    return [c for c in copies if c.original.parent.name != "reviews" or c.original.stem == reviewer]


def _shown(path: Path) -> str:
    """A version as the dialog shows it: its JSON laid out, or its text when unreadable."""
    try:
        raw = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return f"(cannot be read: {exc.strerror or exc})"
    try:
        return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
    except ValueError:
        return raw


class ConflictCopiesDialog(QDialog):
    """Each conflict copy beside the file it is a version of; "Keep this version" under
    each side settles it; ``changed`` once anything was settled."""

    def __init__(self, root: Path, reviewer: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.root, self.reviewer = root, reviewer
        self.setWindowTitle("Settle Conflict Copies")
        self.resize(900, 560)
        self.list = QListWidget()
        self.heading = QLabel()
        self.original, self.copy = QPlainTextEdit(), QPlainTextEdit()
        self.original_label, self.copy_label = QLabel(), QLabel()
        self.keep_original = QPushButton("Keep this version")
        self.keep_copy = QPushButton("Keep this version")
        grid = QGridLayout()
        for column, (label, text, button) in enumerate(
            (
                (self.original_label, self.original, self.keep_original),
                (self.copy_label, self.copy, self.keep_copy),
            )
        ):
            text.setReadOnly(True)
            grid.addWidget(label, 0, column)
            grid.addWidget(text, 1, column)
            grid.addWidget(button, 2, column)
        where = QLabel(f"The version not kept is moved to {ARCHIVE_DIR}/ beside it, never deleted.")
        layout = QVBoxLayout(self)
        for widget in (self.heading, self.list):
            layout.addWidget(widget)
        layout.addLayout(grid)
        layout.addWidget(where)
        self.copies: list[ConflictCopy] = []
        self.changed = False
        self.list.currentRowChanged.connect(self._show)
        self.keep_original.clicked.connect(lambda: self._settle(keep_copy=False))
        self.keep_copy.clicked.connect(lambda: self._settle(keep_copy=True))
        self.refresh()

    def refresh(self, select: Path | None = None) -> None:
        self.copies = yours(find_conflict_copies(self.root), self.reviewer)
        self.heading.setText(
            f"{HEADING}: {len(self.copies)}" if self.copies else "No conflict copies to settle."
        )
        self.list.clear()
        self.list.addItems([c.line(self.root) for c in self.copies])
        rows = [i for i, c in enumerate(self.copies) if c.original == select]
        self.list.setCurrentRow(rows[0] if rows else (0 if self.copies else -1))
        self._show(self.list.currentRow())

    def _show(self, row: int) -> None:
        copy = self.copies[row] if 0 <= row < len(self.copies) else None
        for button in (self.keep_original, self.keep_copy):
            button.setEnabled(copy is not None)
        if copy is None:
            for text in (self.original, self.copy):
                text.clear()
            self.original_label.setText("")
            self.copy_label.setText("")
            return
        self.original_label.setText(f"In place: {copy.original.name}")
        self.copy_label.setText(f"The {copy.tool} copy: {copy.path.name}")
        self.original.setPlainText(_shown(copy.original))
        self.copy.setPlainText(_shown(copy.path))

    def _settle(self, keep_copy: bool) -> None:
        row = self.list.currentRow()
        if not 0 <= row < len(self.copies):
            return
        copy = self.copies[row]
        settle(copy, keep_copy, datetime.now(UTC).strftime("%Y%m%dT%H%M%S"))
        self.changed = True
        self.refresh(select=copy.original)


class ConflictCopiesUi(QObject):
    """The menu item, the case panel's note and the dialog; ``settled`` asks the window
    to open the project again."""

    settled = Signal()

    def __init__(self, session: Session, parent: QWidget) -> None:
        super().__init__(parent)
        self.session, self._parent = session, parent
        self.action = QAction("Settle &Conflict Copies…", parent)
        self.action.setObjectName("settle_conflict_copies")
        self.action.setStatusTip("Pick one version where a synced drive kept two")
        self.action.triggered.connect(self.show_dialog)
        # Made with the window as its parent: a label of its own would stay alive in Qt with
        # its link's slot, and with it this object and the window (until the case panel
        # takes it, which a window closed on its welcome page never does).
        self.note = QLabel(parent)
        self.note.setObjectName("conflictCopiesNote")
        self.note.setWordWrap(True)
        self.note.setVisible(False)
        self.note.linkActivated.connect(self._on_link)
        self.dialog: ConflictCopiesDialog | None = None

    def _on_link(self, _link: str) -> None:
        self.show_dialog()

    def case_loaded(self, case_folder: Path) -> None:
        """The note for the case now open: shown when it holds a copy of your review."""
        project = self.session.project
        if project is None:
            self.note.setVisible(False)
            return
        mine = yours(copies_in(case_folder / "reviews"), project.reviewer)  # this case only
        self.note.setText(
            f"⚠ <b>{len(mine)} other version(s) of your review</b> of this case lie beside it "
            f"(a synced drive's conflict copy). <a href='settle'>Compare and pick one…</a>"
        )
        self.note.setVisible(bool(mine))

    def show_dialog(self) -> None:
        project = self.session.project
        if project is None:
            return
        controller = self.session.controller
        if controller is not None:
            controller.flush()  # what is on screen is on disk before two versions are compared
        self.dialog = ConflictCopiesDialog(project.root, project.reviewer, self._parent)
        self.dialog.finished.connect(self._closed)
        self.dialog.open()

    def _closed(self, _result: int) -> None:
        if self.dialog is not None and self.dialog.changed:
            self.settled.emit()
