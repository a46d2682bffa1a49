"""Python's cyclic garbage collection, run on the GUI thread only.

CPython collects reference cycles on whichever thread's allocation crosses the threshold.
In the window that is most often a pool thread (decoding, polling the project, writing
previews), and a collection frees every cycle it finds on the thread that runs it. A Qt
object among them is then destroyed away from the GUI thread: a widget's item view whose
timers later fire on the GUI thread for freed memory, or a receiver whose connections
PySide unregisters in a table of its own that has no lock, while the GUI thread adds to
it — a segfault, seen in the collector, under load. So while the application runs,
automatic collection is off and a timer on the GUI thread collects instead, by Python's
own rule: a generation is collected once its count has passed its threshold, the oldest
only once a quarter more objects have reached it since it was last collected (with a
large project open, a full collection takes long enough to be seen). An idle window makes
no garbage, so the timer slows down while nothing is due (an idle window should sleep) and
is back at its pace as soon as a collection was due.

A project's index lives as long as the project is open: hundreds of thousands of objects at
100,000 cases that every full collection walked and never freed (a full collection of a
10,000-case project took 100–150 ms on the GUI thread, a stall a reviewer sees). Once the
index is whole they are set aside (``set_aside_long_lived``, Python's ``gc.freeze``), so a
full collection walks only what came after; closing the project hands them back.

A full collection that falls due while the reviewer moves from case to case waits until
they have looked at one case for a moment (``reviewer_moved``), so it never lands in the
middle of a flip; one far overdue runs anyway.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, QTimer, Slot

#: How often the GUI thread looks whether a collection is due. Young garbage waits at most
#: this long; collecting it takes a few milliseconds at most.
CHECK_MS = 500
#: Each look that finds nothing due doubles the wait, up to this.
IDLE_CHECK_MS = 4000
#: A full collection waits until the reviewer has stayed on one case this long …
QUIET_S = 1.0
#: … unless the objects waiting for it are this many times what Python's rule allows.
OVERDUE = 4


class GuiCollector(QObject):
    def __init__(self, parent: QObject):
        super().__init__(parent)
        self._long_lived = 0  # objects in the oldest generation after its last collection
        self._pending = 0  # objects moved into it since
        self._moved_at = -QUIET_S  # when the reviewer last went to another case (monotonic)
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self._check)
        self.start()

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        gc.disable()
        self._long_lived, self._pending = len(gc.get_objects(2)), 0
        self._timer.start(CHECK_MS)

    def stop(self) -> None:
        """Hand collection back to Python: only where no Qt object or pool thread is left."""
        self._timer.stop()
        gc.enable()

    def set_aside_long_lived(self) -> None:
        """Leave every object alive now out of later collections (the young generations
        are collected first, so little garbage is set aside with them)."""
        gc.collect(1)
        gc.freeze()
        self._long_lived, self._pending = len(gc.get_objects(2)), 0

    def hand_back(self) -> None:
        """Collections walk everything again (a project closed: its objects may be garbage)."""
        gc.unfreeze()
        self._long_lived, self._pending = len(gc.get_objects(2)), 0

    def reviewer_moved(self) -> None:
        """The reviewer went to another case: a full collection due now waits."""
        self._moved_at = time.monotonic()

    @property
    def interval(self) -> int:
        """Milliseconds until the next look."""
        return self._timer.interval()

    @Slot()
    def _check(self) -> None:
        before = gc.get_count()
        self.collect_due()
        due = gc.get_count() != before  # a collection ran (it resets the counts)
        wait = CHECK_MS if due else min(IDLE_CHECK_MS, 2 * self._timer.interval())
        if wait != self._timer.interval():
            self._timer.setInterval(wait)

    def collect_due(self) -> int:
        """Collect what Python's automatic collection would collect now; returns how many
        objects were found unreachable."""
        thresholds, counts = gc.get_threshold(), gc.get_count()
        if not thresholds[0]:
            return 0  # a threshold of 0: collection was switched off on purpose
        full_due = counts[2] > thresholds[2] and self._pending >= self._long_lived // 4
        quiet = time.monotonic() - self._moved_at >= QUIET_S
        overdue = self._pending >= OVERDUE * max(1, self._long_lived // 4)
        if full_due and (quiet or overdue):
            found = gc.collect(2)
            self._long_lived, self._pending = len(gc.get_objects(2)), 0
            return found
        if counts[1] > thresholds[1]:
            moving = len(gc.get_objects(0)) + len(gc.get_objects(1))
            found = gc.collect(1)  # the survivors move into the oldest generation
            self._pending += max(0, moving - found)
            return found
        if counts[0] > thresholds[0]:
            return gc.collect(0)
        return 0


def collect_on_gui_thread() -> GuiCollector:
    """Make sure cycles are collected on the GUI thread from now on (once per process);
    call on the GUI thread once a QApplication exists."""
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        raise RuntimeError("the collector belongs to the GUI thread of a running application")
    found = app.findChild(GuiCollector, options=Qt.FindChildOption.FindDirectChildrenOnly)
    collector = found if isinstance(found, GuiCollector) else GuiCollector(app)
    if not collector.running:
        collector.start()
    return collector
