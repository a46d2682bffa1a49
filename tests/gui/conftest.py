"""GUI fixtures: a real MainWindow, offscreen, that leaves no work running."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool
from PySide6.QtWidgets import QApplication, QMessageBox

from sabre_desk.gui.machinery.collector import GuiCollector
from sabre_desk.gui.machinery.workers import Worker
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.settings import load_settings

GUI_TESTS = Path(__file__).parent
#: the shortest a test waits for something to happen on screen or on disk: the suite runs
#: beside other work on two cores, where a paint or a save can take seconds; a wait that is
#: met returns at once, and no test asserts a time (speed is measured in benchmarks/)
LEAST_WAIT_MS = 10_000


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """The window collects cycles on the GUI thread for the rest of the process; the
    Qt-free tests that follow the last GUI test get Python's own collection back."""
    app = QApplication.instance()
    collector = app.findChild(GuiCollector) if app is not None else None
    if collector is not None and (nextitem is None or GUI_TESTS not in nextitem.path.parents):
        collector.stop()


@pytest.fixture(autouse=True)
def patient_waits(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``qtbot.waitUntil`` waits at least LEAST_WAIT_MS before it fails."""
    wait_until = qtbot.waitUntil

    def wait_at_least(callback: Callable[[], object], *, timeout: int = 5000) -> None:
        wait_until(callback, timeout=max(timeout, LEAST_WAIT_MS))

    monkeypatch.setattr(qtbot, "waitUntil", wait_at_least)


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
def make_window(qtbot, warnings_shown: list[str]) -> Iterator[Callable[..., MainWindow]]:
    """Build windows the way the app does (settings from the isolated config folder)."""
    windows: list[MainWindow] = []

    def make(reviewer: str = "alice") -> MainWindow:
        settings, _ = load_settings()
        win = MainWindow(reviewer, settings)
        qtbot.addWidget(win)
        win.resize(1560, 900)  # the offscreen screen is small; the window fits a real one
        win.show()
        win.activateWindow()
        qtbot.waitExposed(win)
        windows.append(win)
        return win

    yield make
    for win in windows:
        # a bound that only a hang reaches: a loaded runner took more than 15 s to warm
        assert win.wait_for_background(60_000), "pool work still running after 60 s"
    qtbot.waitUntil(lambda: Worker.in_flight() == 0, timeout=5000)


@pytest.fixture
def window(make_window: Callable[..., MainWindow]) -> MainWindow:
    return make_window()


@pytest.fixture
def open_case(qtbot) -> Callable[..., None]:
    def open_(window: MainWindow, root: Path, case_id: str | None = None) -> None:
        with qtbot.waitSignal(window.images_shown, timeout=10000):
            assert window.open_project(root, case_id)

    return open_


@pytest.fixture
def hold_pool() -> Iterator[Callable[[QThreadPool], Callable[[], None]]]:
    """Keep every thread of a pool busy until the returned call lets it go: what is started
    on it meanwhile waits its turn. (``setMaxThreadCount(0)`` holds nothing: Qt still runs
    a pool's first task.) Whatever is still held is let go after the test."""
    gates: list[threading.Event] = []

    def hold(pool: QThreadPool) -> Callable[[], None]:
        gate = threading.Event()
        gates.append(gate)
        started = threading.Semaphore(0)

        def busy() -> None:
            started.release()
            gate.wait()

        for _ in range(pool.maxThreadCount()):
            pool.start(busy)
        for _ in range(pool.maxThreadCount()):
            assert started.acquire(timeout=10), "the pool never started the holding task"
        return gate.set

    yield hold
    for gate in gates:
        gate.set()
