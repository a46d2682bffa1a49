"""A synced drive's second version of your review, in the window: the case panel's note
says so, File > Settle Conflict Copies… shows both side by side, and the one picked stays
(the other archived under reviews/.archive/, never deleted)."""

from __future__ import annotations

import shutil
from collections.abc import Callable

from factories import write_review
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from sabre_desk.core.case.review import Decision
from sabre_desk.gui.main_window import MainWindow

COPY = "alice.sync-conflict-20261129-120500-ABCDEFG.json"


def _file_action(window: MainWindow, text: str) -> QAction:
    (file_menu,) = [
        a.menu() for a in window.menuBar().actions() if a.text().replace("&", "") == "File"
    ]
    (action,) = [a for a in file_menu.actions() if a.text().replace("&", "") == text]
    return action


def test_the_owner_compares_both_versions_and_keeps_the_copy(
    qtbot, window: MainWindow, open_case: Callable, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    case = add_case(root, "c1")
    add_case(root, "c2")
    theirs = write_review(case, "alice", "edit_failed", notes="from the train")
    shutil.move(theirs, case / "reviews" / COPY)
    write_review(case, "alice", "keep", notes="from the office")
    write_review(case, "bob", "keep")
    shutil.copy(case / "reviews" / "bob.json", case / "reviews" / "bob (1).json")

    open_case(window, root, "c1")
    note = window.conflict_copies_ui.note
    assert note.isVisible() and "1 other version(s) of your review" in note.text()
    assert window.controller.case.review.decision is Decision.KEEP  # the copy never counts
    note.linkActivated.emit("settle")  # the note's link: the same dialog
    from_note = window.conflict_copies_ui.dialog
    assert from_note is not None and from_note.isVisible() and from_note.list.count() == 1
    from_note.reject()

    _file_action(window, "Settle Conflict Copies…").trigger()
    dialog = window.conflict_copies_ui.dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.list.count() == 1  # bob's copy is his to settle (blind review)
    assert "from the office" in dialog.original.toPlainText()
    assert "from the train" in dialog.copy.toPlainText()
    assert "Syncthing" in dialog.copy_label.text()
    qtbot.mouseClick(dialog.keep_copy, Qt.MouseButton.LeftButton)
    assert dialog.list.count() == 0 and "No conflict copies" in dialog.heading.text()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        dialog.accept()

    reviews = case / "reviews"
    assert not (reviews / COPY).exists() and (reviews / "bob (1).json").exists()
    archived = [p.read_text() for p in (reviews / ".archive").iterdir()]
    assert len(archived) == 2 and any("from the office" in text for text in archived)
    assert window.controller.case.review.decision is Decision.EDIT_FAILED
    assert window.controller.case.review.notes == "from the train"
    assert not window.conflict_copies_ui.note.isVisible()
