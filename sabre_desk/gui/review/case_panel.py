"""The case panel: what to verify, the probe table, the decision and notes.

Everything here reads the open case from the controller and sends changes back to it; it
never edits the review itself.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QFocusEvent, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.primers import Primer
from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.validity import CaseReport
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.desk.fit_rows import fit_to_rows
from sabre_desk.gui.review.case_list_model import STATE_COLORS
from sabre_desk.gui.review.probe_model import (
    ANSWER,
    IMAGE,
    PREDICTION,
    PROBE,
    QUESTION,
    RESULT,
    ProbeModel,
)

COLUMN_WIDTHS = {PROBE: 96, IMAGE: 52, ANSWER: 64, PREDICTION: 80, RESULT: 74}
NOTES_COMMIT_MS = 250  # a pause in typing commits the notes (then autosave follows)
#: The probe table is as tall as its rows up to this; beyond, it scrolls (it is not inside
#: the scrolling pane above it).
PROBES_MOST_PX = 320
#: The Probe column widens to its longest id up to this, taking the room from the Question
#: column only while that keeps QUESTION_LEAST_PX (the question matters more than its id,
#: which its tooltip gives whole).
PROBE_COLUMN_MOST_PX = 160
QUESTION_LEAST_PX = 120


class SummaryLabel(QLabel):
    """The case's summary as tall as its text: inside the scrolling pane it has no
    scrollbar of its own."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("caseSummary")
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setContentsMargins(4, 2, 4, 2)

    def setHtml(self, html: str) -> None:
        self.setText(html)

    def toPlainText(self) -> str:
        document = QTextDocument()
        document.setHtml(self.text())
        return document.toPlainText()


def case_summary_html(case: Case, index_problem: str | None = None) -> str:
    """The head of the case panel: which case, what edit, what is wrong with its files."""
    spec = case.spec
    rows = [
        f"<h3 style='margin:0'>{escape(spec.concept_id)}</h3>",
        f"<p><b>Subset:</b> {escape(spec.pressure_test_type)} · "
        f"<b>Mode:</b> {escape(spec.generation_mode.value)}</p>",
    ]
    source, target = spec.attribute("source_entity"), spec.attribute("target_entity")
    if source or target:
        rows.append(f"<p><b>Edit:</b> {escape(source or '?')} → {escape(target or '?')}</p>")
    location = spec.attribute("review_location")
    if location:
        rows.append(f"<p><b>Review location:</b> {escape(location)}</p>")
    if index_problem:
        rows.append(f"<p style='color:#c62828'>⚠ {escape(index_problem)}</p>")
    for warning in case.warnings:
        where = warning.path
        if where is not None and where.is_relative_to(case.folder):
            where = where.relative_to(case.folder)  # "reviews/bob.json", not a long path
        text = f"{where}: {warning.reason}" if where is not None else warning.message
        rows.append(f"<p style='color:#c62828'>⚠ {escape(text)}</p>")
    return "\n".join(rows)


def case_details_html(case: Case) -> str:
    """The rest of what the spec says, shown below what the change map and the team found
    (those are what a reviewer must see at once on a small screen)."""
    spec, rows = case.spec, []
    if spec.objective:
        rows.append(f"<p><b>Objective:</b> {escape(spec.objective)}</p>")
    if spec.generation_notes:
        notes = "".join(f"<li>{escape(n)}</li>" for n in spec.generation_notes)
        rows.append(f"<p><b>Generation notes:</b></p><ul>{notes}</ul>")
    latest = case.screening.latest if case.screening else None
    if latest is not None and latest.note:
        rows.append(f"<p><i>{escape(latest.note)}</i></p>")
    return "\n".join(rows)


def checklist_key(role: str, label: str) -> str:
    return f"{role}:{label}"


class NotesEdit(QPlainTextEdit):
    """Commits after a pause in typing and when it loses focus."""

    def __init__(self, commit: Callable[[str], object], parent: QWidget | None = None):
        super().__init__(parent)
        self._commit = commit
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(NOTES_COMMIT_MS)
        self._timer.timeout.connect(self.commit)
        self.textChanged.connect(self._timer.start)
        self._loading = False

    def set_text_quietly(self, text: str) -> None:
        if text != self.toPlainText():
            self._loading = True
            self.setPlainText(text)
            self._loading = False
        self._timer.stop()

    def commit(self) -> None:
        self._timer.stop()
        if not self._loading:
            self._commit(self.toPlainText())

    def focusOutEvent(self, event: QFocusEvent) -> None:
        self.commit()
        super().focusOutEvent(event)


class CheckItem(QWidget):
    """A checklist item whose text wraps: a check box cannot wrap its own text, and an item
    cut at the pane's edge hides what the reviewer is asked to check.

    Items are kept from case to case and given the next case's key and text (``show_item``):
    making five widgets with their layouts at every case switch cost the GUI thread a few
    milliseconds each time."""

    def __init__(self, toggled: Callable[[str, bool], object]) -> None:
        super().__init__()
        self.key = ""
        self.box = QCheckBox()
        self.box.toggled.connect(lambda on: toggled(self.key, on))
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setBuddy(self.box)
        self.label.mousePressEvent = lambda _event: self.box.toggle()  # type: ignore[method-assign]
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)

    def show_item(self, key: str, text: str) -> None:
        self.key = key
        self.box.setAccessibleName(text)
        self.label.setText(text)


