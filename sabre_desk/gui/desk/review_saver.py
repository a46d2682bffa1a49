"""Reviews written on a save thread: the window never waits for the disk while it works.

A save (``core.review_save.ReviewSave``) is written and ``fsync``-ed on a thread of its
own, one after the other in the order they were taken; its outcome goes back to its editor
on the GUI thread (``CaseEditor.end_save``), and only then does the window say "saved" or
show why not. ``wait`` finishes every save still on its way and acknowledges it at once:
the window calls it before it reads a review again, and before it closes, so no save is
ever lost or acknowledged late.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool

from sabre_desk.core.case.project import Project
from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.core.desk.review_save import ReviewSave
from sabre_desk.gui.machinery.workers import Worker


class ReviewSaver(QObject):
    def __init__(
        self,
        project: Project,
        on_acknowledged: Callable[[CaseEditor, ReviewSave, bool], None],
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.project = project
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)  # in order: a later save of a case lands last
        self._on_acknowledged = on_acknowledged
        self._in_flight: list[tuple[CaseEditor, ReviewSave]] = []

    @property
    def pending(self) -> int:
        """Saves handed to the save thread and not yet acknowledged."""
        return len(self._in_flight)

    @property
    def jobs(self) -> list[ReviewSave]:
        """The saves on their way, oldest first."""
        return [job for _editor, job in self._in_flight]

    def submit(self, editor: CaseEditor, force: bool = False) -> bool:
        """Hand *editor*'s unsaved changes to the save thread; False when there is nothing
        to hand (nothing unsaved, or its previous save is still on its way)."""
        job = editor.begin_save(force)
        if job is None:
            return False
        self._in_flight.append((editor, job))
        worker = Worker(job.write, self.project)
        worker.finished.connect(lambda: self._acknowledge(job))
        worker.start(self.pool)
        return True

    def wait(self) -> None:
        """Finish every save on its way and acknowledge each now (in order)."""
        if not self._in_flight:
            return
        self.pool.waitForDone()
        for _editor, job in list(self._in_flight):
            self._acknowledge(job)

    def _acknowledge(self, job: ReviewSave) -> None:
        for i, (editor, queued) in enumerate(self._in_flight):
            if queued is job:
                del self._in_flight[i]
                saved = editor.end_save(job)
                self._on_acknowledged(editor, job, saved)
                return
        # already acknowledged by ``wait``
