"""Views of the job board (``core.job_board``): one row per running job, with its progress
and Cancel. The status bar and the Pipeline panel each hold a strip of them; both follow the
same jobs, so a job cancelled in one disappears from the other."""

from __future__ import annotations

from PySide6.QtWidgets import QBoxLayout, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from sabre_desk.core.jobs.job_board import Job, JobBoard

BAR_WIDTH = 160


class JobView(QWidget):
    """One job: what it is and did last, how far it is, and Cancel."""

    def __init__(self, job: Job, parent: QWidget | None = None):
        super().__init__(parent)
        self.job = job
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(BAR_WIDTH)
        self.cancel = QPushButton("Cancel")
        self.cancel.setToolTip(f"stop {job.title.lower()}; what is done so far is kept")
        self.cancel.clicked.connect(job.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel)
        job.changed.connect(self.update_view)
        self.update_view()

    def update_view(self) -> None:
        job = self.job
        if job.cancelling:
            self.label.setText(f"{job.title}: cancelling…")
        elif job.total:
            self.label.setText(f"{job.title}: {job.done} of {job.total}")
        else:
            self.label.setText(f"{job.title}…")
        self.label.setToolTip(job.detail)
        self.bar.setRange(0, max(job.total, 0))  # 0..0: busy, until the total is known
        self.bar.setValue(job.done)
        self.cancel.setEnabled(not job.cancelling)

    def detach(self) -> None:
        self.job.changed.disconnect(self.update_view)


class JobStrip(QWidget):
    """Every running job of *board*, in a row or a column; hidden while none runs."""

    def __init__(
        self,
        board: JobBoard,
        direction: QBoxLayout.Direction = QBoxLayout.Direction.LeftToRight,
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.board = board
        self.views: dict[Job, JobView] = {}
        self.box = QBoxLayout(direction, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        board.added.connect(self._on_added)
        board.ended.connect(self._on_ended)
        for job in board.jobs:
            self._on_added(job)
        self.setVisible(bool(self.views))

    @staticmethod
    def row_height() -> int:
        """The height a job's row needs (its Cancel button and progress bar), known before
        any job runs: the status bar keeps it, whether or not a job shows."""
        return max(QPushButton("Cancel").sizeHint().height(), QProgressBar().sizeHint().height())

    def _on_added(self, job: Job) -> None:
        view = JobView(job, self)
        self.views[job] = view
        self.box.addWidget(view)
        self.show()

    def _on_ended(self, job: Job) -> None:
        view = self.views.pop(job, None)
        if view is not None:
            view.detach()
            view.deleteLater()
        self.setVisible(bool(self.views))
