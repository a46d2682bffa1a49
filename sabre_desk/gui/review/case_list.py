"""The case list: filters, one row per case with a state icon, and the progress line."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDockWidget,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QMessageBox,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.workbench import SHOW_CHOICES, Counts, Go, Workbench
from sabre_desk.gui.review.case_list_model import (
    ENTRY_ROLE,
    INVALID_COLOR,
    OUTSIDE_BADGE,
    REPAIR_BADGE,
    STATE_COLORS,
    CaseListModel,
)

#: The case-list marks, drawn as the list draws them (see case_list_model.state_icon).
LEGEND = (
    f"<small><span style='color:{STATE_COLORS[None]}'>○</span> to do &nbsp;"
    f"<span style='color:{STATE_COLORS[Decision.KEEP]}'>●</span> decided &nbsp;"
    f"<span style='color:{INVALID_COLOR}'>✕</span> invalid<br>"
    f"<span style='color:{REPAIR_BADGE}'>■</span> repair waiting &nbsp;"
    f"<span style='color:{OUTSIDE_BADGE}'>▲</span> changes outside the edit</small>"
)


ALL_SUBSETS = "All subsets"


class CaseListView(QListView):
    """The list of cases, repainting one changed row without laying out the others.

    Qt's list view answers every ``dataChanged`` with a full layout of its rows, in batches
    on timers: with 10,000 cases and a background sweep flagging a case every few dozen
    milliseconds, that kept the window busy laying out rows nobody looked at (two thirds of
    a core while nothing happened). Rows here all have the same height, so a change to one
    never moves another: repainting its rectangle, if it is on screen, is all it needs.
    """

    def dataChanged(
        self,
        top_left: QModelIndex | QPersistentModelIndex,
        bottom_right: QModelIndex | QPersistentModelIndex,
        roles: Sequence[int] = (),
    ) -> None:
        if top_left.row() != bottom_right.row() or not self.uniformItemSizes():
            super().dataChanged(top_left, bottom_right, list(roles))
            return
        rect = self.visualRect(top_left)
        if rect.isValid() and rect.intersects(self.viewport().rect()):
            self.viewport().update(rect)


class CaseList(QWidget):
    """A view of the workbench: it shows the filtered order and the counts, and turns the
    filter widgets and a click into workbench changes; it keeps no state of its own."""

    case_selected = Signal(str)
    message = Signal(str, int)  # for the status bar

    def __init__(self, workbench: Workbench, parent: QWidget | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.model = CaseListModel(workbench, self)
        # Before the view's selection model hears of it (connected in setModel, below): a
        # case leaving the list (decided under "Not reviewed", settled under "Answers the
        # models dispute") never makes the row after it current, nor opens that case.
        self._removing = False
        self.model.rowsAboutToBeRemoved.connect(self._before_removal)
        self.model.rowsRemoved.connect(self._after_removal)
        self.filter = QLineEdit(placeholderText="Filter: id, subset or concept…")
        self.filter.setClearButtonEnabled(True)
        # Never the keyboard's first stop: a reviewer's first "1" or "N" would be typed here
        # and filter the list away. Reached by a click or Ctrl+F.
        self.filter.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.decision_filter = QComboBox()
        for label, key in SHOW_CHOICES:
            self.decision_filter.addItem(label, key)
        self.subset_filter = QComboBox()
        self.subset_filter.addItem(ALL_SUBSETS, "")  # before a project opens too, not blank
        self.view = CaseListView()
        self.view.setModel(self.model)
        self.view.setUniformItemSizes(True)
        # Laid out in batches between events: with 100,000 cases, an immediate layout of every
        # row made each decision (one row repainted) and each filter stall the window 130 ms.
        self.view.setLayoutMode(QListView.LayoutMode.Batched)
        self.view.setBatchSize(500)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.progress = QLabel()
        self.progress.setObjectName("progressLine")
        self.legend = QLabel(LEGEND)
        self.legend.setObjectName("caseListLegend")
        self.legend.setWordWrap(True)
        self.legend.setToolTip("What the marks beside each case mean")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.filter)
        layout.addWidget(self.decision_filter)  # one under the other: no name is cut short
        layout.addWidget(self.subset_filter)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.progress)
        layout.addWidget(self.legend)
        self.filter.textChanged.connect(lambda text: workbench.set_filter(text=text))
        self.decision_filter.currentIndexChanged.connect(
            lambda _: workbench.set_filter(show=self.decision_filter.currentData())
        )
        self.subset_filter.currentIndexChanged.connect(
            lambda _: workbench.set_filter(subset=self.subset_filter.currentData())
        )
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)
        workbench.counts_changed.connect(self._show_counts)
        workbench.visible_reset.connect(self._reselect)

    def show_project(self) -> None:
        """Fill the subset choices from the workbench's entries (after a project opened)."""
        self.subset_filter.blockSignals(True)
        self.subset_filter.clear()
        self.subset_filter.addItem(ALL_SUBSETS, "")
        for subset in self.workbench.subsets:
            self.subset_filter.addItem(subset, subset)
        self.subset_filter.blockSignals(False)
        self._show_counts(self.workbench.counts)

    def _show_counts(self, counts: Counts) -> None:
        text = f"decided by me {counts.decided_by_me} / {counts.valid} valid"
        if counts.invalid:
            text += f" · invalid {counts.invalid}"
        if counts.unchecked and not counts.reading:
            text += f" · checking {counts.unchecked:,}…"
        if counts.reading:
            text += f" · {counts.cases:,} read so far, reading the index…"
        self.progress.setText(text)

    def current_case(self) -> str | None:
        return self.workbench.current

    def select(self, case_id: str) -> bool:
        """Make *case_id* current (clearing filters that hide it)."""
        if self.workbench.entry(case_id) is None:
            return False
        if self.workbench.row_of(case_id) is None:
            for widget in (self.filter, self.decision_filter, self.subset_filter):
                widget.blockSignals(True)
            self.filter.clear()
            self.decision_filter.setCurrentIndex(0)
            self.subset_filter.setCurrentIndex(0)
            for widget in (self.filter, self.decision_filter, self.subset_filter):
                widget.blockSignals(False)
            self.workbench.clear_filter()
        row = self.workbench.row_of(case_id)
        if row is None:
            return False
        index = self.model.index(row)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.view.scrollTo(index)
        return True

    def go(self, where: Go) -> None:
        """Move through the list: next, previous, first, last, next unreviewed."""
        why_not = self.workbench.nowhere(where)
        target = self.workbench.target(where)
        if why_not is not None or target is None:
            self.message.emit(why_not or "", 4000)
        else:
            self.select(target)

    def go_to_case(self) -> None:
        """Ctrl+G: type (or pick) a case id."""
        ids = [e.case_id for e in self.workbench.entries]
        if not ids:
            self.message.emit("The project has no cases yet.", 4000)
            return
        dialog = QInputDialog(self)
        dialog.setWindowTitle("Go to Case")
        dialog.setLabelText("Case id:")
        dialog.setComboBoxItems(ids)
        dialog.setComboBoxEditable(True)
        combo = dialog.findChild(QComboBox)
        line = combo.lineEdit() if combo is not None else None
        if line is not None:
            # One Enter goes there: the combo box alone would take the first Enter to
            # complete the typed id, and only a second one would close the dialog.
            line.returnPressed.connect(dialog.accept)
        ok = dialog.exec() == QInputDialog.DialogCode.Accepted
        case_id = dialog.textValue()
        if ok and case_id and not self.select(case_id.strip()):
            QMessageBox.warning(self, "No such case", f"{case_id!r} is not a case of this project")

    def focus_list(self) -> None:
        """Ctrl+L: the keyboard in the list, the list shown (its dock may have been closed)."""
        self._bring_out()
        self.view.setFocus()

    def focus_filter(self) -> None:
        self._bring_out()
        self.filter.setFocus()
        self.filter.selectAll()

    def _bring_out(self) -> None:
        """The list's dock shown and in front: a key asking for the list never puts the
        keyboard on a list nobody can see."""
        dock = self.parentWidget()
        if isinstance(dock, QDockWidget):
            dock.show()
            dock.raise_()

    def _reselect(self) -> None:
        """After a new filter, keep the current case selected where it is still listed."""
        current = self.workbench.current
        row = self.workbench.row_of(current) if current is not None else None
        if row is not None:
            index = self.model.index(row)
            self.view.selectionModel().blockSignals(True)
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            )
            self.view.selectionModel().blockSignals(False)
            self.view.scrollTo(index)

    def _before_removal(self) -> None:
        self._removing = True

    def _after_removal(self) -> None:
        """The open case stays open when its row goes; no other row is shown current."""
        self._removing = False
        current = self.workbench.current
        if current is not None and self.workbench.row_of(current) is None:
            selection = self.view.selectionModel()
            selection.blockSignals(True)
            selection.clear()
            selection.blockSignals(False)
            self.view.viewport().update()

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid() and not self._removing:
            self.case_selected.emit(current.data(ENTRY_ROLE).case_id)
