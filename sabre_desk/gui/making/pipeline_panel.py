"""The Pipeline panel's widgets: the funnel from specification to accepted case, what failed
on the way, what the models cost so far, the running jobs and the buttons that start the
front of the pipeline. A view only: ``gui.pipeline_ui`` fills it and acts on its signals."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QBoxLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.jobs.job_board import JobBoard
from sabre_desk.core.making.funnel import Funnel
from sabre_desk.gui.machinery.job_views import JobStrip

#: Failures listed one by one; beyond them the list says how many more there are.
LISTED_FAILURES = 500
STAGE_TIPS = {
    "specified": "every specification written: waiting for images, failed, or a case already",
    "imaged": "cases in the project (made, imported or authored)",
    "valid": "cases whose images all decode and whose spec and reviews can be read",
    "screened": "screened on the images and questions the case has now",
    "kept by the filter": "the filtering model got them wrong: on to human review",
    "decided by anyone": "valid cases with at least one current decision, by anyone",
    "final Keep": "what Export writes: the final decision is Keep",
}


def _title(name: str) -> str:
    """'decided by anyone' → 'Decided by anyone' (a capital Keep stays one)."""
    return name[:1].upper() + name[1:]


class FunnelRows(QWidget):
    """One row per stage: its name, a bar as long as its share of the first, its count."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setColumnStretch(1, 1)
        self.names: list[QLabel] = []
        self.bars: list[QProgressBar] = []
        self.counts: list[QLabel] = []
        for row, (name, tip) in enumerate(STAGE_TIPS.items()):
            label = QLabel(_title(name))
            label.setToolTip(tip)
            bar = QProgressBar()
            bar.setTextVisible(False)
            bar.setMaximumHeight(12)
            count = QLabel("–")
            count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            count.setMinimumWidth(48)
            grid.addWidget(label, row, 0)
            grid.addWidget(bar, row, 1)
            grid.addWidget(count, row, 2)
            self.names.append(label)
            self.bars.append(bar)
            self.counts.append(count)

    def show_stages(self, stages: list[tuple[str, int | None]]) -> None:
        top = max((n or 0 for _, n in stages), default=0)
        for (name, n), label, bar, count in zip(
            stages, self.names, self.bars, self.counts, strict=True
        ):
            label.setText(_title(name))
            bar.setRange(0, max(top, 1))
            bar.setValue(n or 0)
            count.setText("–" if n is None else f"{n:,}")

    def clear(self) -> None:
        for bar, count in zip(self.bars, self.counts, strict=True):
            bar.setValue(0)
            count.setText("–")

    def count_of(self, name: str) -> str:
        """The count shown for the stage *name* (as displayed)."""
        names = [label.text() for label in self.names]
        return self.counts[names.index(name.capitalize())].text()


class PipelinePanel(QWidget):
    failure_activated = Signal(str, str)  # what (a case id, or a specification), reason

    def __init__(self, board: JobBoard, parent: QWidget | None = None):
        super().__init__(parent)
        self.write_specs = QPushButton("Write Specifications…")
        self.make_images = QPushButton("Make Images")
        buttons = QHBoxLayout()
        buttons.addWidget(self.write_specs)
        buttons.addWidget(self.make_images)
        buttons.addStretch(1)
        self.jobs = JobStrip(board, QBoxLayout.Direction.TopToBottom, self)
        self.stages = FunnelRows()
        self.waiting = QLabel()
        self.waiting.setWordWrap(True)
        self.cost = QLabel()
        self.cost.setWordWrap(True)
        self.failures_title = QLabel("Failures")
        self.failures = QListWidget()
        self.failures.setToolTip("double-click a case to open it")
        self.failures.currentItemChanged.connect(self._on_current)
        self.failures.itemActivated.connect(self._on_activated)
        self.detail = QLabel()
        self.detail.setObjectName("failure_detail")
        self.detail.setWordWrap(True)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.jobs)
        layout.addWidget(self.stages)
        layout.addWidget(self.waiting)
        layout.addWidget(self.cost)
        layout.addWidget(self.failures_title)
        layout.addWidget(self.failures, 1)
        layout.addWidget(self.detail)
        self.clear("Open a project to see its pipeline.")

    def show_funnel(self, funnel: Funnel) -> None:
        self.stages.show_stages(funnel.stages)
        self.waiting.setText(
            f"Waiting for images: {funnel.specified:,} · failed: {funnel.failed:,} · "
            f"specifications never valid: {funnel.spec_failures:,}"
        )
        self.cost.setText(f"Model calls: {funnel.calls:,} · cost so far: {funnel.cost_text}")
        current = self.failures.currentItem()
        keep = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self.failures.clear()
        for what, reason in funnel.failures[:LISTED_FAILURES]:
            item = QListWidgetItem(f"{what}: {reason}")
            item.setData(Qt.ItemDataRole.UserRole, (what, reason))
            item.setToolTip(reason)
            self.failures.addItem(item)
            if keep is not None and keep[0] == what:
                self.failures.setCurrentItem(item)
        more = len(funnel.failures) - LISTED_FAILURES
        if more > 0:
            self.failures.addItem(f"… and {more:,} more (sabre-desk stats PROJECT --json)")
        self.failures_title.setText(f"Failures ({len(funnel.failures):,})")
        if self.failures.currentItem() is None:
            self.detail.clear()

    def clear(self, message: str) -> None:
        self.stages.clear()
        self.waiting.setText(message)
        self.cost.clear()
        self.failures.clear()
        self.failures_title.setText("Failures")
        self.detail.clear()

    def _on_current(self, item: QListWidgetItem | None) -> None:
        data = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        self.detail.setText(f"{data[0]}: {data[1]}" if data else "")

    def _on_activated(self, item: QListWidgetItem) -> None:
        data = item.data(Qt.ItemDataRole.UserRole)
        if data:
            self.failure_activated.emit(*data)
