"""The case list as a Qt model over the project's index (a plain Python list)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

from sabre_desk.core.project import CaseEntry
from sabre_desk.core.review import Decision

ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
STATE_COLORS: dict[Decision | None, str] = {
    None: "#9aa0a6",
    Decision.KEEP: "#2e9d4f",
    Decision.NEEDS_RECHECK: "#e8a33d",
    Decision.UNSURE: "#7e6bc4",
    Decision.EDIT_FAILED: "#d9534f",
    Decision.BASE_INVALID: "#d9534f",
    Decision.SCENE_CHANGED: "#d9534f",
}
INVALID_COLOR = "#b00020"
#: Filter choices for the decision combo: (label, key); key "" = all.
DECISION_FILTERS = [
    ("All decisions", ""),
    ("Not reviewed", "unreviewed"),
    *[(d.label, d.value) for d in Decision],
    ("Invalid", "invalid"),
    ("Repair pending", "repair"),
    ("Changes outside the edit", "outside"),
]
REPAIR_BADGE = "#d81b60"
OUTSIDE_BADGE = "#e53935"

Index = QModelIndex | QPersistentModelIndex


def state_icon(color: str, kind: str, badge: bool = False, outside: bool = False) -> QIcon:
    """A small state glyph: hollow = to do, filled = decided, cross = invalid; a magenta
    corner badge marks a repair preview waiting for a decision."""
    pix = QPixmap(16, 16)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = painter.pen()
    pen.setColor(QColor(color))
    pen.setWidthF(2.0)
    painter.setPen(pen)
    if kind == "invalid":
        painter.drawLine(4, 4, 12, 12)
        painter.drawLine(12, 4, 4, 12)
    elif kind == "todo":
        painter.drawEllipse(3, 3, 10, 10)
    else:
        painter.setBrush(QColor(color))
        painter.drawEllipse(3, 3, 10, 10)
    if badge:
        painter.setPen(QColor("white"))
        painter.setBrush(QColor(REPAIR_BADGE))
        painter.drawRect(10, 0, 6, 6)
    if outside:  # a small warning triangle: changes outside the edit
        painter.setPen(QColor("white"))
        painter.setBrush(QColor(OUTSIDE_BADGE))
        painter.drawPolygon([QPoint(0, 16), QPoint(4, 9), QPoint(8, 16)])
    painter.end()
    return QIcon(pix)


class CaseListModel(QAbstractListModel):
    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._entries: list[CaseEntry] = []
        self._rows: dict[str, int] = {}
        self._icons = {
            (d, badge, out): state_icon(c, "todo" if d is None else "done", badge, out)
            for d, c in STATE_COLORS.items()
            for badge in (False, True)
            for out in (False, True)
        }
        self._invalid = state_icon(INVALID_COLOR, "invalid")

    def set_entries(self, entries: list[CaseEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        self._rows = {e.case_id: i for i, e in enumerate(self._entries)}
        self.endResetModel()

    def update_entry(self, entry: CaseEntry) -> None:
        row = self._rows.get(entry.case_id)
        if row is not None:
            self._entries[row] = entry
            index = self.index(row)
            self.dataChanged.emit(index, index)

    def entry(self, row: int) -> CaseEntry:
        return self._entries[row]

    def row_of(self, case_id: str) -> int | None:
        return self._rows.get(case_id)

    @property
    def entries(self) -> list[CaseEntry]:
        return self._entries

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's idiom
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self._entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return e.case_id
        if role == Qt.ItemDataRole.DecorationRole:
            if e.problem:
                return self._invalid
            return self._icons[(e.decision, e.pending_repair, bool(e.changes_outside))]
        if role == Qt.ItemDataRole.ToolTipRole:
            if e.problem:
                where = f"{e.problem_file.name}: " if e.problem_file else ""
                return f"Invalid — {where}{e.problem}"
            label = e.decision.label if e.decision else "Not reviewed"
            repair = " — a repair preview is waiting" if e.pending_repair else ""
            outside = " — changes outside the edit (press D)" if e.changes_outside else ""
            return f"{e.subset or 'unknown subset'} — {label}{repair}{outside}"
        if role == ENTRY_ROLE:
            return e
        return None


class CaseFilterModel(QSortFilterProxyModel):
    """Filter by decision, subset and text (id, subset or concept)."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.decision = ""
        self.subset = ""
        self.text = ""

    def set_filters(
        self, decision: str | None = None, subset: str | None = None, text: str | None = None
    ) -> None:
        if decision is not None:
            self.decision = decision
        if subset is not None:
            self.subset = subset
        if text is not None:
            self.text = text.strip().lower()
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:
        e: CaseEntry = self.sourceModel().index(row, 0, parent).data(ENTRY_ROLE)
        if self.decision == "unreviewed" and (e.decision is not None or e.problem):
            return False
        if self.decision == "invalid" and not e.problem:
            return False
        if self.decision == "repair" and not e.pending_repair:
            return False
        if self.decision == "outside" and not e.changes_outside:
            return False
        if self.decision not in ("", "unreviewed", "invalid", "repair", "outside") and (
            e.decision is None or e.decision.value != self.decision
        ):
            return False
        if self.subset and e.subset != self.subset:
            return False
        if self.text:
            hay = f"{e.case_id} {e.subset or ''} {e.concept_id or ''}".lower()
            return self.text in hay
        return True

    def visible_entries(self) -> list[CaseEntry]:
        return [self.index(r, 0).data(ENTRY_ROLE) for r in range(self.rowCount())]
