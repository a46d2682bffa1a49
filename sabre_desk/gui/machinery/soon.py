"""Work for later that ends with its object.

``QTimer.singleShot(ms, context, slot)`` would do, but PySide6 (6.11 here) keeps the slot
alive for good when *context* is deleted before the timer fires: a bound method or a lambda
holding a window keeps every closed window's Python side from being collected. A timer that
is the context's child is deleted with it, and its connection with it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


def soon_timer(context: QObject, slot: Callable[[], object], delay_ms: int = 0) -> QTimer:
    """A single-shot timer of *context* that calls *slot*: ``start()`` it as often as
    needed, one call follows however many starts came before it."""
    timer = QTimer(context)
    timer.setSingleShot(True)
    timer.setInterval(delay_ms)
    timer.timeout.connect(slot)
    return timer


def call_soon(context: QObject, slot: Callable[[], object], delay_ms: int = 0) -> None:
    """Call *slot* once on this thread's event loop after *delay_ms*, unless *context* is
    deleted first."""
    timer = soon_timer(context, slot, delay_ms)
    timer.timeout.connect(timer.deleteLater)
    timer.start()
