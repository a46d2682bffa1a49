"""Lists and tables as tall as their rows: inside a scrolling pane they never scroll on their
own (no scrollbar inside a scrollbar) and leave no empty band under their last row."""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QAbstractItemView, QListView, QTableView


def rows_height(view: QAbstractItemView) -> int:
    """The height that shows every row of *view*, its header and frame, and no more."""
    model = view.model()
    rows = model.rowCount() if model is not None else 0
    if isinstance(view, QTableView):
        body = sum(view.rowHeight(r) for r in range(rows) if not view.isRowHidden(r))
        header = view.horizontalHeader()
        top = header.height() if header.isVisible() else 0
        if header.isVisible() and top == 0:
            top = header.sizeHint().height()
    elif isinstance(view, QListView):
        body = sum(view.sizeHintForRow(r) for r in range(rows))
        top = 0
    else:
        body, top = view.sizeHint().height(), 0
    scroll = view.horizontalScrollBar()
    below = scroll.sizeHint().height() if scroll.isVisible() else 0
    return body + top + below + 2 * view.frameWidth()


def fit_to_rows(view: QAbstractItemView, most: int | None = None) -> None:
    """*view* exactly as tall as its rows. With *most*, no taller than that: beyond it the
    view scrolls (for a view that is not inside a scrolling pane)."""
    height = rows_height(view)
    if most is None:
        view.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        view.setFixedHeight(height)
    else:
        view.setMaximumHeight(min(height, most))


class _Fitter(QObject):
    """Refits its view when the rows change; a child of the view, so it ends with it."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._view = view

    def fit(self) -> None:
        try:
            model = self._view.model()
        except RuntimeError:  # the list is being destroyed (its model empties last)
            return
        self._view.setVisible(model is not None and model.rowCount() > 0)
        fit_to_rows(self._view)


def keep_fitted(view: QAbstractItemView) -> None:
    """*view* as tall as its rows whenever they change, and hidden while it has none."""
    fitter = _Fitter(view)
    model = view.model()
    if model is not None:
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(fitter.fit)
    fitter.fit()
