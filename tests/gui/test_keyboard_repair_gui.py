"""The keyboard knows which image it acts on: the image with it is marked, O moves it between
Base and Edited, a box drawn with B, repaired with Ctrl+R and accepted with Ctrl+Return lands
on that image, and Esc leaves the repair comparison whole. Keys only, in a real window."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import ViewMode
from sabre_desk.core.repair import comparison
from sabre_desk.gui.main_window import MainWindow

BEFORE, CASE = "ctx02_apple_tennis_ball", "ctx03_wrench_banana"
BASE, EDITED = ImageRole.BASE, ImageRole.EDITED
CTRL, NONE = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.NoModifier


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def key(qtbot, window: MainWindow, k: Qt.Key, modifier=NONE) -> None:
    qtbot.keyClick(QApplication.focusWidget() or window, k, modifier)


def test_box_repair_accept_on_edited_with_keys_only(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, BEFORE)
    window.repair_ui.panel.engine.setCurrentIndex(
        window.repair_ui.panel.engine.findData("opencv-telea")
    )  # a quick engine: the keys are under test, not the engine
    compare = window.compare
    base = compare.canvases[BASE]
    qtbot.mouseClick(base.viewport(), Qt.MouseButton.LeftButton)  # the reviewer was on Base
    qtbot.waitUntil(lambda: compare.keyboard.role() is BASE)
    assert compare.keyboard.marked() is BASE  # and sees it
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        key(qtbot, window, Qt.Key.Key_N)
    assert window.session.case.case_id == CASE
    # after N the keyboard is on an image, and the one it is on is the one marked
    on = compare.keyboard.role()
    assert on is not None and compare.keyboard.marked() is on
    if on is BASE:
        key(qtbot, window, Qt.Key.Key_O)
    assert compare.keyboard.role() is EDITED and compare.keyboard.marked() is EDITED
    key(qtbot, window, Qt.Key.Key_O)  # and back, and forth again
    assert compare.keyboard.role() is BASE and compare.keyboard.marked() is BASE
    key(qtbot, window, Qt.Key.Key_O)
    assert compare.keyboard.marked() is EDITED

    folder = demo_project / "cases" / CASE
    base_before, edited_before = sha(folder / "base.png"), sha(folder / "edited.png")
    case = window.session.case
    key(qtbot, window, Qt.Key.Key_B)
    qtbot.waitUntil(lambda: len(case.review.boxes_on(EDITED)) == 1)
    assert not case.review.boxes_on(BASE)
    key(qtbot, window, Qt.Key.Key_R, CTRL)
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None, timeout=30000)
    assert window.repair_ui.previewing.image_role == EDITED
    assert window.workbench.mode is ViewMode.REPAIR_COMPARISON
    # the status bar names what the pane under the pointer shows: the Edited image on the
    # left (Base's canvas: "base", it said), the preview on the right
    record = window.repair_ui.previewing
    for canvas, name in ((base, "edited (current)"), (compare.canvases[EDITED], record.id)):
        middle = canvas.viewport().rect().center()
        qtbot.mouseMove(canvas.viewport(), middle)
        qtbot.waitUntil(lambda n=name: n in window.status.position_label.text())
    assert window.status.position_label.text().startswith(f"repair {record.id}")
    key(qtbot, window, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: sha(folder / "edited.png") != edited_before, timeout=10000)
    assert sha(folder / "base.png") == base_before  # Base untouched

    key(qtbot, window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.repair_ui.previewing is None, timeout=5000)
    assert window.workbench.mode is ViewMode.REVIEWING
    assert compare.captions[BASE].text() == "Base"
    assert compare.captions[EDITED].text() == "Edited"
    assert compare.keyboard.role() is not None  # the keyboard still on an image


def test_ctrl_r_in_a_comparison_makes_the_boxs_next_fill(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """In a comparison no box can be selected: Ctrl+R said "select or draw a box first".
    It repairs the shown result's box again, as Repair again does."""
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData("patchmatch"))
    compare = window.compare
    qtbot.mouseClick(compare.canvases[EDITED].viewport(), Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: compare.keyboard.role() is EDITED)
    key(qtbot, window, Qt.Key.Key_B)
    key(qtbot, window, Qt.Key.Key_R, CTRL)
    case = window.session.case
    qtbot.waitUntil(lambda: len(case.review.repairs) == 2, timeout=60000)  # and its stand-in
    shown = lambda: window.repair_ui.previewing  # noqa: E731
    qtbot.waitUntil(lambda: shown() is not None and shown().engine == "patchmatch")
    key(qtbot, window, Qt.Key.Key_R, CTRL)
    qtbot.waitUntil(lambda: len(case.review.repairs) == 3, timeout=60000)
    again = case.review.repairs[2]
    assert again.engine == "patchmatch" and again.box == case.review.repairs[1].box
    qtbot.waitUntil(lambda: shown().id == again.id)
    assert "patchmatch, fill 2" in compare.captions[EDITED].text()
    # Esc: back to the case with the repaired box selected again, so Ctrl+R acts on it
    key(qtbot, window, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: shown() is None)
    qtbot.waitUntil(lambda: panel.current_box() == again.box)
    key(qtbot, window, Qt.Key.Key_R, CTRL)
    qtbot.waitUntil(lambda: len(case.review.repairs) == 4, timeout=60000)
    third = case.review.repairs[3]
    assert third.engine == "patchmatch" and comparison.variant_of(third) == 2
