"""A whole review from the keyboard: every dialog opened and closed once, then decide, box,
repair, accept, undo and next, with key presses only; the keys reach the image throughout."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QDialog, QTabBar

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.main_window import MainWindow

CASE = "ctx03_wrench_banana"
EDITED = ImageRole.EDITED
CTRL, SHIFT = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
NONE = Qt.KeyboardModifier.NoModifier

#: Every dialog a key opens: (what, key, modifiers).
DIALOGS = [
    ("Go to Case", Qt.Key.Key_G, CTRL),
    ("Keyboard Shortcuts", Qt.Key.Key_F1, NONE),
    ("Team", Qt.Key.Key_T, CTRL | SHIFT),
    ("Export Release", Qt.Key.Key_E, CTRL | SHIFT),
    ("New Case from Photos", Qt.Key.Key_C, CTRL | SHIFT),
    ("New Project", Qt.Key.Key_N, CTRL),
    ("Open Project", Qt.Key.Key_O, CTRL),
]


def review(root: Path, case_id: str = CASE) -> dict:
    path = root / "cases" / case_id / "reviews" / "alice.json"
    return json.loads(path.read_text()) if path.exists() else {}


def key(qtbot, window: MainWindow, k: Qt.Key, modifier=NONE) -> None:
    qtbot.keyClick(QApplication.focusWidget() or window, k, modifier)


def on_image(window: MainWindow) -> ImageCanvas:
    focused = QApplication.focusWidget()
    assert isinstance(focused, ImageCanvas), f"the keyboard is on {focused!r}"
    assert focused in window.compare.canvases.values()
    return focused


def close_with_escape(qtbot, opened: list[str]) -> None:
    """Once the dialog is up, Esc on it (as a reviewer would)."""

    def close() -> None:
        shown = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog)]
        dialog = QApplication.activeModalWidget() or next((w for w in shown if w.isVisible()), None)
        if dialog is None:
            QTimer.singleShot(50, close)
            return
        if QApplication.activeWindow() is not dialog:
            dialog.activateWindow()  # as the window manager does with a new window
            QTimer.singleShot(50, close)
            return
        opened.append(dialog.windowTitle())
        QTest.keyClick(dialog.focusWidget() or dialog, Qt.Key.Key_Escape)

    QTimer.singleShot(50, close)


def swipe_keys_work(qtbot, window: MainWindow, what: str) -> None:
    """W swipes, Right moves the divider (not a tab), W ends it, V blinks: the keys reach
    the image."""
    canvas = on_image(window)
    key(qtbot, window, Qt.Key.Key_W)
    assert window.compare.swiping, what
    swiped = window.compare.canvases[EDITED]
    before = swiped.swipe_split
    key(qtbot, window, Qt.Key.Key_Right)
    assert swiped.swipe_split > before, what
    key(qtbot, window, Qt.Key.Key_W)
    assert not window.compare.swiping, what
    held = on_image(window)  # V held: the other image in place
    role = next(r for r, c in window.compare.canvases.items() if c is held)
    QTest.keyPress(held, Qt.Key.Key_V)
    assert "(while V is held)" in window.compare.captions[role].text(), what
    QTest.keyRelease(held, Qt.Key.Key_V)
    assert "(while V is held)" not in window.compare.captions[role].text(), what
    assert canvas is not None


@pytest.fixture
def reviewing(window: MainWindow, open_case: Callable, demo_project: Path) -> MainWindow:
    window.resize(1366, 730)
    open_case(window, demo_project, CASE)
    return window


def test_no_tab_bar_takes_the_keyboard(qtbot, reviewing: MainWindow) -> None:
    window = reviewing
    bars = window.findChildren(QTabBar)
    assert bars  # the docks' Case / Repair / Pipeline tabs
    assert all(bar.focusPolicy() == Qt.FocusPolicy.NoFocus for bar in bars)
    on_image(window)
    for _ in range(6):  # Tab from the image never lands on a tab bar
        key(qtbot, window, Qt.Key.Key_Tab)
        assert not isinstance(QApplication.focusWidget(), QTabBar)


def test_a_whole_review_with_the_keys_only(
    qtbot, reviewing: MainWindow, demo_project: Path
) -> None:
    window = reviewing
    on_image(window)
    opened: list[str] = []
    for what, k, modifiers in DIALOGS:
        count = len(opened) + 1
        close_with_escape(qtbot, opened)
        key(qtbot, window, k, modifiers)
        qtbot.waitUntil(lambda n=count: len(opened) == n, timeout=5000)
        qtbot.waitUntil(
            lambda: (
                not any(
                    isinstance(w, QDialog) and w.isVisible() for w in QApplication.topLevelWidgets()
                )
            ),
            timeout=5000,
        )
        window.activateWindow()  # as the window manager does when a dialog closes
        qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), ImageCanvas), timeout=2000)
        swipe_keys_work(qtbot, window, f"after {what}")
    assert len(opened) == len(DIALOGS)

    # The case list, then Esc: back on the image with the Case tab in front.
    key(qtbot, window, Qt.Key.Key_L, CTRL)
    assert QApplication.focusWidget() is window.case_list.view
    window.repair_ui.dock.raise_()
    key(qtbot, window, Qt.Key.Key_Escape)
    on_image(window)
    qtbot.waitUntil(lambda: not window.case_panel_dock.visibleRegion().isEmpty(), timeout=2000)

    # The Pipeline panel opened and closed: the keyboard is back on the image.
    key(qtbot, window, Qt.Key.Key_P, CTRL | SHIFT)
    qtbot.waitUntil(lambda: window.pipeline_ui.dock.isVisible(), timeout=2000)
    key(qtbot, window, Qt.Key.Key_P, CTRL | SHIFT)
    qtbot.waitUntil(lambda: not window.pipeline_ui.dock.isVisible(), timeout=2000)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), ImageCanvas), timeout=2000)
    assert window.case_panel_dock.visibleRegion().isEmpty() is False
    swipe_keys_work(qtbot, window, "after the Pipeline panel")

    # Decide.
    key(qtbot, window, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: review(demo_project).get("decision") == "keep", timeout=2000)
    # A box in the middle of the view, selected; the arrows move it.
    key(qtbot, window, Qt.Key.Key_B)
    qtbot.waitUntil(lambda: len(review(demo_project).get("boxes", [])) == 1, timeout=2000)
    canvas = on_image(window)
    assert canvas.selected_box == 0
    placed = review(demo_project)["boxes"][0]["box"]
    key(qtbot, window, Qt.Key.Key_Left, SHIFT)
    qtbot.waitUntil(lambda: review(demo_project)["boxes"][0]["box"] != placed, timeout=2000)
    assert review(demo_project)["boxes"][0]["box"][0] < placed[0]
    # Repair it, and accept the preview.
    key(qtbot, window, Qt.Key.Key_R, CTRL)
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None, timeout=15000)
    qtbot.waitUntil(lambda: window.repair_ui.panel.accept.isEnabled(), timeout=5000)
    key(qtbot, window, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(
        lambda: review(demo_project)["repairs"][-1]["status"] == "accepted", timeout=10000
    )
    # Undo the accept.
    key(qtbot, window, Qt.Key.Key_I, CTRL)
    on_image(window)
    key(qtbot, window, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(
        lambda: review(demo_project)["repairs"][-1]["status"] == "reverted", timeout=10000
    )
    # Next case, and the keys still decide there.
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        key(qtbot, window, Qt.Key.Key_N)
    on_image(window)
    next_case = window.controller.case.case_id
    assert next_case != CASE
    key(qtbot, window, Qt.Key.Key_6)
    qtbot.waitUntil(lambda: review(demo_project, next_case).get("decision") == "unsure")


def test_ctrl_l_and_ctrl_f_bring_back_a_closed_case_list(qtbot, reviewing: MainWindow) -> None:
    """The case list closed (its dock's ×): Ctrl+L and Ctrl+F show it again and put the
    keyboard in it, rather than on a list nobody can see."""
    window = reviewing
    on_image(window)
    for k, target in (
        (Qt.Key.Key_L, window.case_list.view),
        (Qt.Key.Key_F, window.case_list.filter),
    ):
        window.cases_dock.close()
        qtbot.waitUntil(lambda: not window.cases_dock.isVisible(), timeout=2000)
        window.focus_case()
        key(qtbot, window, k, CTRL)
        qtbot.waitUntil(lambda: window.cases_dock.isVisible(), timeout=2000)
        qtbot.waitUntil(lambda t=target: QApplication.focusWidget() is t, timeout=2000)
