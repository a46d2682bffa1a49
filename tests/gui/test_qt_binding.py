"""Guard against Qt bindings that corrupt reference counts (PySide6 6.12.0 on Python 3.11).

Such a binding releases None or a bool once per event-loop turn or signal; after a few
thousand turns of a long review session the interpreter aborts and unsaved work is lost.
pyproject.toml excludes the affected releases; this test catches the next one.

From Python 3.12 on, None, True and False are immortal (PEP 683): their reference counts are
pinned and say nothing about a leak, and an extra release can no longer free them, so the
fault cannot lose work there. The guard runs on 3.11 and is skipped, with that reason, after.
"""

from __future__ import annotations

import sys

import pytest
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication


class _Emitter(QObject):
    value = Signal(object)


@pytest.mark.skipif(
    sys.version_info >= (3, 12),
    reason="None, True and False are immortal from Python 3.12 (PEP 683): their reference "
    "counts mean nothing and an extra release cannot free them",
)
def test_event_loop_and_signals_keep_reference_counts(qapp: QApplication) -> None:
    emitter = _Emitter()
    received = [0]  # a count: storing the values would hold references of its own
    emitter.value.connect(lambda _v: received.__setitem__(0, received[0] + 1))
    counts = [sys.getrefcount(v) for v in (None, True, False)]
    for i in range(200):
        qapp.processEvents()
        emitter.value.emit(None if i % 2 else bool(i % 3))
    assert received[0] == 200
    after = [sys.getrefcount(v) for v in (None, True, False)]
    drift = [a - b for a, b in zip(after, counts, strict=True)]
    assert all(abs(d) < 20 for d in drift), f"reference counts drifted by {drift}"
