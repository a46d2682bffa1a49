"""A child-process job (``core.child_job``) on the window's job board, its progress and its
end delivered on the GUI thread.

The child's callbacks arrive on a reader thread; queued signals bring them to the window's
thread, where the job on the board advances (every view of it follows) and the runner's own
handlers run. Cancel, from any view, reaches the child through the board's job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal

from sabre_desk.core.jobs.child_job import ChildJob
from sabre_desk.core.jobs.job_board import Job, JobBoard, JobKind

#: how long quitting waits for a cancelled child to finish its writes
SHUTDOWN_WAIT_S = 5.0


class ChildRun(QObject):
    _progress = Signal(object)  # from the reader thread
    _done = Signal(object, object)  # result | None, error text | None

    def __init__(
        self,
        child: ChildJob[Any, Any, Any],
        board: JobBoard,
        kind: JobKind,
        title: str,
        on_progress: Callable[[Job, Any], None],
        on_done: Callable[[Any, str | None], None],
        parent: QObject,
    ):
        super().__init__(parent)
        self.child, self.board = child, board
        self.job = board.start(kind, title, child.cancel)
        self._on_progress_cb, self._on_done_cb = on_progress, on_done
        self._progress.connect(self._on_progress, Qt.ConnectionType.QueuedConnection)
        self._done.connect(self._on_done, Qt.ConnectionType.QueuedConnection)
        self.running = True
        child.start(self._progress.emit, self._done.emit)

    def _on_progress(self, event: object) -> None:
        if self.running:
            self._on_progress_cb(self.job, event)

    def _on_done(self, result: object, error: str | None) -> None:
        self.running = False
        self.board.end(self.job)
        self._on_done_cb(result, error)
        self.deleteLater()

    def shutdown(self) -> None:
        """Quitting: cancel the child and give it a moment to leave its files whole."""
        self.child.cancel()
        self.child.wait(SHUTDOWN_WAIT_S)
