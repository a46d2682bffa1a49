"""File > Evaluate a Release…: the ``evaluate`` command in a child process
(``core.release.evaluate_process``), on the window's job board with its progress and Cancel
like screening; at the end the status bar says where Table 7 is."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QWidget

from sabre_desk.core.jobs.child_job import passed_env
from sabre_desk.core.jobs.job_board import Job, JobBoard, JobKind
from sabre_desk.core.release.evaluate_process import (
    EvaluateOrder,
    EvaluateProgress,
    EvaluateResult,
    evaluate_job,
)
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.evaluation.evaluate_dialog import EvaluateDialog
from sabre_desk.gui.machinery.child_run import ChildRun
from sabre_desk.settings import Settings


class EvaluateUi(QObject):
    finished = Signal(object)  # the EvaluateResult (None when it could not run)

    def __init__(
        self, session: Session, settings: Settings, board: JobBoard, parent: QWidget
    ) -> None:
        super().__init__(parent)
        self.session, self.settings, self.board = session, settings, board
        self.parent_widget = parent
        self.run: ChildRun | None = None
        self.lines = 0
        self.action = QAction("E&valuate a Release…", parent)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+V"))
        self.action.setStatusTip("ask several models every question of a release; Table 7")
        self.action.triggered.connect(self.ask)

    def ask(self) -> bool:
        """The dialog, then the run."""
        dialog = EvaluateDialog(self.settings.screening_model, self.parent_widget)
        if dialog.exec() != QDialog.DialogCode.Accepted or dialog.release_path is None:
            return False
        return self.start(dialog.release_path, dialog.model_names, batch=dialog.batch.isChecked())

    def start(
        self, release: Path, models: list[str], out_dir: Path | None = None, batch: bool = False
    ) -> bool:
        if self.run is not None:
            self.session.say("An evaluation is under way; cancel it or wait for it.")
            return False
        if not (release / "benchmark.jsonl").is_file():
            self.session.say(f"{release} is not a release (no benchmark.jsonl).")
            return False
        out = out_dir or release.parent / f"evaluation-{release.name}"
        order = EvaluateOrder(
            release,
            out,
            models,
            batch,
            self.settings.screening_concurrency,
            dict(self.settings.provider_base_urls),
            self.settings.local_base_url,
            passed_env(),
        )
        self.lines = 0
        self.run = ChildRun(
            evaluate_job(order),
            self.board,
            JobKind.EVALUATION,
            f"Evaluating {len(models)} model{'s' if len(models) != 1 else ''}",
            self._on_progress,
            self._on_done,
            self,
        )
        return True

    def _on_progress(self, job: Job, event: EvaluateProgress) -> None:
        self.lines += 1
        job.advance(0, 0, event.line)

    def _on_done(self, result: EvaluateResult | None, error: str | None) -> None:
        self.run = None
        if result is None:
            self.session.error.emit("The evaluation could not run", error or "no reason given")
            self.finished.emit(None)
            return
        stopped = " (cancelled)" if result.cancelled else ""
        failed = f", {result.failures} calls failed" if result.failures else ""
        self.session.say(
            f"Evaluation{stopped}: Table 7 in {result.out_dir / 'table7.md'}{failed}", 15000
        )
        self.finished.emit(result)

    def shutdown(self) -> None:
        if self.run is not None:
            self.run.shutdown()
