"""In the repair panel: who holds the lock on the open case's images, and breaking a lock
whose holder is evidently gone (with the reviewer's confirmation).

Polled while a case is open (one ``stat`` of the owner record when nobody holds it), so a
lock taken in another window or on another computer shows up by itself: every second while
a lock is held or just after the case opened, less often the longer nobody takes one.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMessageBox, QPushButton, QWidget

from sabre_desk.core.case.locks import LockOwner, break_lock, holder, is_stale
from sabre_desk.core.case.project import Case
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.controller import CaseController
from sabre_desk.gui.machinery.polling import backed_off

POLL_MS = 1000
POLL_MAX_MS = 4000


class LockBanner(QWidget):
    def __init__(self, controller: CaseController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.owner: LockOwner | None = None
        self.label = QLabel()
        self.label.setObjectName("lockHolder")
        self.label.setWordWrap(True)
        self.label.setStyleSheet("color: #c62828")
        self.break_button = QPushButton("Break the lock…")
        self.break_button.setToolTip(
            "Its holder looks gone (no such process here, or held far longer than an accept "
            "takes): remove the lock after you confirm"
        )
        self.break_button.clicked.connect(self.ask_to_break)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.break_button)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.refresh)
        controller.case_loaded.connect(self._on_case_loaded)
        self.hide()

    def _on_case_loaded(self, _case: Case) -> None:
        self.refresh()
        self._timer.start(POLL_MS)

    def refresh(self) -> None:
        case = self.controller.case
        before, self.owner = self.owner, holder(case.folder) if case is not None else None
        held = self.owner is not None  # while held, it may become stale: looked at often
        backed_off(self._timer, held or before is not None, POLL_MS, POLL_MAX_MS)
        if self.owner is None:
            self.hide()
            return
        stale = is_stale(self.owner)
        self.label.setText(
            f"The images of this case are locked by {self.owner.describe()}"
            + (": it looks stale." if stale else "; accept and revert wait for it.")
        )
        self.break_button.setVisible(stale)
        self.show()

    def ask_to_break(self) -> None:
        case, owner = self.controller.case, self.owner
        if case is None or owner is None:
            return
        answer = QMessageBox.question(
            self,
            "Break the lock?",
            f"The lock on this case's images is held by {owner.describe()}.\n\nBreak it only "
            "if that window is closed or that computer is gone: a repair it is still "
            "accepting could then run at the same time as yours.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        broken = break_lock(case.folder)
        try:
            self.controller.project.record(
                case, "lock_broken", {"owner": broken.model_dump() if broken else None}
            )
        except ProjectError as exc:
            self.controller.job_failed.emit(f"Lock broken, but not logged: {exc.message}")
        self.refresh()
