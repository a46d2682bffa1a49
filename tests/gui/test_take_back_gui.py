"""File > Take Back Work from a Copy… in the window: the dry run is shown first and writes
nothing; Take Back brings the copy's work in and the open project shows it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from factories import write_review
from PySide6.QtCore import Qt

from sabre_desk.core.case.review import Decision
from sabre_desk.gui.main_window import MainWindow


def test_take_back_previews_then_brings_the_copys_decision_into_the_open_project(
    qtbot, window: MainWindow, open_case: Callable, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "c1")
    add_case(root, "c2")
    copy = Path(shutil.copytree(root, root.parent / "train-copy"))
    write_review(copy / "cases" / "c1", "alice", "keep")
    window.reviewer = "alice"
    open_case(window, root, "c1")
    assert window.controller.case.review.decision is None
    (file_menu,) = [
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File"
    ]
    texts = [a.text().replace("&", "") for a in file_menu.actions()]
    assert "Take Back Work from a Copy…" in texts

    window.take_back_ui.preview(copy)
    dialog = window.take_back_ui.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.take.isEnabled(), timeout=10000)
    assert "would take back" in dialog.report.toPlainText()
    assert "cases/c1/reviews/alice.json" in dialog.report.toPlainText()
    assert not (root / "cases/c1/reviews/alice.json").exists()  # the dry run wrote nothing

    with qtbot.waitSignal(window.take_back_ui.taken, timeout=10000):
        qtbot.mouseClick(dialog.take, Qt.MouseButton.LeftButton)
    saved = json.loads((root / "cases/c1/reviews/alice.json").read_text())
    assert saved["decision"] == "keep"
    qtbot.waitUntil(
        lambda: (
            window.controller is not None
            and window.controller.case is not None
            and window.controller.case.review.decision is Decision.KEEP
        ),
        timeout=10000,
    )


def test_a_folder_of_another_project_is_named_and_take_back_stays_off(
    qtbot, window: MainWindow, open_case: Callable, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "c1")
    other = make_project("other")
    open_case(window, root, "c1")
    window.take_back_ui.preview(other)
    dialog = window.take_back_ui.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: "another project" in dialog.report.toPlainText(), timeout=10000)
    assert not dialog.take.isEnabled()
