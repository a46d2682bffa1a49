"""The case panel: what to verify, the probe table, the decision and notes.

Everything here reads the open case from the controller and sends changes back to it; it
never edits the review itself.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.primers import Primer
from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.validity import CaseReport
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.desk.fit_rows import fit_to_rows
from sabre_desk.gui.machinery.fitted_scroll import FittedScroll
from sabre_desk.gui.review.case_list_model import STATE_COLORS
from sabre_desk.gui.review.case_summary import (
    SummaryLabel,
    cannot_open_html,
    case_details_html,
    case_summary_html,
)
from sabre_desk.gui.review.checklist import VerifyChecklist
from sabre_desk.gui.review.notes_field import NOTES_LEAST_PX, NotesEdit
from sabre_desk.gui.review.probe_columns import ProbeColumns
from sabre_desk.gui.review.probe_model import QUESTION, ProbeModel

#: The probe table is as tall as its rows up to this; beyond, it scrolls (it is not inside
#: the scrolling pane above it).
PROBES_MOST_PX = 320


class CasePanel(QWidget):
    def __init__(self, controller: CaseController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.summary = SummaryLabel()
        self.details = SummaryLabel()
        self.checklist_box = VerifyChecklist(controller.set_checklist)
        #: finds the primer of a case; the window sets it when a project opens
        self.primer_for: Callable[[Case], Primer | None] = lambda _case: None

        self.probe_model = ProbeModel(controller, self)
        self.probes = QTableView()
        self.probes.setObjectName("probeTable")
        self.probes.setModel(self.probe_model)
        self.probes.setWordWrap(True)
        self.probes.verticalHeader().setVisible(False)
        self.probes.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectItems)
        self.probes.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.AnyKeyPressed
        )
        header = self.probes.horizontalHeader()
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.probe_columns = ProbeColumns(self.probes)
        # The questions wrap in the Question column, which stretches with the pane: when it
        # changes width (the pane laid out once shown, the dock dragged) the rows are fitted
        # to their text again, or a question is cut at its row's bottom.
        self._refit_rows = QTimer(self)
        self._refit_rows.setSingleShot(True)
        self._refit_rows.setInterval(0)
        self._refit_rows.timeout.connect(self._fit_probe_rows)
        header.sectionResized.connect(
            lambda column, _old, _new: column == QUESTION and self._refit_rows.start()
        )

        self.decision_buttons: dict[Decision, QPushButton] = {}
        self.decision_group = QButtonGroup(self)
        decision_box = QGroupBox("Decision")
        grid = QGridLayout(decision_box)
        for i, decision in enumerate(Decision):
            button = QPushButton(f"{i + 1}  {decision.label}")
            button.setCheckable(True)
            button.setObjectName(f"decision_{decision.value}")
            button.setToolTip(f"{decision.label} (key {i + 1})")
            button.setStyleSheet(
                f"QPushButton:checked {{ background: {STATE_COLORS[decision]};"
                " color: white; font-weight: 600; }"
            )
            button.clicked.connect(lambda _=False, d=decision: self._on_decision_clicked(d))
            self.decision_group.addButton(button)
            self.decision_buttons[decision] = button
            grid.addWidget(button, i // 2, i % 2)
        self.decision_group.setExclusive(False)
        self.notes = NotesEdit(controller.set_notes)
        self.notes.setPlaceholderText("Notes for this case…")
        self.notes.setMinimumHeight(NOTES_LEAST_PX)
        grid.addWidget(self.notes, 3, 0, 1, 2)
        grid.addWidget(self.notes.room, 5, 0, 1, 2)  # how much more the notes hold
        # Why Keep cannot be chosen, where the decisions are (an invalid case is never kept).
        self.validity_note = QLabel()
        self.validity_note.setObjectName("validity_note")
        self.validity_note.setWordWrap(True)
        self.validity_note.setStyleSheet("color: #c62828")
        self.validity_note.hide()
        grid.addWidget(self.validity_note, 4, 0, 1, 2)

        top = QWidget()
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.summary)
        top_layout.addWidget(self.details)  # the sections go in above it
        top_layout.addWidget(self.checklist_box)
        top_layout.addStretch(1)
        self._top_layout = top_layout
        # The summary, the sections (change map, team) and the checklist scroll in one pane,
        # so on a 720-pixel laptop screen the probe table and the decisions keep their room
        # and no section makes the window taller. Nothing in it scrolls on its own; the
        # probe table is as tall as its rows, and the pane gets the rest.
        self.top_scroll = FittedScroll(top, least=120)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.top_scroll, 1)
        layout.addWidget(self.probes)
        layout.addWidget(decision_box)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c62828")
        self.error.hide()
        layout.addWidget(self.error)

        controller.case_loaded.connect(self._on_case_loaded)
        controller.case_failed.connect(self._on_case_failed)
        controller.review_changed.connect(self._on_review_changed)
        controller.validity_changed.connect(self._on_validity_changed)
        controller.decision_refused.connect(self._on_decision_refused)
        self.setEnabled(False)

    # --- controller signals ------------------------------------------------------------

    def _on_case_loaded(self, case: Case) -> None:
        self.setEnabled(True)
        self.error.hide()
        entry = self.controller.project.entry(case.case_id)
        self.summary.setHtml(case_summary_html(case, entry.problem_text if entry else None))
        self.details.setHtml(case_details_html(case))
        self.checklist_box.show_for(case, self.primer_for(case))
        self._sync(case, Aspect.ALL)
        self.probe_columns.fit()
        self._fit_probe_rows()
        self.top_scroll.verticalScrollBar().setValue(0)  # each case opens at its top
        editable = self.controller.editable
        paired = len(case.spec.image_roles) == 2
        for decision, button in self.decision_buttons.items():
            button.setEnabled(editable and (paired or not decision.needs_pair))
        self.notes.setReadOnly(not editable)
        self.validity_note.hide()

    def _fit_probe_rows(self) -> None:
        self.probes.resizeRowsToContents()
        fit_to_rows(self.probes, PROBES_MOST_PX)

    def _on_validity_changed(self, report: CaseReport) -> None:
        keep = self.decision_buttons[Decision.KEEP]
        if report.valid:
            keep.setEnabled(self.controller.editable)
            self.validity_note.hide()
            return
        keep.setEnabled(False)
        self.validity_note.setText(
            f"This case is invalid, so it cannot be kept: {report.reason}. "
            "The other decisions stay possible."
        )
        self.validity_note.show()

    def _on_decision_refused(self, why: str) -> None:
        self.validity_note.setText(why)
        self.validity_note.show()

    def _on_case_failed(self, case_id: str, message: str) -> None:
        self.summary.setHtml(cannot_open_html(case_id, message))
        self.details.setHtml("")
        self.checklist_box.show_for(None, None)
        self.notes.set_text_quietly("")
        for button in self.decision_buttons.values():
            button.setChecked(False)
            button.setEnabled(False)

    def _on_review_changed(self, aspect: Aspect) -> None:
        if self.controller.case is not None:
            self._sync(self.controller.case, aspect)

    def _sync(self, case: Case, aspect: Aspect) -> None:
        review = case.review
        if aspect in (Aspect.DECISION, Aspect.ALL):
            for decision, button in self.decision_buttons.items():
                button.setChecked(review.decision == decision)
        if aspect in (Aspect.NOTES, Aspect.ALL):
            self.notes.set_text_quietly(review.notes)
        if aspect in (Aspect.CHECKLIST, Aspect.ALL):
            self.checklist_box.tick(review.checklist)

    # The checklist's parts, by the names the window's callers and tests use.
    @property
    def checklist(self) -> dict[str, QCheckBox]:
        return self.checklist_box.boxes

    @property
    def primer_label(self) -> QLabel:
        return self.checklist_box.primer_label

    @property
    def design_button(self) -> QPushButton:
        return self.checklist_box.design_button

    @property
    def design_dialog(self) -> QDialog | None:
        return self.checklist_box.design_dialog

    def _on_decision_clicked(self, decision: Decision) -> None:
        case = self.controller.case
        if case is None:
            return
        self.controller.set_decision(decision)
        # the button state follows the review (also when the click was refused)
        self._sync(self.controller.case or case, Aspect.DECISION)

    def add_section(self, widget: QWidget) -> None:
        """A section of another feature (the change map's findings, the team's reviews)
        under the summary, above the checklist: what it found is seen first."""
        self._top_layout.insertWidget(self._top_layout.indexOf(self.details), widget)

    def show_error(self, message: str) -> None:
        self.error.setText(message)
        self.error.setVisible(bool(message))
