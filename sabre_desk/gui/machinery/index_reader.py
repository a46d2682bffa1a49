"""Reading a project's index behind the first case shown.

A screenful of cases is read at once (from a listing of names only), so a project of
100,000 cases opens as fast as one of a hundred; the rest is read a piece at a time on a
thread of its own, and each piece joins the project and the workbench on the GUI thread:
rows are appended to the list (never a reset), the counts follow and say the index is
still being read until the last piece.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.project import CaseEntry, IndexRun, Project
from sabre_desk.core.case.validity import known_undecodable
from sabre_desk.core.desk.pace import ReviewerPace
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.gui.machinery.soon import call_soon
from sabre_desk.gui.machinery.workers import Worker

FIRST_INDEX_CHUNK = 64  # cases read before the window shows the project: a screenful
INDEX_CHUNK = 2000  # cases read per piece behind it (one delivery to the window)
#: ...in runs of this many, each once the reviewer is not moving between cases, or after
#: INDEX_WAIT_S: the index still grows while someone flips through cases without a pause
#: (250 cases a second; at full speed again after half a second on a case). A run is Python
#: on a thread far below the window, holding the interpreter lock the window needs: fewer
#: runs while the reviewer flips, fewer of the flip's longest stalls when another program
#: shares the cores (docs/performance.md, "Under a competing load").
INDEX_RUN = 250
INDEX_WAIT_S = 1.0


class IndexReader(QObject):
    progress = Signal(int, int)  # cases read so far, about how many in all
    finished = Signal(object)  # the Project, its index whole

    def __init__(self, workbench: Workbench, parent: QObject | None = None):
        super().__init__(parent)
        self.workbench = workbench
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._run: IndexRun | None = None

    def begin(self, project: Project, case_id: str | None = None) -> None:
        """Read the first cases (up to *case_id*, when one is asked for) and show them;
        ``read_rest`` then reads the others in the background."""
        run = project.begin_index()
        run.add(run.next_chunk(FIRST_INDEX_CHUNK))
        while case_id is not None and project.entry(case_id) is None and not run.done:
            run.add(run.next_chunk(INDEX_CHUNK))
        self._run = run
        self.workbench.set_entries(project.entries, reading=not run.done)

    def read_rest(self, project: Project) -> None:
        """Read the rest of the index begun with ``begin`` (or say at once that it is whole).
        The reading starts once the event loop runs again, after the first screenful is
        painted: a worker busy in Python would hold the interpreter lock the paint needs."""
        run = self._run
        if run is None:
            return
        if run.done:
            self._more(project, run)
            return
        call_soon(self, lambda: self._more(project, run) if run is self._run else None)

    def _more(self, project: Project, run: IndexRun) -> None:
        if run.done:
            self.workbench.index_complete()
            self.finished.emit(project)
            self._mark_undecodable(project, run)
            return
        self.progress.emit(len(project.entries), run.total)
        worker = Worker(_read_chunk, run, self.workbench.pace)
        worker.returned.connect(lambda chunk: self._on_chunk(project, run, chunk))
        worker.start(self.pool)

    def _on_chunk(self, project: Project, run: IndexRun, chunk: list[CaseEntry]) -> None:
        if run is not self._run:
            return  # another project was opened (or the window closed) meanwhile
        self.workbench.append_entries(run.add(chunk))
        self._more(project, run)

    def _mark_undecodable(self, project: Project, run: IndexRun) -> None:
        """Cases with an image an earlier check found not to decode are invalid in the
        list and its counts at once (``core.validity``), read on the worker."""
        cache = DecodeCache.for_project(project.root)
        worker = Worker(known_undecodable, project, cache)
        worker.returned.connect(lambda found: self._on_undecodable(project, run, found))
        worker.finished.connect(cache.close)
        worker.start(self.pool)

    def _on_undecodable(
        self, project: Project, run: IndexRun, found: list[tuple[str, Path, str]]
    ) -> None:
        if run is not self._run:
            return
        for case_id, image, reason in found:
            entry = project.mark_invalid(case_id, reason, image)
            if entry is not None:
                self.workbench.update_entry(entry)

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Drop what is still arriving and let the running piece end."""
        self._run = None
        return self.pool.waitForDone(timeout_ms)


def _read_chunk(run: IndexRun, pace: ReviewerPace) -> list[CaseEntry]:
    """The next piece of the index (on the worker). Reading it is Python, holding the
    interpreter lock the window needs for every key press: while the reviewer moves from
    case to case it goes in short runs with pauses between."""
    entries: list[CaseEntry] = []
    while len(entries) < INDEX_CHUNK and not run.done:
        pace.wait_until_still(INDEX_WAIT_S)
        entries += run.next_chunk(INDEX_RUN)
    return entries
