"""The probe table: a Qt model over the open case's questions, edits and screening.

Question and reference answer are editable; an edit goes through the controller (so it is
validated by the core rules, undoable and saved) and shows in bold with the original in the
tooltip. The filter's result is the gate's own view of each probe (``screening_of``): graded
against the answer as it is now, and marked stale when the image changed (a repair) or the
question was edited since the run asked it, exactly as the case list and `validate` see it.

A question the evaluated models answer otherwise (flagged by ``audit --flag``) shows what
they agreed on under the reference, on an amber ground until a reviewer settles it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFont

from sabre_desk.core.case.gate import ProbeView
from sabre_desk.core.case.project import Case
from sabre_desk.core.case.question_edits import effective
from sabre_desk.core.case.spec import OPTION_LETTERS, Question, QuestionType
from sabre_desk.core.desk.audit_queue import AuditQueue, FlaggedAnswer
from sabre_desk.gui.desk.controller import Aspect, CaseController

#: Short enough to show whole in a laptop-sized panel; the full names are the tooltips.
COLUMNS = ("Probe", "Image", "Question", "Answer", "Filter said", "Result")
COLUMN_TIPS = (
    "The probe's id",
    "The image the question is about",
    "The question, as exported (bold: edited by you)",
    "The reference answer, as exported (bold: edited by you; 'models:' what the evaluated "
    "models agreed on instead, amber until settled)",
    "What the filtering model answered",
    "Whether the filtering model's answer was correct",
)
PROBE, IMAGE, QUESTION, ANSWER, PREDICTION, RESULT = range(6)
CORRECT, INCORRECT = QColor("#2e7d32"), QColor("#c62828")
STALE = QColor("#9e9e9e")  # a filter answer about another image or question
DISPUTED = QColor("#ffe0b2")  # a reference the models agree against, not yet settled
ANSWER_HINTS = {
    QuestionType.YES_NO: "yes or no",
    QuestionType.MULTIPLE_CHOICE: "a letter A–D",
}

Index = QModelIndex | QPersistentModelIndex


def answer_hint(question: Question) -> str:
    if question.eval_type == "count_exact":
        return "a whole number (0, 1, 2 …)"
    return ANSWER_HINTS.get(question.question_type, "free text")


def stale_label(reason: str) -> str:
    """The Result column's word for a stale filter result, from the gate's reason."""
    if "question" in reason:
        return "Question edited"
    return "Before repair" if "repair" in reason else "Image changed"


class ProbeModel(QAbstractTableModel):
    def __init__(self, controller: CaseController, parent: QObject | None = None):
        super().__init__(parent)
        self.controller = controller
        self.case: Case | None = None
        #: the gate's view of each probe of the open case (empty: never screened)
        self.views: dict[str, ProbeView] = {}
        self.last_error: str | None = None
        #: the project's audit (the window sets it): flagged questions of the open case
        self.audit: AuditQueue | None = None
        self.flagged: dict[str, FlaggedAnswer] = {}
        controller.case_loaded.connect(self._on_case_loaded)
        controller.case_failed.connect(lambda *_: self._on_case_loaded(None))
        controller.review_changed.connect(self._on_review_changed)

    def _on_case_loaded(self, case: Case | None) -> None:
        self.beginResetModel()
        self.case = case
        self._judge()
        self._read_audit()
        self.endResetModel()

    def _read_audit(self) -> None:
        case, audit = self.case, self.audit
        self.flagged = audit.flagged(case.case_id) if case is not None and audit else {}

    def audit_changed(self) -> None:
        """The audit was read, or a flag of the open case settled: the marks again."""
        before = self.flagged
        self._read_audit()
        if (before or self.flagged) and self.rowCount():
            last = self.rowCount() - 1
            self.dataChanged.emit(self.index(0, ANSWER), self.index(last, ANSWER))

    def _judge(self) -> None:
        """The gate's view, again: a stat of each image (hashed only when it changed, and
        then once per process), no model call."""
        case = self.case
        if case is None or case.screening is None:
            self.views = {}
            return
        self.views = dict(self.controller.project.screening_of(case).verdict.probes)

    def _on_review_changed(self, aspect: Aspect) -> None:
        if aspect in (Aspect.QUESTION_EDITS, Aspect.REPAIRS, Aspect.ALL) and self.rowCount():
            self._judge()
            last = self.rowCount() - 1
            self.dataChanged.emit(self.index(0, QUESTION), self.index(last, RESULT))

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.case is None else len(self.case.spec.questions)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            return COLUMN_TIPS[section]
        return None

    def question(self, row: int) -> Question:
        assert self.case is not None
        return self.case.spec.questions[row]

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (QUESTION, ANSWER) and self.controller.editable:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.case is None:
            return None
        q = self.question(index.row())
        edit = self.case.review.question_edits.get(q.probe_id)
        prompt, answer = effective(q, edit)
        latest = self.case.screening.latest if self.case.screening else None
        view = self.views.get(q.probe_id)
        stale = view.stale if view is not None and latest is not None else None
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            if col == PROBE:
                return q.probe_id
            if col == IMAGE:
                return q.image_role.value
            if col == QUESTION:
                if role == Qt.ItemDataRole.DisplayRole and q.options:
                    options = "  ".join(
                        f"{k}. {v}" for k, v in zip(OPTION_LETTERS, q.options, strict=False)
                    )
                    return f"{prompt}\n{options}"
                return prompt
            if col == ANSWER:
                flag = self.flagged.get(q.probe_id)
                if flag is not None and role == Qt.ItemDataRole.DisplayRole:
                    return f"{answer}\nmodels: {flag.agreed}"
                return answer
            if col == PREDICTION:
                return view.response if view is not None and view.response is not None else "—"
            if col == RESULT:
                if stale is not None:
                    return stale_label(stale)
                if view is None or view.correct is None:
                    return "—"
                return "Correct" if view.correct else "Incorrect"
        if role == Qt.ItemDataRole.ForegroundRole and col in (PREDICTION, RESULT) and stale:
            return STALE
        if role == Qt.ItemDataRole.ForegroundRole and col == RESULT and view is not None:
            return None if view.correct is None else (CORRECT if view.correct else INCORRECT)
        if role == Qt.ItemDataRole.BackgroundRole and col == ANSWER:
            flag = self.flagged.get(q.probe_id)
            return DISPUTED if flag is not None and not flag.settled else None
        if role == Qt.ItemDataRole.FontRole and col in (QUESTION, ANSWER):
            edited = edit is not None and (
                (col == QUESTION and edit.prompt is not None)
                or (col == ANSWER and edit.answer is not None)
            )
            if edited:
                font = QFont()
                font.setBold(True)
                return font
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == PROBE:  # whole, where a narrow panel cuts it
                return q.probe_id
            if col == QUESTION and edit and edit.prompt is not None:
                return f"Edited by you. Original: {q.prompt}"
            if col == ANSWER:
                original = (
                    f"Edited by you. Original: {q.answer}. "
                    if edit and edit.answer is not None
                    else ""
                )
                flag = self.flagged.get(q.probe_id)
                models = f"\n{flag.describe()}" if flag is not None else ""
                return f"{original}Expected: {answer_hint(q)} ({q.eval_type}){models}"
            if col in (PREDICTION, RESULT) and latest is not None and stale is not None:
                return (
                    f"{latest.model} answered on {latest.at}: {stale}; screen the case again "
                    "(Review > Screen This Case Again, Ctrl+Alt+S)"
                )
            if col == RESULT and latest is not None:
                edited = bool(view and view.regraded) or bool(edit and edit.answer is not None)
                regraded = " (graded against the edited answer)" if edited else ""
                return f"{latest.model}, {latest.at}{regraded}"
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or self.case is None:
            return False
        probe_id = self.question(index.row()).probe_id
        if index.column() == QUESTION:
            self.last_error = self.controller.edit_question(probe_id, prompt=str(value))
        elif index.column() == ANSWER:
            self.last_error = self.controller.edit_question(probe_id, answer=str(value))
        else:
            return False
        if self.last_error:
            self.controller.job_failed.emit(self.last_error)
            return False
        return True
