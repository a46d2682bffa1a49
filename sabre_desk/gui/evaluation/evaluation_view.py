"""File > Open Evaluation… (and `sabre-desk open EVAL_DIR`): an evaluation's Table 7 as a
chart (models × subsets, 95 % intervals) above a table of every question: case, question,
reference, each model's answer, right or wrong; filters; a double click opens the case.

The results come from ``core/release/evaluation_results.py`` (score's and audit's own
rules), read on a worker. The chart is matplotlib's, drawn by its Qt canvas.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.desk.evaluation_filter import (
    SHOWN_CHOICES,
    QuestionFilter,
    Shown,
    project_name,
    release_project,
)
from sabre_desk.core.release.evaluation_report import LITERAL_TEXT
from sabre_desk.core.release.evaluation_results import (
    EvaluationResults,
    QuestionResult,
    load_evaluation,
)
from sabre_desk.gui.desk.session import SelectCase, Session
from sabre_desk.gui.machinery.workers import Worker, screen_pool
from sabre_desk.settings import Settings

RIGHT, WRONG = QColor("#e8f5e9"), QColor("#ffebee")
FIXED = ("Case", "Question", "Reference")
Index = QModelIndex | QPersistentModelIndex


class QuestionsModel(QAbstractTableModel):
    """The questions the filter lets through, one row each; a column per model."""

    def __init__(self, results: EvaluationResults, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.results = results
        self.rows: list[QuestionResult] = list(results.questions)

    def show(self, rows: list[QuestionResult]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(FIXED) + len(self.results.models)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation != Qt.Orientation.Horizontal or role != Qt.ItemDataRole.DisplayRole:
            return None
        return FIXED[section] if section < len(FIXED) else self.results.models[section - 3]

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        q, col = self.rows[index.row()], index.column()
        model = self.results.models[col - 3] if col >= len(FIXED) else None
        right = q.right.get(model) if model is not None else None
        if role == Qt.ItemDataRole.DisplayRole:
            if model is None:
                return (q.case_id, q.question, q.reference)[col]
            answer = q.answers.get(model)
            mark = "✓" if right else "✗"
            return f"{mark} {answer if answer is not None else '(no answer)'}"
        if role == Qt.ItemDataRole.BackgroundRole and model is not None:
            return RIGHT if right else WRONG
        if role == Qt.ItemDataRole.ToolTipRole:
            if model is not None:
                return f"{model}: {'right' if right else 'wrong'}"
            if col == 2 and q.disputed:
                return f"Disputed: the models agree on {q.agreed!r} against this reference"
            return (q.case_id, q.question, q.reference)[col]
        if role == Qt.ItemDataRole.ForegroundRole and col == 2 and q.disputed:
            return QColor("#e65100")
        return None


def draw_chart(figure: Figure, results: EvaluationResults) -> None:
    """Table 7: each subset's figure per model, bars with their 95 % interval."""
    with matplotlib.rc_context(LITERAL_TEXT):  # the texts take their settings as they are made
        _draw(figure, results)


def _draw(figure: Figure, results: EvaluationResults) -> None:
    figure.clear()
    ax = figure.add_subplot()
    subsets, models = results.subsets, results.models
    width = 0.8 / max(1, len(models))
    for m, model in enumerate(models):
        xs, ys, low, high = [], [], [], []
        for s, subset in enumerate(subsets):
            if model in subset.by_model:
                acc, lo, hi = subset.by_model[model]
                xs.append(s - 0.4 + width * (m + 0.5))
                ys.append(100 * acc)
                low.append(100 * (acc - lo))
                high.append(100 * (hi - acc))
        ax.bar(xs, ys, width, yerr=[low, high], capsize=3, label=model)
    ax.set_xticks(range(len(subsets)))
    ax.set_xticklabels([s.subset.replace("_", " ") for s in subsets], fontsize=8)
    ax.set_ylabel("% (All4 or accuracy)", fontsize=8)
    ax.set_ylim(0, 100)
    ax.tick_params(axis="y", labelsize=8)
    # beside the plot, not on it: a bar at 100 % would lie under it
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_title("Per subset, 95 % intervals", fontsize=9)
    figure.tight_layout()


