"""How late the GUI event loop runs: a 1 ms timer records the gap between its ticks."""

from __future__ import annotations

from PySide6.QtCore import QElapsedTimer, QTimer


class StallMeter:
    def __init__(self) -> None:
        self.gaps: list[float] = []
        self._clock = QElapsedTimer()
        self._timer = QTimer()
        self._timer.setInterval(1)
        self._timer.timeout.connect(self._tick)
        self._last = 0

    def start(self) -> None:
        self._clock.start()
        self._last = self._clock.nsecsElapsed()
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def _tick(self) -> None:
        now = self._clock.nsecsElapsed()
        self.gaps.append((now - self._last) / 1e6)
        self._last = now

    @property
    def largest(self) -> float:
        return max(self.gaps, default=0.0)
