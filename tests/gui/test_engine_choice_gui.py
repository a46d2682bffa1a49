"""The Repair panel's engine list and fields come from the engine registry: every engine
with its label, a greyed one with the reason it cannot run, a new one with its own
fields, and the file engine's chooser, with no panel code knowing any engine by name."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fakes.engines import TintEngine, UnpluggedEngine
from PIL import Image
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QFileDialog, QFormLayout, QLabel, QLineEdit
from test_repair_gui import REPAIR_LANDS_MS

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.engines.registry import ENGINES
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.repair.repair_panel import RepairPanel

CASE = "ctx03_wrench_banana"


def entries(panel: RepairPanel) -> list[tuple[str, str, bool, str]]:
    """(name, text, enabled, tooltip) of each engine in the list, as the reviewer sees it."""
    model = panel.engine.model()
    assert isinstance(model, QStandardItemModel)
    return [
        (
            panel.engine.itemData(row),
            model.item(row).text(),
            model.item(row).isEnabled(),
            model.item(row).toolTip(),
        )
        for row in range(panel.engine.count())
    ]


def field_row(panel: RepairPanel, engine: str, param: str) -> tuple[str, bool]:
    """The label of an engine field's row and whether the row is shown."""
    field = panel.engine_fields.field(engine, param)
    form = panel.engine_fields.form
    assert isinstance(form, QFormLayout) and form.indexOf(field) >= 0
    label = form.labelForField(field)
    assert isinstance(label, QLabel)
    return label.text(), form.isRowVisible(field)


def choose(panel: RepairPanel, engine: str) -> None:
    panel.engine.setCurrentIndex(panel.engine.findData(engine))


def box_the_fragment(qtbot, window: MainWindow) -> None:
    canvas = window.compare.canvases[ImageRole.EDITED]
    w, h = canvas.image_size

    def at(fx: float, fy: float) -> QPoint:
        return canvas.mapFromScene(QPointF(fx * w, fy * h))

    canvas.setFocus()
    start, end = at(0.345, 0.595), at(0.41, 0.69)
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(canvas.viewport(), end)
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=end)
    qtbot.waitUntil(lambda: window.repair_ui.panel.current_box() is not None, timeout=2000)


def test_every_registered_engine_is_listed_with_its_label(
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k" * 32)  # every engine can run here
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    assert entries(panel) == [(cls.name, cls.label, True, cls.label) for cls in ENGINES.values()]
    assert panel.engine.currentData() == "patchmatch"  # the offline default


def test_an_engine_that_cannot_run_here_is_greyed_with_its_reason(
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(ENGINES, UnpluggedEngine.name, UnpluggedEngine)
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    open_case(window, demo_project, CASE)
    listed = {name: rest for name, *rest in entries(window.repair_ui.panel)}
    assert listed["unplugged"] == [
        f"{UnpluggedEngine.label} — unavailable",
        False,
        UnpluggedEngine.REASON,
    ]
    text, enabled, tip = listed["gemini"]
    assert text.endswith("— unavailable") and not enabled and "GEMINI_API_KEY" in tip


def test_an_engine_added_to_the_registry_is_offered_with_its_field_and_repairs(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(ENGINES, TintEngine.name, TintEngine)
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    assert ("tint", TintEngine.label, True, TintEngine.label) in entries(panel)
    assert field_row(panel, "tint", "colour") == ("Colour", False)  # another engine is chosen

    box_the_fragment(qtbot, window)
    choose(panel, "tint")
    assert field_row(panel, "tint", "colour") == ("Colour", True)
    assert field_row(panel, "file", "file")[1] is False
    colour = panel.engine_fields.field("tint", "colour")
    assert isinstance(colour, QLineEdit)
    assert colour.placeholderText() == "0,200,0"  # its default, shown until a value is typed
    qtbot.keyClicks(colour, "10,20,30")
    assert panel.run.isEnabled()
    panel.run.click()
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=REPAIR_LANDS_MS)

    folder = demo_project / "cases" / CASE
    (record,) = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    assert record["engine"] == "tint"
    preview = np.asarray(Image.open(folder / record["preview"]).convert("RGB"))
    h, w = preview.shape[:2]
    assert tuple(preview[int(0.64 * h), int(0.38 * w)]) == (10, 20, 30)  # the box's middle


def test_the_file_engine_asks_for_its_image_before_it_runs(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    box_the_fragment(qtbot, window)
    assert field_row(panel, "file", "file") == ("Image file", False)
    choose(panel, "file")
    assert field_row(panel, "file", "file") == ("Image file", True)
    assert not panel.run.isEnabled()
    assert panel.run.toolTip() == "choose the image file to use"
    chosen = demo_project / "cases" / CASE / "base.png"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(chosen), ""))
    button = panel.engine_fields.field("file", "file")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert button.text() == "base.png"
    assert panel.run.isEnabled()
