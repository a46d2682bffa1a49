"""The window, driven as a reviewer would: open a project, move between cases, look."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from factories import png_bytes, read_only
from PIL import Image
from PySide6.QtCore import Qt

from sabre_desk.gui.main_window import MainWindow
from sabre_desk.settings import load_settings


def _open(qtbot, window: MainWindow, root: Path, case_id: str | None = None) -> None:
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        assert window.open_project(root, case_id)


def test_opening_the_demo_shows_cases_images_and_probes(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    _open(qtbot, window, demo_project, "ctx01_tape_bagel")
    assert window.case_list.list.count() == 13
    assert window.case_list.progress.text() == "reviewed 0 / 13"
    assert window.panels["base"].view.image_size == (768, 512)
    assert window.panels["edited"].view.image_size == (768, 512)
    assert not window.panels["image"].isVisible()
    table = window.case_panel.probes
    assert table.rowCount() == 4
    results = [table.item(r, 5).text() for r in range(4)]
    assert results == ["Correct", "Correct", "Incorrect", "Incorrect"]
    assert table.item(2, 4).text() == "Yes."
    assert "plain bagel" in window.case_panel.summary.toPlainText()
    assert window.windowTitle().startswith("sabre-desk demo")
    settings, _ = load_settings()
    assert settings.recent_projects == [str(demo_project)]


def test_keyboard_navigation_in_the_case_list_switches_cases(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    _open(qtbot, window, demo_project)
    window.case_list.list.setFocus()
    with qtbot.waitSignal(window.images_shown, timeout=10000) as blocker:
        qtbot.keyClick(window.case_list.list, Qt.Key.Key_Down)
    assert blocker.args == ["attr02_blue_circles"]
    assert window.panels["image"].isVisible() and not window.panels["base"].isVisible()
    assert window.panels["image"].view.has_image


def test_a_stale_image_never_replaces_the_current_case(
    qtbot, window: MainWindow, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(
        root, "big", images={"base.png": png_bytes(900, 700), "edited.png": png_bytes(900, 700)}
    )
    add_case(root, "small", images={"base.png": png_bytes(30, 20), "edited.png": png_bytes(30, 20)})
    _open(qtbot, window, root, "big")
    for _ in range(5):  # flip back and forth faster than decoding
        window.case_list.select("small")
        window.case_list.select("big")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("small")
    window.pool.waitForDone(5000)
    qtbot.wait(50)  # let any late, stale results arrive
    assert window.panels["base"].view.image_size == (30, 20)
    assert window.panels["edited"].view.image_size == (30, 20)


def test_broken_cases_show_their_reason_and_the_rest_keeps_working(
    qtbot, window: MainWindow, make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "a_good")
    (add_case(root, "b_bad_spec") / "spec.json").write_text("{oops")
    add_case(root, "c_bad_image", images={"base.png": png_bytes(), "edited.png": b"junk"})
    _open(qtbot, window, root, "b_bad_spec")
    assert "cannot be opened" in window.case_panel.summary.toPlainText()
    assert "spec.json" in window.case_panel.summary.toPlainText()
    bad_item = window.case_list.list.item(1)
    assert "Invalid" in bad_item.toolTip()

    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("c_bad_image")
    assert window.panels["base"].view.has_image
    assert not window.panels["edited"].view.has_image
    assert "edited.png" in window.panels["edited"].view.message

    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("a_good")
    assert window.panels["edited"].view.has_image
    assert window.case_panel.probes.rowCount() == 2


def test_a_folder_that_is_not_a_project_is_explained(
    qtbot, window: MainWindow, warnings_shown: list[str], tmp_path: Path
) -> None:
    assert not window.open_project(tmp_path)
    assert warnings_shown and "sabre-project.json" in warnings_shown[0]
    assert window.project is None


def test_the_filter_hides_cases_that_do_not_match(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    _open(qtbot, window, demo_project)
    qtbot.keyClicks(window.case_list.filter, "texture")
    visible = [
        window.case_list.list.item(r).text()
        for r in range(window.case_list.list.count())
        if not window.case_list.list.item(r).isHidden()
    ]
    assert visible == ["tex01_mug_brick", "tex02_board_marble"]


def test_screenshot_mode_writes_the_window_as_a_png(demo_project: Path, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sabre_desk",
            "open",
            str(demo_project),
            "--case",
            "tex01_mug_brick",
            "--screenshot",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    with Image.open(out) as shot:
        assert shot.size[0] >= 1000 and shot.size[1] >= 600
        colors = shot.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colors is not None and len(colors) > 1000  # real images were painted


def test_the_json_of_a_case_is_never_touched_by_browsing(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    spec_path = demo_project / "cases" / "ctx01_tape_bagel" / "spec.json"
    before = spec_path.read_bytes()
    _open(qtbot, window, demo_project, "ctx01_tape_bagel")
    assert spec_path.read_bytes() == before
    assert not (spec_path.parent / "reviews").exists()
    assert json.loads(before)["concept_id"] == "ctx01_tape_bagel"


def test_a_read_only_project_says_so_in_the_title_and_status(
    qtbot, window: MainWindow, demo_project: Path
) -> None:
    with read_only(demo_project):
        _open(qtbot, window, demo_project)
        assert "[read-only]" in window.windowTitle()
        assert "read-only" in window.statusBar().currentMessage()
