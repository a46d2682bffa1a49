"""File > Switch Reviewer… on a laptop shared in turns: the last reviewer's work is saved
under her name, the window then acts as the next one (status bar, blind review)."""

from __future__ import annotations

import json
from collections.abc import Callable

from factories import write_review
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QDialogButtonBox

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.main_window import MainWindow


def _file_action(window: MainWindow, text: str) -> QAction:
    (file_menu,) = [
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File"
    ]
    (action,) = [a for a in file_menu.actions() if a.text().replace("&", "") == text]
    return action


def test_switch_reviewer_saves_first_then_acts_as_the_new_name(
    qtbot, window: MainWindow, open_case: Callable, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "c1")
    write_review(root / "cases/c1", "bob", "keep", notes="bagel is a donut")
    open_case(window, root, "c1")
    section = window.team_ui.section
    window.compare.canvases[ImageRole.EDITED].setFocus()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_1)  # alice: Keep
    qtbot.waitUntil(lambda: section.table.isVisible(), timeout=2000)

    _file_action(window, "Switch Reviewer…").trigger()
    dialog = window.reviewer_switch.dialog
    assert dialog is not None and dialog.isVisible()
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    qtbot.keyClicks(dialog.field, "al ice")
    assert not ok.isEnabled() and "invalid reviewer name" in dialog.problem.text()
    dialog.field.clear()
    qtbot.keyClicks(dialog.field, "carol")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)

    alice = json.loads((root / "cases/c1/reviews/alice.json").read_text(encoding="utf-8"))
    assert alice["decision"] == "keep" and alice["reviewer"] == "alice"  # saved first
    assert window.reviewer == "carol" and window.project.reviewer == "carol"
    assert window.controller.case.case_id == "c1"
    qtbot.waitUntil(lambda: "reviewer carol" in window.statusBar().currentMessage(), timeout=5000)
    section = window.team_ui.section
    assert "Blind review" in section.notice.text() and not section.table.isVisible()
    assert not (root / "cases/c1/reviews/carol.json").exists()
