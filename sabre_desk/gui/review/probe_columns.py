"""The probe table's columns: each as wide as what it shows, the Question the rest.

Fixed widths cut a probe id to "component_…" while the Answer and Result columns kept room
they did not use. Each column now takes its content's width within bounds; when the panel
is narrow the columns that wrap (the filter's answer, the reference) or that have a tooltip
(the id) give room back first, so the question keeps at least QUESTION_LEAST_PX."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QHeaderView, QTableView

from sabre_desk.gui.review.probe_model import ANSWER, IMAGE, PREDICTION, PROBE, QUESTION, RESULT

#: The narrowest a column is drawn and the widest it takes, in pixels.
LEAST = {PROBE: 72, IMAGE: 48, ANSWER: 52, PREDICTION: 64, RESULT: 64}
MOST = {PROBE: 180, IMAGE: 72, ANSWER: 120, PREDICTION: 140, RESULT: 120}
#: The columns that give room back when the panel is narrow, first to last: the filter's
#: answer and the reference wrap, the id is whole in its tooltip.
GIVES_BACK = (PREDICTION, ANSWER, PROBE)
QUESTION_LEAST_PX = 120


def fitted_widths(wanted: dict[int, int], room: int) -> dict[int, int]:
    """Each column's width: what it wants within its bounds, less what the question needs
    of *room* (the table's inner width) taken back from the GIVES_BACK columns in turn."""
    widths = {c: max(LEAST.get(c, 40), min(w, MOST.get(c, w))) for c, w in wanted.items()}
    short = sum(widths.values()) + QUESTION_LEAST_PX - room
    for column in GIVES_BACK:
        if short <= 0:
            break
        if column in widths:
            give = min(short, widths[column] - LEAST[column])
            widths[column] -= give
            short -= give
    return widths


class ProbeColumns(QObject):
    """Fits *table*'s columns whenever it is resized or told its rows changed (``fit``)."""

    def __init__(self, table: QTableView) -> None:
        super().__init__(table)
        self._table = table
        table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        table.horizontalHeader().setSectionResizeMode(QUESTION, QHeaderView.ResizeMode.Stretch)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self.fit)
        table.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._table and event.type() == QEvent.Type.Resize:
            self._later.start()
        return False

    def fit(self) -> None:
        table, header = self._table, self._table.horizontalHeader()
        model = table.model()
        if model is None:
            return
        wanted = {
            column: max(table.sizeHintForColumn(column), header.sectionSizeHint(column))
            for column in range(model.columnCount())
            if column != QUESTION
        }
        for column, width in fitted_widths(wanted, table.viewport().width()).items():
            if table.columnWidth(column) != width:  # setting it lays the table out again
                table.setColumnWidth(column, width)
