"""Two windows of one reviewer on one project: the second is told who has it open and
offered it read-only; another reviewer, or the same one once the first window is closed,
opens it as usual."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from sabre_desk.gui.desk.window_claims import READ_ONLY
from sabre_desk.gui.main_window import MainWindow


def answer_dialog(button_text: str, seen: list[str]) -> None:
    """Click *button_text* in the second-window dialog when it shows (it runs modally)."""

    def click() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QMessageBox) and widget.objectName() == "secondWindow":
                seen.append(widget.text())
                for button in widget.buttons():
                    if button.text().replace("&", "") == button_text:
                        button.click()
                        return
        QTimer.singleShot(20, click)

    QTimer.singleShot(20, click)


def test_a_second_window_of_the_reviewer_is_offered_the_project_read_only(
    qtbot, make_window: Callable[..., MainWindow], open_case: Callable, demo_project: Path
) -> None:
    first = make_window("alice")
    open_case(first, demo_project)
    assert not first.project.read_only

    second = make_window("alice")
    seen: list[str] = []
    answer_dialog("Cancel", seen)
    assert not second.open_project(demo_project)
    assert "alice already has this project open" in seen[0] and "process" in seen[0]
    assert second.project is None

    answer_dialog(READ_ONLY, seen)
    with qtbot.waitSignal(second.images_shown, timeout=10000):
        assert second.open_project(demo_project)
    assert second.project.read_only and "[read-only]" in second.windowTitle()

    other = make_window("bob")  # another reviewer works beside alice as always
    open_case(other, demo_project)
    assert not other.project.read_only

    first.close()  # alice's first window gone: her next window has the project writable
    third = make_window("alice")
    open_case(third, demo_project)
    assert not third.project.read_only


def test_a_window_in_another_process_is_named_and_a_killed_one_blocks_nothing(
    qtbot, make_window: Callable[..., MainWindow], open_case: Callable, demo_project: Path
) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path;"
            "from sabre_desk.core.desk.window_claim import claim_project;"
            "claim = claim_project(Path(sys.argv[1]), 'alice'); print('held', flush=True);"
            "time.sleep(60)",
            str(demo_project),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        window = make_window("alice")
        window.unattended = True  # nobody to answer: it opens read-only and says why
        with qtbot.waitSignal(window.images_shown, timeout=10000):
            assert window.open_project(demo_project)
        assert window.project.read_only
        window.close()
    finally:
        holder.kill()  # killed, as a crashed window is
        holder.wait()
    again = make_window("alice")
    open_case(again, demo_project)
    assert not again.project.read_only


def test_a_window_lets_go_of_a_project_it_leaves(
    qtbot,
    make_window: Callable[..., MainWindow],
    open_case: Callable,
    demo_project: Path,
    tmp_path: Path,
) -> None:
    import shutil

    other_project = Path(shutil.copytree(demo_project, tmp_path / "other"))
    first = make_window("alice")
    open_case(first, demo_project)
    open_case(first, demo_project)  # opened again in the same window: still its own
    assert not first.project.read_only
    open_case(first, other_project)
    second = make_window("alice")
    open_case(second, demo_project)  # the first window moved on: no question asked
    assert not second.project.read_only
