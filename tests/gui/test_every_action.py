"""Every action of the window either works or says why: with no project, with a project and
no case, and on a case of one image. Triggered from its menu entry (a toolbar button is the
same action), each one greys out, changes something the reviewer sees, or puts a line in the
status bar. No window but the main window and its dialogs ever appears, and a message about
a case goes when the reviewer leaves that case."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialog, QDockWidget, QToolBar

from sabre_desk.gui.main_window import MainWindow

SINGLE_IMAGE = "count01_apples"  # the demo's counting cases have one image
NOT_TRIGGERED = {"&Quit"}  # ends the window: its own test below


def window_actions(window: MainWindow) -> list[QAction]:
    """Every action a reviewer can reach from the menus and the toolbar."""
    seen: dict[int, QAction] = {}
    for menu_action in window.menuBar().actions():
        menu = menu_action.menu()
        stack = [menu] if menu is not None else []
        while stack:
            for action in stack.pop().actions():
                if action.menu() is not None:
                    stack.append(action.menu())
                elif action.text() and not action.isSeparator():
                    seen.setdefault(id(action), action)
    for action in window.findChild(QToolBar).actions():
        if action.text() and not action.isSeparator():
            seen.setdefault(id(action), action)
    return [a for a in seen.values() if a.text() not in NOT_TRIGGERED]


def what_the_reviewer_sees(window: MainWindow) -> tuple:
    """The state an action can change: the case, its review, the zoom, the docks, the
    checked entries, where the keys go, the jobs, the status line."""
    controller = window.session.controller
    case = controller.case if controller is not None else None
    review = case.review if case is not None else None
    canvases = window.compare.canvases.values()
    docks = window.findChildren(QDockWidget)
    checkable = [a for a in window.findChildren(QAction) if a.isCheckable()]
    return (
        window.statusBar().currentMessage(),
        case.case_id if case is not None else None,
        review.decision if review is not None else None,
        len(review.boxes) if review is not None else 0,
        tuple(round(c.screen_zoom, 4) for c in canvases if c.isVisible()),
        tuple(c.selected_box for c in canvases),
        tuple(d.isVisible() for d in docks),
        window.findChild(QToolBar).isVisible(),
        tuple(a.isChecked() for a in checkable),
        window.focusWidget(),
        window.workbench.mode,
        len(window.job_board.jobs),
        tuple(controller.editor.messages) if controller and controller.editor else (),
    )


def trigger_and_watch(qtbot, window: MainWindow, action: QAction) -> tuple[bool, list[str]]:
    """Trigger *action*; whether what the reviewer sees changed (a dialog counts: it is
    closed again), and the top-level widgets it put on the screen that are not dialogs."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before_windows = {id(w) for w in app.topLevelWidgets() if w.isVisible()}
    dialogs: list[str] = []

    def close_dialog() -> None:
        dialog = app.activeModalWidget()
        if dialog is not None:
            dialogs.append(dialog.windowTitle())
            dialog.close()

    closer = QTimer()
    closer.timeout.connect(close_dialog)
    closer.start(30)
    before = what_the_reviewer_sees(window)
    action.trigger()
    qtbot.wait(60)
    closer.stop()
    strays, opened = [], bool(dialogs)
    for widget in app.topLevelWidgets():
        if not widget.isVisible() or id(widget) in before_windows:
            continue
        if isinstance(widget, QDialog) and widget.parentWidget() is not None:
            opened = True  # one of the window's own dialogs (the team dialog)
        else:
            strays.append(f"{type(widget).__name__} {widget.windowTitle()!r}")
        widget.close()
    changed = opened or what_the_reviewer_sees(window) != before
    return changed, strays


def check_every_action(qtbot, window: MainWindow, reset: Callable[[], None]) -> list[str]:
    """Each action, from the same starting point: its problems, in words."""
    problems = []
    for action in window_actions(window):
        if not shiboken6.isValid(action):
            continue  # Undo/Redo are made anew for each project
        reset()
        name = action.text().replace("&", "")
        if not action.isEnabled():
            continue  # greyed out: the reviewer sees it cannot be used here
        changed, strays = trigger_and_watch(qtbot, window, action)
        if strays:
            problems.append(f"{name}: opened a window of its own: {strays}")
        if not changed:
            problems.append(f"{name}: did nothing and said nothing")
    return problems


