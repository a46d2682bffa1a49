"""GUI fixtures: a real MainWindow, offscreen, that leaves no work running."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QMessageBox

from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.workers import Worker
from sabre_desk.settings import Settings


@pytest.fixture
def warnings_shown(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Message boxes are recorded instead of blocking the test."""
    shown: list[str] = []
    monkeypatch.setattr(
        QMessageBox,
        "warning",
        lambda parent, title, text, *a, **k: shown.append(f"{title}: {text}"),
    )
    return shown


@pytest.fixture
def window(qtbot, warnings_shown: list[str]) -> Iterator[MainWindow]:
    win = MainWindow("alice", Settings())
    qtbot.addWidget(win)
    win.show()
    yield win
    win.pool.waitForDone(5000)
    qtbot.waitUntil(lambda: Worker.in_flight() == 0, timeout=5000)
    assert win.pool.activeThreadCount() == 0, "a test left pool work running"
