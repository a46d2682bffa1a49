"""Waiting for the window as the application itself does.

A script that spins ``processEvents()`` in a Python loop holds the interpreter lock almost
all the time (measured with ``py-spy record --gil``: the GUI thread held it in 94 % of the
samples of ``stall_scenarios.py``), so every decoding thread waits for it, and the GUI
thread then waits for them in turn: the stalls it measures are partly its own. The
application sleeps in Qt's event loop with the lock released; ``AppLoop`` does the same,
woken every 2 ms by a timer so that a deadline or a condition is looked at in time.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEventLoop, QTimer

_WAIT = QEventLoop.ProcessEventsFlag.WaitForMoreEvents


class AppLoop:
    def __init__(self, app: QCoreApplication, tick_ms: int = 2) -> None:
        self.app = app
        self._ticker = QTimer()
        self._ticker.start(tick_ms)

    def run_for(self, seconds: float) -> None:
        """Handle events for *seconds*, asleep in between."""
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            self.app.processEvents(_WAIT)

    def until(self, done: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
        """Handle events until *done*; TimeoutError (naming *what*) after *timeout* s."""
        deadline = time.perf_counter() + timeout
        while not done():
            self.app.processEvents(_WAIT)
            if time.perf_counter() > deadline:
                raise TimeoutError(what or "the window")