class CasePanel(QWidget):
    def __init__(self, controller: CaseController, parent: QWidget | None = None):
        super().__init__(parent)
        self.controller = controller
        self.summary = SummaryLabel()
        self.details = SummaryLabel()
        self.checklist_box = QGroupBox("Verify")
        self.checklist_layout = QVBoxLayout(self.checklist_box)
        self.design_button = QPushButton("Task design…")
        self.design_button.setToolTip("What this stress test is for, how its images are made")
        self.design_button.clicked.connect(self.show_task_design)
        #: the primer's title, wrapped: a group box's title never wraps, and a long one would
        #: widen the pane past its view (the text beside it then cut instead of wrapped)
        self.primer_label = QLabel()
        self.primer_label.setWordWrap(True)
        self.checklist_layout.addWidget(self.primer_label)
        self.checklist_layout.addWidget(self.design_button)
        self._checklist_rows: list[CheckItem] = []
        self.primer: Primer | None = None
        self.design_dialog: QDialog | None = None
        #: finds the primer of a case; the window sets it when a project opens
        self.primer_for: Callable[[Case], Primer | None] = lambda _case: None
        self.checklist: dict[str, QCheckBox] = {}

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
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(QUESTION, QHeaderView.ResizeMode.Stretch)
        header.setTextElideMode(Qt.TextElideMode.ElideRight)
        for column, width in COLUMN_WIDTHS.items():
            self.probes.setColumnWidth(column, width)
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
        self.notes.setMaximumHeight(64)
        grid.addWidget(self.notes, 3, 0, 1, 2)
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
        self.top_scroll = QScrollArea()
        self.top_scroll.setWidgetResizable(True)
        self.top_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.top_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.top_scroll.setWidget(top)
        self.top_scroll.setMinimumHeight(120)
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
        self._build_checklist(case)
        self._sync(case, Aspect.ALL)
        width = self._probe_column_width()
        if width != self.probes.columnWidth(PROBE):  # setting it lays the table out again
            self.probes.setColumnWidth(PROBE, width)
        self._fit_probe_rows()
        self.top_scroll.verticalScrollBar().setValue(0)  # each case opens at its top
        editable = self.controller.editable
        paired = len(case.spec.image_roles) == 2
        for decision, button in self.decision_buttons.items():
            button.setEnabled(editable and (paired or not decision.needs_pair))
        self.notes.setReadOnly(not editable)
        self.validity_note.hide()

    def _probe_column_width(self) -> int:
        others = sum(width for column, width in COLUMN_WIDTHS.items() if column != PROBE)
        room = self.probes.viewport().width() - others - QUESTION_LEAST_PX
        widest = min(self.probes.sizeHintForColumn(PROBE), PROBE_COLUMN_MOST_PX, room)
        return max(COLUMN_WIDTHS[PROBE], widest)

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
        self.summary.setHtml(
            f"<p style='color:#c62828'><b>{escape(case_id)} cannot be "
            f"opened.</b></p><p>{escape(message)}</p>"
        )
        self.details.setHtml("")
        self._build_checklist(None)
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
            for key, box in self.checklist.items():
                box.blockSignals(True)
                box.setChecked(review.checklist.get(key, False))
                box.blockSignals(False)

    def _build_checklist(self, case: Case | None) -> None:
        """The review targets of the spec, then the validity checklist of the case's primer."""
        items: list[tuple[str, str]] = []
        for target in case.spec.review_targets if case else []:
            text = f"{target.label} ({target.image_role.value}): {target.description}"
            items.append((checklist_key(target.image_role.value, target.label), text))
        primer = self.primer_for(case) if case is not None else None
        if primer is not None:
            items += [(f"primer:{item.id}", item.text) for item in primer.header.checklist]
        self.primer = primer
        self.design_button.setVisible(primer is not None)
        self.primer_label.setText(f"Primer: {primer.header.title}" if primer else "")
        self.primer_label.setVisible(primer is not None)
        self.checklist_box.setVisible(bool(items))
        while len(self._checklist_rows) < len(items):
            row = CheckItem(self.controller.set_checklist)
            self.checklist_layout.addWidget(row)
            self._checklist_rows.append(row)
        self.checklist = {}
        for row, (key, text) in zip(self._checklist_rows, items, strict=False):
            row.show_item(key, text)
            row.show()
            self.checklist[key] = row.box
        for row in self._checklist_rows[len(items) :]:
            row.hide()
        if case is not None:
            self._sync(case, Aspect.CHECKLIST)

    def show_task_design(self) -> None:
        """The primer's Task Design, rendered, in a window the reviewer can keep open: one
        window (asked again, it shows this primer's design and comes to the front)."""
        if self.primer is None:
            return
        dialog = self.design_dialog
        if dialog is None:
            dialog = QDialog(self)
            dialog.resize(560, 620)
            layout = QVBoxLayout(dialog)
            layout.addWidget(QTextBrowser(dialog))
            buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
            buttons.rejected.connect(dialog.close)
            layout.addWidget(buttons)
            self.design_dialog = dialog
        dialog.setWindowTitle(self.primer.header.title)
        text = dialog.findChild(QTextBrowser)
        if text is not None:
            text.setMarkdown(self.primer.design)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()

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
