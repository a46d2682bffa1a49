"""The case list: one row per case with a state icon, a filter box and the progress line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from sabre_desk.core.project import CaseEntry
from sabre_desk.core.review import Decision

STATE_COLORS = {
    None: "#9aa0a6",
    Decision.KEEP: "#2e9d4f",
    Decision.NEEDS_RECHECK: "#e8a33d",
    Decision.UNSURE: "#7e6bc4",
    Decision.EDIT_FAILED: "#d9534f",
    Decision.BASE_INVALID: "#d9534f",
    Decision.SCENE_CHANGED: "#d9534f",
}
INVALID_COLOR = "#b00020"


def _dot(color: str, hollow: bool = False) -> QIcon:
    pix = QPixmap(14, 14)
    pix.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pix)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QColor(color))
    if hollow:
        painter.drawEllipse(2, 2, 10, 10)
    else:
        painter.setBrush(QColor(color))
        painter.drawEllipse(2, 2, 10, 10)
    painter.end()
    return QIcon(pix)


class CaseList(QWidget):
    case_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.filter = QLineEdit(placeholderText="Filter cases (id or subset)…")
        self.filter.setClearButtonEnabled(True)
        self.list = QListWidget()
        self.list.setUniformItemSizes(True)
        self.progress = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.progress)
        self.filter.textChanged.connect(self._apply_filter)
        self.list.currentItemChanged.connect(self._on_current_changed)
        self._icons = {key: _dot(color, key is None) for key, color in STATE_COLORS.items()}
        self._invalid_icon = _dot(INVALID_COLOR)

    def set_entries(self, entries: list[CaseEntry]) -> None:
        self.list.clear()
        for e in entries:
            item = QListWidgetItem(e.case_id)
            item.setData(Qt.ItemDataRole.UserRole, e.case_id)
            item.setData(Qt.ItemDataRole.UserRole + 1, f"{e.case_id} {e.subset or ''}".lower())
            if e.problem:
                item.setIcon(self._invalid_icon)
                item.setToolTip(f"Invalid: {e.problem}")
            else:
                item.setIcon(self._icons[e.decision])
                label = e.decision.label if e.decision else "Not reviewed"
                item.setToolTip(f"{e.subset or 'unknown subset'} — {label}")
            self.list.addItem(item)
        reviewed = sum(e.decision is not None for e in entries)
        self.progress.setText(f"reviewed {reviewed} / {len(entries)}")
        self._apply_filter(self.filter.text())

    def select(self, case_id: str) -> bool:
        for row in range(self.list.count()):
            item = self.list.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == case_id:
                self.list.setCurrentItem(item)
                return True
        return False

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.list.count()):
            item = self.list.item(row)
            item.setHidden(bool(needle) and needle not in item.data(Qt.ItemDataRole.UserRole + 1))

    def _on_current_changed(self, current: QListWidgetItem | None, _: object) -> None:
        if current is not None:
            self.case_selected.emit(current.data(Qt.ItemDataRole.UserRole))
