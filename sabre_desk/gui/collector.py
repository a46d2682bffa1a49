"""Python's cyclic garbage collection, run on the GUI thread only.

CPython collects reference cycles on whichever thread's allocation crosses the threshold.
In the window that is most often a pool thread (decoding, polling the project, writing
previews), and a collection frees every cycle it finds on the thread that runs it. A Qt
object among them is then destroyed away from the GUI thread: a widget's item view whose
timers later fire on the GUI thread for freed memory, or a receiver whose connections
PySide unregisters in a table of its own that has no lock, while the GUI thread adds to
it — a segfault, seen in the collector, under load. So while the application runs,
automatic collection is off and a timer on the GUI thread collects instead, by Python's
own rule: a generation is collected once its count has passed its threshold.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, QTimer, Slot

#: How often the GUI thread looks whether a collection is due. Young garbage waits at most
#: this long; collecting it takes well under a millisecond.
CHECK_MS = 500


class GuiCollector(QObject):
    def __init__(self, parent: QObject):
        super().__init__(parent)
        self.collections = 0
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_MS)
        self._timer.timeout.connect(self.collect_due)
        self.start()

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        gc.disable()
        self._timer.start()

    def stop(self) -> None:
        """Hand collection back to Python: only where no Qt object or pool thread is left."""
        self._timer.stop()
        gc.enable()

    @Slot()
    def collect_due(self) -> int:
        """Collect the oldest generation whose count has passed its threshold, as Python's
        automatic collection would; returns how many objects were found unreachable."""
        thresholds, counts = gc.get_threshold(), gc.get_count()
        if not thresholds[0]:
            return 0  # thresholds of 0: collection was switched off on purpose
        for generation in (2, 1, 0):
            if counts[generation] > thresholds[generation]:
                self.collections += 1
                return gc.collect(generation)
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
