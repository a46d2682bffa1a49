"""The case list: filters, one row per case with a state icon, and the progress line."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.project import CaseEntry
from sabre_desk.core.stats import compute_stats
from sabre_desk.gui.models.case_list_model import (
    DECISION_FILTERS,
    ENTRY_ROLE,
    CaseFilterModel,
    CaseListModel,
)


class CaseList(QWidget):
    case_selected = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.model = CaseListModel(self)
        self.proxy = CaseFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self.filter = QLineEdit(placeholderText="Filter: id, subset or concept…")
        self.filter.setClearButtonEnabled(True)
        # Never the keyboard's first stop: a reviewer's first "1" or "N" would be typed here
        # and filter the list away. Reached by a click or Ctrl+F.
        self.filter.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.decision_filter = QComboBox()
        for label, key in DECISION_FILTERS:
            self.decision_filter.addItem(label, key)
        self.subset_filter = QComboBox()
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setUniformItemSizes(True)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.progress = QLabel()
        self.progress.setObjectName("progressLine")
        combos = QHBoxLayout()
        combos.addWidget(self.decision_filter, 1)
        combos.addWidget(self.subset_filter, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addLayout(combos)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.progress)
        self.filter.textChanged.connect(lambda text: self.proxy.set_filters(text=text))
        self.decision_filter.currentIndexChanged.connect(
            lambda _: self.proxy.set_filters(decision=self.decision_filter.currentData())
        )
        self.subset_filter.currentIndexChanged.connect(
            lambda _: self.proxy.set_filters(subset=self.subset_filter.currentData())
        )
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)

    def set_entries(self, entries: list[CaseEntry]) -> None:
        self.model.set_entries(entries)
        subsets = sorted({e.subset for e in entries if e.subset})
        self.subset_filter.blockSignals(True)
        self.subset_filter.clear()
        self.subset_filter.addItem("All subsets", "")
        for subset in subsets:
            self.subset_filter.addItem(subset, subset)
        self.subset_filter.blockSignals(False)
        self.proxy.set_filters(subset="")
        self._update_progress()

    def update_entry(self, entry: CaseEntry) -> None:
        self.model.update_entry(entry)
        self._update_progress()

    def _update_progress(self) -> None:
        stats = compute_stats(self.model.entries)
        valid = stats.total - stats.invalid
        text = f"reviewed {stats.reviewed} / {valid}"
        if stats.invalid:
            text += f" · {stats.invalid} invalid"
        self.progress.setText(text)

    def visible_entries(self) -> list[CaseEntry]:
        return self.proxy.visible_entries()

    def current_case(self) -> str | None:
        index = self.view.currentIndex()
        return index.data(ENTRY_ROLE).case_id if index.isValid() else None

    def select(self, case_id: str) -> bool:
        """Make *case_id* current (clearing filters that hide it)."""
        row = self.model.row_of(case_id)
        if row is None:
            return False
        proxy_index = self.proxy.mapFromSource(self.model.index(row))
        if not proxy_index.isValid():
            self.filter.clear()
            self.decision_filter.setCurrentIndex(0)
            self.subset_filter.setCurrentIndex(0)
            proxy_index = self.proxy.mapFromSource(self.model.index(row))
        self.view.selectionModel().setCurrentIndex(
            proxy_index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.view.scrollTo(proxy_index)
        return True

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.case_selected.emit(current.data(ENTRY_ROLE).case_id)
