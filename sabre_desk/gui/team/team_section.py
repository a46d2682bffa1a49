"""The team in the case panel: blind review's notice, then the reviewers side by side.

One column per reviewer (yours first), in the reviewer's colour: decision, notes, boxes,
question edits. Above it what needs you: your decision was made on an image since
repaired, the others disagree and your decision settles it, or two reviewers edited a
question differently.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from sabre_desk.core.case.review import Review
from sabre_desk.core.team.final import edit_text
from sabre_desk.core.team.team import CaseTeam
from sabre_desk.gui.desk.fit_rows import fit_to_rows
from sabre_desk.gui.team.team_boxes import TeamColors

ROWS = ("Decision", "Notes", "Boxes", "Question edits")
WARN, ALERT = "#e8a33d", "#c62828"


def _decision(review: Review, stale: bool) -> str:
    text = review.decision.label if review.decision else "not decided"
    if stale:
        text += " (stale: made on an earlier image)"
    if review.adjudication and review.decision:
        text += " — adjudication"
    return text


def _edits(review: Review) -> str:
    return "; ".join(
        f"{probe}: {edit_text(edit)}" for probe, edit in sorted(review.question_edits.items())
    )


def notices(team: CaseTeam, own: Review) -> list[str]:
    """What the reviewer must know about the team on this case, as HTML lines."""
    lines = []
    if team.hidden:
        lines.append(
            f"<b>Blind review:</b> {team.others_count} other reviewer(s) judged this case; "
            "their decisions, notes and boxes show once you have decided it."
        )
    if team.own_stale and own.decision is not None:
        why = team.own_stale_why or "an image changed since"
        lines.append(
            f"<span style='color:{WARN}'>⚠ Your decision ({escape(own.decision.label)}) was "
            f"made on an earlier image — {escape(why)}. Decide again.</span>"
        )
    if team.adjudicating:
        lines.append(
            "⚖ <b>The reviewers disagree.</b> Your decision settles it (it is recorded as an "
            "adjudication)."
        )
    for conflict in team.conflicts:
        lines.append(
            f"<span style='color:{ALERT}'>Conflicting question edits, {escape(conflict)}: "
            "not merged; an adjudicator's edit settles it.</span>"
        )
    return lines


class TeamSection(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.notice = QLabel()
        self.notice.setObjectName("teamNotice")
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.RichText)
        self.table = QTableWidget(len(ROWS), 0)
        self.table.setObjectName("teamTable")
        self.table.setVerticalHeaderLabels(list(ROWS))
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.notice)
        layout.addWidget(self.table)
        self.hide()

    def show_team(self, own: Review, team: CaseTeam | None, colors: TeamColors) -> None:
        """Show the team's view of the open case; None (or nobody else): hidden."""
        if team is None or (not team.others_count and not team.own_stale):
            self.hide()
            return
        lines = notices(team, own)
        self.notice.setText("<br>".join(lines))
        self.notice.setVisible(bool(lines))
        columns = [] if team.hidden else [own, *(team.others[n] for n in sorted(team.others))]
        self.table.setColumnCount(len(columns))
        for column, review in enumerate(columns):
            name = review.reviewer
            header = QTableWidgetItem(f"{name} (you)" if review is own else name)
            header.setForeground(QBrush(colors.of(name)))
            self.table.setHorizontalHeaderItem(column, header)
            cells = (
                _decision(review, name in team.stale),
                review.notes,
                ", ".join(b.label or "box" for b in review.boxes) or "none",
                _edits(review) or "none",
            )
            for row, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if row == 0 and name in team.stale:
                    item.setForeground(QBrush(QColor(WARN)))
                self.table.setItem(row, column, item)
        self.table.setVisible(bool(columns))
        self.table.resizeRowsToContents()
        fit_to_rows(self.table)  # in the case panel's scrolling pane: no scrollbar of its own
        self.show()

    def cell(self, row: str, reviewer: str) -> str:
        """The text shown for *reviewer* in *row* ('' when not shown): for tests and
        screen readers alike, the table in words."""
        for column in range(self.table.columnCount()):
            header = self.table.horizontalHeaderItem(column)
            if header is not None and header.text().split(" ")[0] == reviewer:
                item = self.table.item(ROWS.index(row), column)
                return item.text() if item is not None else ""
        return ""
