"""An image replaced on disk while its case is open: the decision made on the earlier
image is stale in the case panel *and* in every count, at once, not only after reopening."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from sabre_desk.gui.main_window import MainWindow

CASE = "ctx02_apple_tennis_ball"


def test_a_decision_on_an_image_replaced_on_disk_stops_counting_at_once(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, CASE)
    canvas = window.compare.canvases[window.compare.visible_roles[-1]]
    QTest.keyClick(canvas, Qt.Key.Key_1)  # Keep
    workbench = window.workbench
    qtbot.waitUntil(lambda: workbench.counts.decided_by_me == 1, timeout=10000)
    assert window.wait_for_background(15000)  # the images hashed: the decision is bound
    edited = next((demo_project / "cases" / CASE).glob("edited.*"))
    pixels = np.asarray(Image.open(edited).convert("RGB")).copy()
    pixels[:40, :40] = 255 - pixels[:40, :40]  # another image, same name (another window)
    Image.fromarray(pixels).save(edited)
    window.team_ui.live.poll_case()  # what the timer does
    qtbot.waitUntil(lambda: window.controller.editor.decision_stale(), timeout=15000)
    qtbot.waitUntil(lambda: workbench.counts.decided_by_me == 0, timeout=15000)
    entry = window.project.entry(CASE)
    assert entry is not None and entry.stale
