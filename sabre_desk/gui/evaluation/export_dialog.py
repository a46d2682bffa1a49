"""File > Export Release: the release's options asked, then the export off the GUI thread
with a progress dialog."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QThreadPool, Signal
from PySide6.QtWidgets import QDialog, QMessageBox, QProgressDialog, QWidget

from sabre_desk.core.release.export import ExportCancelledError, ExportSummary, export
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.evaluation.export_options import ExportOptions, ExportOptionsDialog
from sabre_desk.gui.machinery.workers import Worker


class _Progress(QObject):
    step = Signal(int, int, str)  # emitted from the worker; delivered on the GUI thread


class ExportRun(QObject):
    """One export: a worker, its progress dialog, its cancel flag."""

    finished = Signal(object)  # ExportSummary or None

    def __init__(
        self,
        session: Session,
        pool: QThreadPool,
        parent: QWidget,
        options: ExportOptions,
    ):
        super().__init__(parent)
        self.session, self.pool, self.parent_widget = session, pool, parent
        self.out = options.out
        self.cancel = threading.Event()
        self.progress = _Progress(self)  # owned by Qt, not by a Python reference
        self.dialog = QProgressDialog("Exporting…", "Cancel", 0, 100, parent)
        self.dialog.setWindowTitle("Export Release")
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(0)
        self.dialog.canceled.connect(self.cancel.set)
        self.progress.step.connect(self._on_step)
        assert session.project is not None
        self.worker = Worker(
            export,
            session.project,
            options.out,
            options.decisions,
            options.name,
            self.progress.step.emit,
            self.cancel,
            options.link,
            options.license_id,
            options.min_reviews,
        )
        self.worker.returned.connect(self._on_done)
        self.worker.errored.connect(self._on_error)

    def start(self) -> None:
        self.worker.start(self.pool)
        self.dialog.show()

    def _on_step(self, done: int, total: int, case_id: str) -> None:
        self.dialog.setMaximum(total)
        self.dialog.setValue(done)
        self.dialog.setLabelText(f"Exporting {case_id} ({done} / {total})")

    def _on_done(self, summary: ExportSummary) -> None:
        self.dialog.reset()
        left_out = left_out_text(summary.left_out, summary.not_exported())
        self.session.say(
            f"Exported {summary.cases} cases to {summary.out} (root sha256 "
            f"{summary.root_hash[:12]}…)",
            15000,
        )
        QMessageBox.information(
            self.parent_widget,
            "Release exported",
            f"{summary.cases} cases, {summary.questions} questions, {summary.images} images"
            f"\n{summary.out}\nroot sha256 {summary.root_hash}{left_out}",
        )
        self.finished.emit(summary)

    def _on_error(self, exc: Exception) -> None:
        self.dialog.reset()
        if isinstance(exc, ExportCancelledError):
            self.session.say("Export cancelled; nothing was written", 8000)
        else:
            message = exc.message if isinstance(exc, ProjectError) else str(exc)
            self.session.error.emit("Export failed", f"{message}\nNothing was written.")
        self.finished.emit(None)


#: Left-out cases named in the report; the rest are counted (all are in release.json).
LEFT_OUT_SHOWN = 15


def left_out_text(skipped: list[str], reasons: str) -> str:
    """Every case left out and why (the first LEFT_OUT_SHOWN by name), for the report;
    *reasons* counts them by reason ("7 not decided; 1 invalid")."""
    if not skipped:
        return ""
    lines = [f"\n\nNot exported: {len(skipped)} case(s) ({reasons}):"]
    lines += [f"• {line}" for line in skipped[:LEFT_OUT_SHOWN]]
    if len(skipped) > LEFT_OUT_SHOWN:
        lines.append(f"… and {len(skipped) - LEFT_OUT_SHOWN} more, all listed in release.json")
    return "\n".join(lines)


def export_release(
    session: Session, pool: QThreadPool, parent: QWidget, out: Path | None = None
) -> ExportRun | None:
    """File > Export Release: save the open case, ask what the release is (folder, name,
    licence, decisions, reviews per case; *out* given: the command's defaults into it),
    export in the background (the window stays usable; Cancel leaves nothing behind)."""
    project = session.project
    if project is None:
        session.say("Open a project first.", 5000)
        return None
    if project.indexing:
        session.say("The project is still being read; export when its index is complete.", 8000)
        return None
    if session.controller is not None and not session.controller.flush():
        session.error.emit("Export", "The open case could not be saved; fix that first.")
        return None
    if out is None:
        dialog = ExportOptionsDialog(project.root, project.name, parent)
        if dialog.exec() != QDialog.DialogCode.Accepted:
            return None
        options = dialog.options()
    else:
        options = ExportOptions(out)
    run = ExportRun(session, pool, parent, options)
    run.start()
    return run
