"""The head of the case panel: which case, what edit, what is wrong with its files, and
the rest of what the spec says.

Kept apart from the panel's controls: this is text built from the case alone, the same on
every screen."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel

from sabre_desk.core.case.project import Case


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
    """Which case, what edit, what is wrong with its files."""
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


def cannot_open_html(case_id: str, message: str) -> str:
    """What the summary says in place of a case that could not be read."""
    return (
        f"<p style='color:#c62828'><b>{escape(case_id)} cannot be "
        f"opened.</b></p><p>{escape(message)}</p>"
    )