def start_over(qtbot, window: MainWindow, case_id: str | None = None) -> Callable[[], None]:
    """The starting point for each action: the panels and toolbar shown, the case open at
    the zoom the reviewer left it, no box selected, the keys on neither canvas nor list, the
    status line empty."""

    def reset() -> None:
        for dock in window.findChildren(QDockWidget):
            dock.setVisible(True)
        window.findChild(QToolBar).setVisible(True)
        if window.compare.swiping:
            window.compare.set_swiping(False)
        if window.changes_ui.visible:
            window.changes_ui.action.setChecked(False)
        if case_id is not None and window.session.case.case_id != case_id:
            with qtbot.waitSignal(window.images_shown, timeout=10000):
                window.case_list.select(case_id)
        for canvas in window.compare.canvases.values():
            canvas._select(-1)  # nothing selected, as after a click beside every box
        if window.compare.visible_roles and window.compare.active_canvas().image_size:
            window.compare.fit()
            window.compare.zoom_by(1.25)  # the reviewer's own zoom: Fit changes it back
        window.statusBar().setFocus()
        window.statusBar().clearMessage()

    return reset


def test_with_no_project_every_action_greys_out_works_or_says_why(
    qtbot, window: MainWindow
) -> None:
    problems = check_every_action(qtbot, window, start_over(qtbot, window))
    assert problems == []
    # what needs a project waits for one, greyed out, rather than doing nothing
    repair = next(a for a in window_actions(window) if "Repair the Selected Box" in a.text())
    assert not repair.isEnabled()
    assert not window.changes_ui.action.isEnabled() and not window.changes_ui.section.isVisible()


def test_with_a_project_of_no_case_every_action_works_or_says_why(
    qtbot, window: MainWindow, make_project: Callable[..., Path]
) -> None:
    with qtbot.waitSignal(window.index_reader.finished, timeout=10000):
        assert window.open_project(make_project("empty"))
    problems = check_every_action(qtbot, window, start_over(qtbot, window))
    assert problems == []


def test_on_a_single_image_case_every_action_works_or_says_why(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, SINGLE_IMAGE)
    window.wait_for_background(10000)
    problems = check_every_action(qtbot, window, start_over(qtbot, window, SINGLE_IMAGE))
    window.screening_ui.shutdown()
    assert problems == []


def test_a_message_about_a_case_goes_when_the_reviewer_leaves_it(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "ctx01_tape_bagel")
    window.repair_ui.accept_action.trigger()
    assert window.statusBar().currentMessage() == "No repair preview to accept is shown"
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("ctx02_apple_tennis_ball")
    # gone with its case: the bar names the project and the reviewer again
    resting = window.statusBar().currentMessage()
    assert "No repair preview" not in resting and "reviewer alice" in resting
    # a line about the project, or naming its case, stays for its time
    window.session.say("Repair r1 of ctx02_apple_tennis_ball is ready")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("ctx01_tape_bagel")
    assert window.statusBar().currentMessage() == "Repair r1 of ctx02_apple_tennis_ball is ready"


@pytest.mark.timeout(120)
def test_quit_ends_the_process_even_after_d_with_no_project(tmp_path: Path) -> None:
    """The steps that left a process running: `sabre-desk open` with no project, D, then
    File > Quit (the desktop's quit key, Ctrl+Q on Linux, triggers this same action)."""
    script = textwrap.dedent(
        """
        import sys
        from PySide6.QtCore import Qt, QTimer
        from PySide6.QtGui import QAction
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication
        import sabre_desk.gui.app as app_module

        def keys():
            window = next(
                w for w in QApplication.topLevelWidgets() if type(w).__name__ == "MainWindow"
            )
            QTest.keyClick(window, Qt.Key.Key_D)
            quit_ = next(a for a in window.findChildren(QAction) if a.text() == "&Quit")
            quit_.trigger()

        app_module.make_app()
        QTimer.singleShot(500, keys)
        sys.exit(app_module.run_gui(None, "ana"))
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SABRE_DESK_CONFIG_DIR": str(tmp_path)}
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the process was still running a minute after Quit: {exc.stderr!r}")
    assert done.returncode == 0, done.stderr
