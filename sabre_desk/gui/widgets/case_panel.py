"""The case panel: what the reviewer must verify, and the probe table with filter results."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.project import Case

PROBE_COLUMNS = ("Probe", "Image", "Question", "Reference", "Filter prediction", "Filter result")
CORRECT, INCORRECT = QColor("#2e7d32"), QColor("#c62828")


def case_summary_html(case: Case) -> str:
    spec = case.spec
    rows = [
        f"<h3>{escape(spec.concept_id)}</h3>",
        f"<p><b>Subset:</b> {escape(spec.pressure_test_type)} · "
        f"<b>Mode:</b> {escape(spec.generation_mode.value)}</p>",
    ]
    source, target = spec.attribute("source_entity"), spec.attribute("target_entity")
    if source or target:
        rows.append(f"<p><b>Edit:</b> {escape(source or '?')} → {escape(target or '?')}</p>")
    location = spec.attribute("review_location")
    if location:
        rows.append(f"<p><b>Review location:</b> {escape(location)}</p>")
    if spec.objective:
        rows.append(f"<p><b>Objective:</b> {escape(spec.objective)}</p>")
    if spec.review_targets:
        items = "".join(
            f"<li>☐ <b>{escape(t.label)}</b> ({t.image_role.value}): {escape(t.description)}</li>"
            for t in spec.review_targets
        )
        rows.append(f"<p><b>Verify:</b></p><ul>{items}</ul>")
    if spec.generation_notes:
        notes = "".join(f"<li>{escape(n)}</li>" for n in spec.generation_notes)
        rows.append(f"<p><b>Generation notes:</b></p><ul>{notes}</ul>")
    latest = case.screening.latest if case.screening else None
    if latest is not None and latest.note:
        rows.append(f"<p><i>{escape(latest.note)}</i></p>")
    for warning in case.warnings:
        rows.append(f"<p style='color:#c62828'>⚠ {escape(warning.message)}</p>")
    return "\n".join(rows)


class CasePanel(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = QTextBrowser()
        self.summary.setOpenExternalLinks(False)
        self.probes = QTableWidget(0, len(PROBE_COLUMNS))
        self.probes.setHorizontalHeaderLabels(PROBE_COLUMNS)
        self.probes.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.probes.setWordWrap(True)
        self.probes.verticalHeader().setVisible(False)
        header = self.probes.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.summary)
        splitter.addWidget(self.probes)
        splitter.setSizes([300, 200])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(splitter)

    def show_case(self, case: Case) -> None:
        self.summary.setHtml(case_summary_html(case))
        latest = case.screening.latest if case.screening else None
        self.probes.setRowCount(len(case.spec.questions))
        for row, question in enumerate(case.spec.questions):
            edit = case.review.question_edits.get(question.probe_id)
            prompt = (edit.prompt if edit and edit.prompt else None) or question.prompt
            answer = (edit.answer if edit and edit.answer else None) or question.answer
            if question.options:
                prompt += "\n" + "\n".join(
                    f"{letter}. {text}"
                    for letter, text in zip("ABCD", question.options, strict=False)
                )
            result = latest.results.get(question.probe_id) if latest else None
            cells = [
                question.probe_id,
                question.image_role.value,
                prompt,
                answer,
                result.response if result else "—",
                "—"
                if result is None or result.correct is None
                else ("Correct" if result.correct else "Incorrect"),
            ]
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == 5 and result is not None and result.correct is not None:
                    item.setForeground(QBrush(CORRECT if result.correct else INCORRECT))
                self.probes.setItem(row, col, item)
        self.probes.resizeRowsToContents()

    def show_error(self, message: str) -> None:
        self.summary.setHtml(
            f"<p style='color:#c62828'><b>This case cannot be opened.</b></p>"
            f"<p>{escape(message)}</p>"
        )
        self.probes.setRowCount(0)
