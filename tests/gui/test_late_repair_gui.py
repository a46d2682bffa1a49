"""A slow engine's better result lands after its quick preview: it replaces the quick one
while the reviewer is still comparing it, at the zoom they chose, and it never pulls a
reviewer who has gone back to the case into the comparison again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes.engines import GatedEngine, TintEngine
from test_repair_gui import CASE, box_the_fragment

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.engines.registry import ENGINES
from sabre_desk.gui.main_window import MainWindow

BASE, EDITED = ImageRole.BASE, ImageRole.EDITED


@pytest.fixture
def slow_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setitem(ENGINES, TintEngine.name, TintEngine)
    monkeypatch.setitem(ENGINES, GatedEngine.name, GatedEngine)
    GatedEngine.gate.clear()
    yield
    GatedEngine.gate.set()  # nothing left waiting behind the test


@pytest.fixture
def comparing(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path, slow_engine: None
) -> MainWindow:
    """The case open, the fragment boxed, the slow engine run, its quick preview shown
    beside the image; the better result held back until ``let_the_better_one_land``."""
    open_case(window, demo_project, CASE)
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData(GatedEngine.name))
    assert panel.run_repair()
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None, timeout=10000)
    assert window.repair_ui.previewing.engine == TintEngine.name
    qtbot.waitUntil(
        lambda: all(window.compare.canvases[r].display_image is not None for r in (BASE, EDITED)),
        timeout=5000,
    )
    return window


def let_the_better_one_land(qtbot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.session.controller.preview_landed, timeout=10000):
        GatedEngine.gate.set()


def test_the_better_result_waits_in_the_list_once_the_reviewer_went_back(
    qtbot, comparing: MainWindow
) -> None:
    window = comparing
    panel = window.repair_ui.panel
    panel.back.click()
    qtbot.waitUntil(lambda: window.repair_ui.previewing is None, timeout=5000)
    qtbot.waitUntil(lambda: all(window.compare.canvases[r].fitted for r in (BASE, EDITED)))

    let_the_better_one_land(qtbot, window)
    qtbot.wait(200)  # what a landing asks the window to show, shown
    assert window.repair_ui.previewing is None  # still on the case, as the reviewer chose
    assert all(window.compare.canvases[r].fitted for r in (BASE, EDITED))
    assert window.compare.captions[EDITED].text() == "Edited"
    assert panel.previews.count() == 2  # listed, to be chosen
    message = window.statusBar().currentMessage()
    assert "is ready" in message and "Repair panel" in message

    panel.previews.setCurrentRow(0)  # the newest first: the better one, chosen by hand
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None, timeout=5000)
    assert window.repair_ui.previewing.engine == GatedEngine.name


def test_the_better_result_replaces_the_quick_one_being_compared_at_its_zoom(
    qtbot, comparing: MainWindow
) -> None:
    window = comparing
    left = window.compare.canvases[BASE]
    qtbot.waitUntil(lambda: not left.fitted, timeout=5000)  # zoomed in on the box
    left.zoom_by(1.5)  # the reviewer looks closer
    zoom = window.compare.state.zoom
    assert zoom is not None

    let_the_better_one_land(qtbot, window)
    qtbot.waitUntil(
        lambda: (
            window.repair_ui.previewing is not None
            and window.repair_ui.previewing.engine == GatedEngine.name
        ),
        timeout=5000,
    )
    qtbot.waitUntil(lambda: GatedEngine.name in window.compare.captions[EDITED].text())
    qtbot.wait(200)  # painted, and any zoom to the box it would ask for applied
    assert window.compare.state.zoom == zoom  # where the reviewer was looking, not refitted
