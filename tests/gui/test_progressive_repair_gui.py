"""A slow offline engine shows its quick preview first: both land as previews of their own,
the quick one before, and the reviewer compares and accepts either as usual."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from test_repair_gui import CASE, box_the_fragment

from sabre_desk.engines.registry import ENGINES
from sabre_desk.gui.main_window import MainWindow


def test_the_patch_engine_lands_after_its_quick_preview(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, CASE)
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData("patchmatch"))
    assert panel.run_repair()
    assert len(window.repair_ui.jobs.jobs) == 2  # both started at once, one Cancel for both
    qtbot.waitUntil(lambda: panel.previews.count() == 2, timeout=60000)
    folder = demo_project / "cases" / CASE
    records = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    assert [r["engine"] for r in records] == [ENGINES["patchmatch"].quick_preview, "patchmatch"]
    assert all(r["status"] == "preview" and (folder / r["preview"]).is_file() for r in records)
    panel.select_repair(records[1]["id"])
    panel.accept.click()
    qtbot.waitUntil(
        lambda: (
            json.loads((folder / "reviews" / "alice.json").read_text())["repairs"][1]["status"]
            == "accepted"
        )
    )
