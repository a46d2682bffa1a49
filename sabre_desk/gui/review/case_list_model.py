"""The case list as a Qt model over the workbench's filtered order."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    Qt,
)
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap

from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.workbench import Workbench

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
    """The workbench's filtered order as rows: a thin adapter, it holds no list of its own.

    Rows come and go as the workbench announces them (a decision taking a case out of the
    "Not reviewed" list removes one row), so nothing is refiltered on a key press.
    """

    def __init__(self, workbench: Workbench, parent: QObject | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self._count = workbench.visible_count
        self._icons = {
            (d, badge, out): state_icon(c, "todo" if d is None else "done", badge, out)
            for d, c in STATE_COLORS.items()
            for badge in (False, True)
            for out in (False, True)
        }
        self._invalid = state_icon(INVALID_COLOR, "invalid")
        workbench.visible_reset.connect(self._on_reset)
        workbench.row_changed.connect(self._on_row_changed)
        workbench.row_inserted.connect(self._on_row_inserted)
        workbench.row_removed.connect(self._on_row_removed)
        workbench.rows_appended.connect(self._on_rows_appended)

    def _on_reset(self) -> None:
        self.beginResetModel()
        self._count = self.workbench.visible_count
        self.endResetModel()

    def _on_row_changed(self, row: int) -> None:
        index = self.index(row)
        self.dataChanged.emit(index, index)

    def _on_row_inserted(self, row: int) -> None:
        self.beginInsertRows(QModelIndex(), row, row)
        self._count += 1
        self.endInsertRows()

    def _on_rows_appended(self, first: int, last: int) -> None:
        self.beginInsertRows(QModelIndex(), first, last)
        self._count += last - first + 1
        self.endInsertRows()

    def _on_row_removed(self, row: int) -> None:
        self.beginRemoveRows(QModelIndex(), row, row)
        self._count -= 1
        self.endRemoveRows()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 - Qt's idiom
        return 0 if parent.isValid() else self._count

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.row() >= self._count:
            return None
        e = self.workbench.visible_at(index.row())
        if role == Qt.ItemDataRole.DisplayRole:
            return e.case_id
        if role == Qt.ItemDataRole.DecorationRole:
            if e.problem:
                return self._invalid
            return self._icons[(e.decision, e.pending_repair, bool(e.changes_outside))]
        if role == Qt.ItemDataRole.ToolTipRole:
            if e.problem_text:
                return f"Invalid — {e.problem_text}"
            label = e.decision.label if e.decision else "Not reviewed"
            repair = " — a repair preview is waiting" if e.pending_repair else ""
            outside = " — changes outside the edit (press D)" if e.changes_outside else ""
            stale = " — your decision was made on an earlier image" if e.stale else ""
            disputed = " — the reviewers disagree: yours to settle" if e.disputed else ""
            return f"{e.subset or 'unknown subset'} — {label}{stale}{repair}{outside}{disputed}"
        if role == ENTRY_ROLE:
            return e
        return None
