"""Review > Team…: how much the reviewers agree, how far each has come, and (for the
adjudicators) the disagreements to settle.

The figures are computed on a worker (every review of every case is read, the images
hashed once); the dialog stays open beside the window and Refresh computes them again.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.project import Project
from sabre_desk.core.team.agreement import ALL, Estimate, ScopeAgreement, confusion
from sabre_desk.core.team.ratings import adjudicator_rule
from sabre_desk.core.team.stats import TeamSummary, team_summary
from sabre_desk.core.team.team import blind
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.focus import tabs_take_no_focus
from sabre_desk.gui.machinery.workers import Worker

FIGURE_COLUMNS = ("Figure", "Value", "95 % interval", "Cases")
PROGRESS_COLUMNS = (
    "Reviewer",
    "Decided",
    "Assigned",
    "Assigned, done",
    "Left",
    "Stale",
    "Adjudicated",
    "Active min",
    "Min / 50 cases",
)
TABLE_9 = "The SABRE paper's Table 9: 25–50 minutes per 50 reviewed cases."


def _table(columns: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(columns))
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    return table


def _fill(table: QTableWidget, rows: list[list[str]]) -> None:
    table.setRowCount(len(rows))
    for r, row in enumerate(rows):
        for c, text in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(text))
    table.resizeColumnsToContents()


def _figure(name: str, estimate: Estimate, percent: bool = False) -> list[str]:
    def show(value: float | None) -> str:
        if value is None:
            return "undefined"
        return f"{value:.0%}" if percent else f"{value:.3f}"

    interval = "—" if estimate.low is None else f"{show(estimate.low)} – {show(estimate.high)}"
    return [name, show(estimate.value), interval, str(estimate.n)]


def figure_rows(scope: ScopeAgreement) -> list[list[str]]:
    rows = [
        _figure("Krippendorff's α, six decisions", scope.alpha),
        _figure("Krippendorff's α, accept / reject", scope.alpha_accept_reject),
    ]
    for pair in scope.pairs:
        a, b = pair.reviewers
        rows += [
            _figure(f"{a} × {b}: agreement", pair.percent, percent=True),
            _figure(f"{a} × {b}: Cohen's κ", pair.kappa),
            _figure(f"{a} × {b}: κ, accept / reject", pair.kappa_accept_reject),
        ]
    return rows


def together(figures: list[str]) -> str:
    """*figures* joined by " · ", each figure's words kept on one line (a wrap between
    figures, never inside one: no line starting "% intervals" or "out: 10 not decided"),
    unless a figure alone is wider than the line."""
    short = [f.replace(" ", "\u00a0") if len(f) <= 90 else f for f in figures]
    return " · ".join(short)


class TeamDialog(QDialog):
    def __init__(
        self,
        project: Project,
        pool: QThreadPool,
        go_to_case: Callable[[str], object],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.project, self.pool, self.go_to_case = project, pool, go_to_case
        self.summary: TeamSummary | None = None
        self.setWindowTitle(f"Team — {project.name}")
        self.resize(760, 560)
        self.header = QLabel()
        self.header.setWordWrap(True)
        self.scope = QComboBox()
        self.scope.currentIndexChanged.connect(self._show_scope)
        self.counts = QLabel()
        self.counts.setWordWrap(True)
        self.figures = _table(FIGURE_COLUMNS)
        self.figures.setObjectName("agreementTable")
        self.first, self.second = QComboBox(), QComboBox()
        for combo in (self.first, self.second):
            combo.currentIndexChanged.connect(self._show_confusion)
        self.confusion = QTableWidget()
        self.confusion.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        # Each decision's name whole in the headers ("Edited replacement failed"), never cut.
        for header in (self.confusion.horizontalHeader(), self.confusion.verticalHeader()):
            header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.disagreements_note = QLabel()
        self.disagreements_note.setObjectName("disagreementsNote")
        self.disagreements_note.setWordWrap(True)
        self.progress = _table(PROGRESS_COLUMNS)
        self.progress.setObjectName("progressTable")
        self.disagreements = QListWidget()
        self.disagreements.setObjectName("disagreementList")
        self.disagreements.itemActivated.connect(self._go)
        self.disagreements.itemDoubleClicked.connect(self._go)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.clicked.connect(self.refresh)

        agreement_tab = QWidget()
        layout = QVBoxLayout(agreement_tab)
        form = QFormLayout()
        form.addRow("Subset", self.scope)
        layout.addLayout(form)
        layout.addWidget(self.counts)
        layout.addWidget(self.figures, 1)
        pair_row = QHBoxLayout()
        pair_row.addWidget(QLabel("Confusion of"))
        pair_row.addWidget(self.first)
        pair_row.addWidget(QLabel("(rows) and"))
        pair_row.addWidget(self.second)
        pair_row.addWidget(QLabel("(columns)"))
        pair_row.addStretch(1)
        layout.addLayout(pair_row)
        layout.addWidget(self.confusion, 1)
        progress_tab = QWidget()
        progress_layout = QVBoxLayout(progress_tab)
        progress_layout.addWidget(self.progress, 1)
        progress_layout.addWidget(QLabel(f"Active time leaves out gaps over 5 minutes. {TABLE_9}"))
        self.tabs = QTabWidget()
        self.tabs.addTab(agreement_tab, "Agreement")
        self.tabs.addTab(progress_tab, "Progress")
        disagreements_tab = QWidget()
        disagreements_layout = QVBoxLayout(disagreements_tab)
        disagreements_layout.addWidget(self.disagreements_note)
        disagreements_layout.addWidget(self.disagreements, 1)
        self.tabs.addTab(disagreements_tab, "Disagreements")
        tabs_take_no_focus(self.tabs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.refresh_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        main = QVBoxLayout(self)
        main.addWidget(self.header)
        main.addWidget(self.tabs, 1)
        main.addWidget(buttons)
        self.refresh()

    # --- computing -------------------------------------------------------------------------

    def refresh(self) -> None:
        self.refresh_button.setEnabled(False)
        self.header.setText("Reading every review of the project…")
        worker = Worker(team_summary, self.project)
        worker.returned.connect(self.show_summary)
        worker.errored.connect(self._on_error)
        worker.start(self.pool)

    def _on_error(self, exc: Exception) -> None:
        self.refresh_button.setEnabled(True)
        message = exc.message if isinstance(exc, ProjectError) else str(exc)
        self.header.setText(f"Could not compute the figures: {message}")

    def show_summary(self, summary: TeamSummary) -> None:
        self.summary = summary
        self.refresh_button.setEnabled(True)
        manifest = self.project.manifest
        reviewers = summary.agreement.reviewers
        about = [
            f"{len(reviewers)} reviewer(s) with decisions ({', '.join(reviewers) or '—'})",
            f"blind review {'on' if blind(manifest) else 'off'}",
            adjudicator_rule(manifest.adjudicators),
            f"95 % intervals from {summary.agreement.bootstrap} bootstrap resamples",
        ]
        self.header.setText(f"{together(about)}\n{together(summary.counts.lines())}")
        self.scope.blockSignals(True)
        self.scope.clear()
        self.scope.addItem("All subsets", ALL)
        for scope in summary.agreement.subsets:
            self.scope.addItem(scope.scope, scope.scope)
        self.scope.blockSignals(False)
        for combo, pick in ((self.first, 0), (self.second, 1)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItems(reviewers)
            combo.setCurrentIndex(min(pick, len(reviewers) - 1))
            combo.blockSignals(False)
        self._show_scope()
        _fill(self.progress, self._progress_rows(summary))
        self._fill_disagreements(summary)

    # --- showing ---------------------------------------------------------------------------

    def _current_scope(self) -> ScopeAgreement | None:
        if self.summary is None:
            return None
        key = self.scope.currentData() or ALL
        report = self.summary.agreement
        return next((s for s in report.subsets if s.scope == key), report.overall)

    def _show_scope(self) -> None:
        scope = self._current_scope()
        if scope is None:
            return
        self.counts.setText(
            f"{scope.cases} valid cases: decided by anyone {scope.decided_by_anyone} "
            f"({scope.multiple} with two or more ratings, what α rests on; {scope.single} with "
            f"one), not decided {scope.not_decided}; stale {scope.stale}, disputed "
            f"{scope.disputed}, adjudicated {scope.adjudicated}."
        )
        _fill(self.figures, figure_rows(scope))
        self._show_confusion()

    def _show_confusion(self) -> None:
        if self.summary is None or not self.first.currentText() or not self.second.currentText():
            self.confusion.setRowCount(0)
            return
        table = confusion(
            self.summary.ratings,
            self.first.currentText(),
            self.second.currentText(),
            self.scope.currentData() or ALL,
        )
        self.confusion.setRowCount(len(table.labels))
        self.confusion.setColumnCount(len(table.labels))
        self.confusion.setHorizontalHeaderLabels(list(table.labels))
        self.confusion.setVerticalHeaderLabels(list(table.labels))
        for r, row in enumerate(table.counts):
            for c, value in enumerate(row):
                item = QTableWidgetItem(str(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                self.confusion.setItem(r, c, item)

    def _progress_rows(self, summary: TeamSummary) -> list[list[str]]:
        times = {t.reviewer: t for t in summary.time.reviewers}
        rows = []
        for p in summary.progress:
            t = times.get(p.reviewer)
            per = t.per_50_cases_min if t is not None else None
            rows.append(
                [
                    p.reviewer,
                    str(p.decided),
                    "—" if p.assigned is None else str(p.assigned),
                    "—" if p.assigned_decided is None else str(p.assigned_decided),
                    "—" if p.remaining is None else str(p.remaining),
                    str(p.stale),
                    str(p.adjudicated),
                    "—" if t is None else f"{t.active_min:.1f}",
                    "—" if per is None else f"{per:.1f}",
                ]
            )
        return rows

    def _fill_disagreements(self, summary: TeamSummary) -> None:
        """The disputed cases, the same ones Next Disagreement (Ctrl+Shift+D) goes through."""
        self.disagreements.clear()
        rule = adjudicator_rule(self.project.manifest.adjudicators)
        disputed = [c for c in summary.ratings.cases if c.disputed]
        if blind(self.project.manifest) and not self.project.is_adjudicator:
            self.disagreements_note.setText(
                f"{len(disputed)} disputed. {rule.capitalize()}; blind review keeps the "
                "others' decisions from the rest of the team."
            )
            return
        self.disagreements_note.setText(
            f"{len(disputed)} disputed, to settle with Next Disagreement (Ctrl+Shift+D). "
            f"{rule.capitalize()}."
        )
        if not disputed:
            self.disagreements.addItem("No disagreement waits to be settled.")
        for case in disputed:
            detail = "; ".join(f"{n}: {d.label}" for n, d in sorted(case.decisions.items()))
            item = QListWidgetItem(f"{case.case_id} — {detail}")
            item.setData(Qt.ItemDataRole.UserRole, case.case_id)
            self.disagreements.addItem(item)

    def _go(self, item: QListWidgetItem) -> None:
        case_id = item.data(Qt.ItemDataRole.UserRole)
        if case_id:
            self.go_to_case(case_id)
