"""The Notes field never holds more than the review's reader accepts: it shows the room
left, refuses a paste past the limit with the limit in words, and a review an earlier
version wrote past it opens cut, with a message, the whole text kept beside it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QApplication

from sabre_desk.gui.main_window import MainWindow

CASE = "ctx01_tape_bagel"


def review_file(root: Path) -> Path:
    return root / "cases" / CASE / "reviews" / "alice.json"


def on_disk(root: Path) -> dict:
    path = review_file(root)
    return json.loads(path.read_text()) if path.exists() else {}


def test_pasting_25000_characters_is_refused_and_the_case_opens_again(
    qtbot, make_window: Callable[..., MainWindow], open_case: Callable, demo_project: Path
) -> None:
    window = make_window()
    open_case(window, demo_project, CASE)
    notes = window.case_panel.notes
    assert notes.room.text() == "20,000 of 20,000 characters left"
    notes.setFocus()
    qtbot.keyClicks(notes, "tape")
    assert notes.room.text() == "19,996 of 20,000 characters left"

    QApplication.clipboard().setText("p" * 24_996)  # 25,000 with what is there
    notes.paste()
    assert notes.toPlainText() == "tape"  # not taken, not half-taken
    assert notes.room.text() == (
        "Not taken: Notes can hold at most 20,000 characters; this has 25,000 (5,000 too many)."
    )
    assert notes.room.isVisible()
    assert QApplication.clipboard().text() == "p" * 24_996  # still there to cut down

    QApplication.clipboard().setText("p" * 19_996)  # exactly the limit is taken
    notes.paste()
    assert notes.room.text() == "0 of 20,000 characters left"
    notes.commit()
    qtbot.waitUntil(lambda: on_disk(demo_project).get("notes") == "tape" + "p" * 19_996)
    window.close()

    again = make_window()
    open_case(again, demo_project, CASE)
    assert again.case_panel.notes.toPlainText() == "tape" + "p" * 19_996
    assert "cut at the limit" not in again.case_panel.summary.text()


def test_a_review_written_past_the_limit_opens_cut_with_a_message(
    qtbot, make_window: Callable[..., MainWindow], open_case: Callable, demo_project: Path
) -> None:
    path = review_file(demo_project)
    path.parent.mkdir(exist_ok=True)
    data = {"format": "sabre-desk-review", "version": 2, "case_id": CASE, "reviewer": "alice"}
    path.write_text(json.dumps(data | {"notes": "n" * 25_000}))
    window = make_window()
    open_case(window, demo_project, CASE)
    assert window.case_panel.notes.toPlainText() == "n" * 20_000
    summary = window.case_panel.summary.text()
    assert "notes had 25,000 characters; cut at the limit of 20,000" in summary
    [side] = path.parent.glob("alice.json.over-limit-*")
    assert json.loads(side.read_text())["notes"] == "n" * 25_000
