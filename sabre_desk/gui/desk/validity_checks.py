"""The open case's validity check: its images decoded in full on a worker, once the window
has painted them, and only for the case still open.

Kept apart from the controller, which only starts a check when a case opens and hears the
report through the editor (``CaseEditor.set_validity``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, QTimer

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validity import CaseReport, Validity
from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.gui.machinery.workers import Worker

#: The longest a case's validity check waits for its images to be painted (a window that
#: is hidden paints nothing).
CHECK_WAIT_MS = 2000


class ValidityChecks(QObject):
    """One check at a time, on one thread; a check of a case left is taken back."""

    def __init__(
        self, project: Project, editor: Callable[[], CaseEditor | None], parent: QObject
    ) -> None:
        super().__init__(parent)
        self._editor = editor
        self.validity = Validity(project)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._check: Worker | None = None  # the last one asked for
        #: set by a window that paints each case: its check then starts once the case's
        #: images are painted (``case_shown``), or after CHECK_WAIT_MS at the latest
        self.after_paint = False
        self._due: str | None = None
        self._wait = QTimer(self)
        self._wait.setSingleShot(True)
        self._wait.timeout.connect(self._start_due)

    def check(self, case_id: str) -> None:
        """Decode the case's images on a worker (once per file: the verdict is cached);
        until the verdict lands, Keep is checked on the spot. The check of a case left
        before its check began is taken back: flipping through 200 cases queued 200 checks
        (two full decodes each), which kept a core busy for some twenty seconds after.

        With ``after_paint`` the check waits for the case's images to be painted: run
        beside the two decodes of a jump, it read the case's files again in Python and
        held the interpreter's lock while the scheduler kept it off the cores (it runs far
        below the window), so each decode waited for the lock: a jump with previews took
        twice its decoding time. Its full decodes are often not needed once the window's
        own decodes have recorded their verdicts."""
        left = self._check
        if left is not None:
            left.withdraw()
            self._check = None
        self._due = case_id
        if self.after_paint:
            self._wait.start(CHECK_WAIT_MS)
        else:
            self._start_due()

    def case_shown(self, case_id: str) -> None:
        """The window has painted *case_id*'s images: its validity check may start."""
        if self._due == case_id:
            self._start_due()

    def _start_due(self) -> None:
        self._wait.stop()
        case_id, self._due = self._due, None
        editor = self._editor()
        if case_id is None or editor is None or editor.case_id != case_id:
            return  # another case is open now (its own check is due)
        worker = Worker(self.validity.check, case_id)
        worker.returned.connect(self._on_validity)
        self._check = worker
        worker.start(self.pool)

    def _on_validity(self, report: CaseReport) -> None:
        editor = self._editor()
        if editor is None or report.case_id != editor.case_id:
            return  # another case is open now
        report.case = None  # the open case is the editor's; the copy is not kept
        editor.set_validity(report)