class EvaluationView(QWidget):
    """One evaluation: the chart, the filters, the table. ``case_requested`` carries the
    case id of a double-clicked question."""

    case_requested = Signal(str)

    def __init__(self, results: EvaluationResults, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("evaluation_view")
        self.results = results
        name = results.release_name or results.release.name
        self.setWindowTitle(f"Evaluation of {name} — sabre-desk")
        self.figure = Figure(figsize=(8, 2.6))
        self.chart = FigureCanvasQTAgg(self.figure)
        self.chart.setMinimumHeight(200)
        draw_chart(self.figure, results)
        self.shown = QComboBox()
        for label, key in SHOWN_CHOICES:
            self.shown.addItem(label, key)
        self.subset = QComboBox()
        self.subset.addItem("All subsets", "")
        for figure in results.subsets:
            self.subset.addItem(figure.subset, figure.subset)
        self.count = QLabel()
        self.model = QuestionsModel(results, self)
        self.table = QTableView()
        self.table.setObjectName("evaluation_questions")
        self.table.setModel(self.model)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.doubleClicked.connect(
            lambda index: self.case_requested.emit(self.model.rows[index.row()].case_id)
        )
        filters = QHBoxLayout()
        filters.addWidget(QLabel("Show:"))
        filters.addWidget(self.shown)
        filters.addWidget(self.subset)
        filters.addStretch(1)
        filters.addWidget(self.count)
        layout = QVBoxLayout(self)
        macro = ", ".join(
            f"{m} {100 * v:.1f}%" if v is not None else f"{m} —" for m, v in results.macro.items()
        )
        intro = QLabel(
            f"{results.folder} · release {name} · macro (paper): {macro}. "
            "Double-click a question to open its case."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        layout.addWidget(self.chart, 2)
        layout.addLayout(filters)
        layout.addWidget(self.table, 3)
        self.shown.currentIndexChanged.connect(lambda _i: self.refilter())
        self.subset.currentIndexChanged.connect(lambda _i: self.refilter())
        self.refilter()
        self.table.resizeColumnsToContents()
        for column in (1, 2):
            self.table.setColumnWidth(column, min(self.table.columnWidth(column), 320))
        self.resize(1100, 720)

    def refilter(self) -> None:
        rule = QuestionFilter(Shown(self.shown.currentData()), self.subset.currentData())
        self.model.show(rule.apply(self.results.questions))
        self.count.setText(f"{len(self.model.rows)} of {len(self.results.questions)} questions")


class EvaluationUi(QObject):
    """The File menu's Open Evaluation…, the loading on a worker and the case a double
    click leads to (in the open project, or in the project the release came from)."""

    shown = Signal(object)  # the EvaluationView, once its results are in

    def __init__(
        self,
        session: Session,
        select_case: SelectCase,
        open_project: Callable[[Path, str | None], bool],
        settings: Settings,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.session, self.select_case, self.open_project = session, select_case, open_project
        self.settings, self._parent = settings, parent
        self.pool = screen_pool(self, 1)  # an evaluation being opened: waited for
        self.views: list[EvaluationView] = []
        self.action = QAction("Open &Evaluation…", parent)
        self.action.setObjectName("open_evaluation")
        self.action.setStatusTip("Look at an evaluation's results: chart, every question, cases")
        self.action.triggered.connect(self.choose)

    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(self._parent, "An evaluation folder")
        if folder:
            self.load(Path(folder))

    def load(self, folder: Path) -> None:
        """Read the evaluation in *folder* off the window's thread, then show it."""
        self.session.say(f"Reading the evaluation in {folder}…", 5000)
        worker = Worker(load_evaluation, folder)
        worker.returned.connect(self._show)
        worker.errored.connect(
            lambda exc: self.session.error.emit("Cannot open the evaluation", str(exc))
        )
        worker.start(self.pool)

    def _show(self, results: EvaluationResults) -> None:
        view = EvaluationView(results, self._parent)
        view.case_requested.connect(lambda case_id: self.open_case(results, case_id))
        self.views.append(view)
        view.show()
        self.shown.emit(view)

    def open_case(self, results: EvaluationResults, case_id: str) -> str:
        """Go to *case_id* in the desk; returns what was done or why not (also said)."""
        source = release_project(results.release)
        project = self.session.project
        if project is not None and source in (None, project.name):
            if self.select_case(case_id):
                self._parent.activateWindow()
                return f"opened {case_id}"
            return self._say(f"{case_id} is not a case of the open project {project.name}")
        if source is None:
            return self._say(
                "The release does not say which project it came from: open that project "
                "(File > Open Project…), then double-click again."
            )
        for path in self.settings.recent_projects:
            if project_name(Path(path)) == source:
                answer = QMessageBox.question(
                    self._parent,
                    "Open the project?",
                    f"The release came from the project {source!r} ({path}). Open it at {case_id}?",
                )
                if answer == QMessageBox.StandardButton.Yes and self.open_project(
                    Path(path), case_id
                ):
                    return f"opened {source} at {case_id}"
                return "not opened"
        return self._say(
            f"The release came from the project {source!r}, which is not open and not among "
            "the recent projects: open it (File > Open Project…), then double-click again."
        )

    def _say(self, text: str) -> str:
        self.session.say(text, 10000)
        return text

    def shutdown(self) -> None:
        self.pool.waitForDone(5000)
