"""The audit queue in the window: the case list's "Answers the models dispute" and the
models' answers beside the reference in the probe table.

The flags and their standing are read on a worker once the index is whole
(``audit_queue.read_audit``: ``project_standing``, what ``stats`` counts); then each change
to the open case's decision or question edits settles its flags again from its reviews as
edited, so a settled case leaves the list as the reviewer settles it, and ``stats`` agrees
once the review is saved (a fraction of a second later).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal

from sabre_desk.core.case.project import Project
from sabre_desk.core.desk.audit_queue import AuditQueue, read_audit
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.core.release.audit import AuditStanding
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.workers import Worker
from sabre_desk.gui.review.probe_model import ProbeModel

#: The changes to a review that can settle a flag: an answer edited, a decision made again.
SETTLING = (Aspect.DECISION, Aspect.QUESTION_EDITS, Aspect.ALL)


class AuditUi(QObject):
    """Keeps the workbench's audit set and the probe table's marks in step with the
    project's audit; ``changed`` is emitted after each change of either."""

    changed = Signal()

    def __init__(self, session: Session, workbench: Workbench, parent: QObject) -> None:
        super().__init__(parent)
        self.session, self.workbench = session, workbench
        self.queue = AuditQueue()
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.queue.changed.connect(self._on_queue_changed)
        session.opened.connect(self._on_opened)

    def attach(self, probes: ProbeModel) -> None:
        """A new case panel's probe table shows this audit."""
        probes.audit = self.queue
        self.changed.connect(probes.audit_changed)

    def _on_opened(self, controller: CaseController) -> None:
        self.queue.clear()  # nothing of the last project's audit is shown
        controller.review_changed.connect(lambda aspect: self._on_review_changed(aspect))

    def project_indexed(self, project: Project) -> None:
        """Read the project's audit (its flagged cases are loaded, so on the worker)."""
        worker = Worker(read_audit, project)
        worker.returned.connect(lambda result: self._read(project, result))
        worker.errored.connect(lambda exc: self._failed(project, exc))
        worker.start(self.pool)

    def _read(self, project: Project, result: tuple[list[dict[str, Any]], AuditStanding]) -> None:
        if project is not self.session.project:
            return  # another project opened meanwhile
        flags, standing = result
        self.queue.set(flags, standing)
        case = self.session.case
        if case is not None:  # settled on screen while the audit was read
            self._on_review_changed(Aspect.ALL)
        left = len(standing.unsettled)
        if left:
            self.session.say(
                f"{left} answer(s) the models dispute to settle: the case list's "
                '"Answers the models dispute" shows their cases',
                10000,
            )

    def _failed(self, project: Project, exc: BaseException) -> None:
        if project is self.session.project:
            self.session.say(f"The audit was not read: {exc}", 15000)

    def _on_review_changed(self, aspect: Aspect) -> None:
        case = self.session.case
        if aspect in SETTLING and case is not None:
            # one's own review as edited (saved a moment later), and the others' as read
            reviews = [*case.other_reviews.values(), case.review]
            self.queue.case_reviewed(case.case_id, reviews)

    def _on_queue_changed(self, cases: frozenset[str]) -> None:
        self.workbench.set_audit(cases)
        self.changed.emit()
