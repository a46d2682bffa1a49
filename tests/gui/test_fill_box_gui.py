"""The repair panel's "Fill the whole box": the patch-based engine's preview then replaces every
pixel of the box, as ``sabre-desk repair --fill-box`` does; the choice stays for the session."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image
from test_progressive_repair_gui import FRAGMENT
from test_repair_gui import CASE, box_the_fragment

from sabre_desk.gui.main_window import MainWindow


def _patch_records(folder: Path) -> list[dict]:
    """The patch-based engine's repairs of the case, oldest first."""
    path = folder / "reviews" / "alice.json"
    repairs = json.loads(path.read_text())["repairs"] if path.is_file() else []
    return [r for r in repairs if r["engine"] == "patchmatch"]


def _kept(folder: Path, record: dict) -> float:
    """The share of the box's inner pixels (3 pixels in from its edge) the preview left as
    they were."""
    before = np.asarray(Image.open(folder / "edited.png").convert("RGB")).astype(int)
    after = np.asarray(Image.open(folder / record["preview"]).convert("RGB")).astype(int)
    h, w = before.shape[:2]
    x0, y0, x1, y1 = FRAGMENT
    box = (slice(int(y0 * h) + 3, int(y1 * h) - 3), slice(int(x0 * w) + 3, int(x1 * w) - 3))
    return float((np.abs(after[box] - before[box]).max(axis=2) == 0).mean())


def test_fill_the_whole_box_makes_the_preview_fill_every_pixel_of_the_box(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, CASE)
    folder = demo_project / "cases" / CASE
    panel = window.repair_ui.panel
    assert panel.engine.currentData() == "patchmatch"
    assert not panel.fill_box.isChecked()
    box_the_fragment(qtbot, window)
    assert panel.run_repair()  # as it is by default, then with the box checked
    panel.fill_box.click()
    assert panel.fill_box.isChecked()
    assert panel.run_repair()
    qtbot.waitUntil(lambda: len(_patch_records(folder)) == 2, timeout=60000)
    kept = sorted(_kept(folder, record) for record in _patch_records(folder))
    assert kept[0] < 0.05, kept  # checked: every pixel of the box filled
    assert kept[1] > 0.2, kept  # by default: only what stands out in it

    # the choice stays while the reviewer moves on and back
    others = [e.case_id for e in window.session.project.index() if e.case_id != CASE]
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.show_case(others[0])
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.show_case(CASE)
    assert panel.fill_box.isChecked()
