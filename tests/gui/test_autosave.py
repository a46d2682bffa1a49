"""Decisions are saved on a save thread: the file lands on disk, the window says "saved" only
once the save is acknowledged, a failing disk is reported naming the file, and closing the
window waits for every save on its way."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import fill_disk, small_disk
from PySide6.QtCore import Qt

from sabre_desk.core.case import case_files
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.main_window import MainWindow

RECHECK = Qt.Key.Key_2  # Needs recheck: needs no validity verdict first


def on_disk(root: Path, case_id: str = "c1", reviewer: str = "alice") -> dict:
    path = root / "cases" / case_id / "reviews" / f"{reviewer}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def decide(qtbot, window: MainWindow, key: Qt.Key = RECHECK) -> None:
    qtbot.keyClick(window.compare.canvases[ImageRole.EDITED], key)


@pytest.fixture
def project(project_with: Callable[..., Path]) -> Path:
    return project_with("c1", "c2")


@pytest.fixture
def written_on(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The threads review files are written on (the real write goes on)."""
    threads: list[str] = []
    write = case_files.write_review_file

    def recording(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return write(*args, **kwargs)

    monkeypatch.setattr("sabre_desk.core.desk.review_save.write_review_file", recording)
    return threads


def test_a_decision_lands_on_disk_from_the_save_thread_and_only_then_shows_saved(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    project: Path,
    written_on: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    window.settings.auto_advance = False
    open_case(window, project, "c1")
    landed = threading.Event()
    monkeypatch.setattr(case_files, "_before_replace", lambda _path: landed.wait(10))
    decide(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.saver.pending == 1, timeout=3000)
    qtbot.wait(100)  # the window goes on while the save thread is held at the disk
    assert window.status.save_label.text() == "● Saving…" and on_disk(project) == {}
    landed.set()
    qtbot.waitUntil(lambda: window.status.save_label.text() == "✓ Saved", timeout=3000)
    assert on_disk(project)["decision"] == "needs_recheck"
    assert written_on and threading.main_thread().name not in written_on


def test_moving_on_after_a_decision_saves_it_in_the_background(
    qtbot, window: MainWindow, open_case: Callable, project: Path, written_on: list[str]
) -> None:
    window.settings.auto_advance = True
    open_case(window, project, "c1")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        decide(qtbot, window)  # and on to the next case at once
    assert window.controller.case.case_id == "c2"
    qtbot.waitUntil(lambda: on_disk(project).get("decision") == "needs_recheck", timeout=3000)
    assert threading.main_thread().name not in written_on


def test_a_failing_disk_is_reported_naming_the_file_and_saved_once_there_is_room(
    qtbot, window: MainWindow, open_case: Callable, project: Path, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "disk", size_kb=512) as disk:
        root = Path(shutil.copytree(project, disk / "proj"))
        window.settings.auto_advance = False
        open_case(window, root, "c1")
        (root / "cases/c1/reviews").mkdir(exist_ok=True)
        fill_disk(root)
        decide(qtbot, window)
        qtbot.waitUntil(lambda: window.status.save_label.text() == "✗ Not saved", timeout=3000)
        review_file = str(root / "cases/c1/reviews/alice.json")
        assert review_file in window.case_panel.error.text()
        assert review_file in window.statusBar().currentMessage()
        (root / ".filler").unlink()  # room again: closing saves it
        window.close()
        assert on_disk(root)["decision"] == "needs_recheck"


def test_closing_waits_for_a_save_on_its_way(
    qtbot, window: MainWindow, open_case: Callable, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings.auto_advance = False
    open_case(window, project, "c1")
    monkeypatch.setattr(case_files, "_before_replace", lambda _path: time.sleep(0.3))
    decide(qtbot, window)
    qtbot.waitUntil(lambda: window.controller.saver.pending == 1, timeout=3000)  # on its way
    window.close()  # while the save thread is still at the disk
    assert on_disk(project)["decision"] == "needs_recheck"
    history = (project / "cases/c1/history.jsonl").read_text().splitlines()
    assert json.loads(history[-1])["data"] == {"from": None, "to": "needs_recheck"}


def test_closing_right_after_a_decision_saves_it(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    window.settings.auto_advance = False
    open_case(window, project, "c1")
    decide(qtbot, window)
    window.close()  # before the autosave was even due
    assert on_disk(project)["decision"] == "needs_recheck"
