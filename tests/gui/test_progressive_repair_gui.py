"""A slow offline engine shows its quick preview first; the box's best result that has
arrived is the one shown and selected, whatever order the two arrive in, and Accept names it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from test_repair_gui import CASE, EDITED, at, box_the_fragment

from sabre_desk.core.jobs.process_pool import Job
from sabre_desk.core.repair import repairs
from sabre_desk.engines.opencv import FsrEngine
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.engines.registry import ENGINES
from sabre_desk.gui.app import warm_up_later
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.repair.repair_jobs import RepairJob
from sabre_desk.gui.repair.repair_panel import RepairPanel
from sabre_desk.imaging.warm import warm_up

FRAGMENT = (0.345, 0.595, 0.41, 0.69)


def review_repairs(folder: Path) -> list[dict]:
    return json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]


def box_with_the_patch_engine(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> RepairPanel:
    """The demo's fragment boxed on its case, the patch-based engine chosen."""
    open_case(window, demo_project, CASE)
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData("patchmatch"))
    return panel


def test_the_patch_engine_and_its_quick_preview_run_at_once_and_the_better_is_shown(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    panel = box_with_the_patch_engine(qtbot, window, open_case, demo_project)
    assert panel.run_repair()
    assert len(window.repair_ui.jobs.jobs) == 2  # both started at once, one Cancel for both
    qtbot.waitUntil(lambda: panel.previews.count() == 2, timeout=60000)
    folder = demo_project / "cases" / CASE
    records = review_repairs(folder)
    # whichever arrived first, the quick one says what it stands in for
    assert sorted(r["engine"] for r in records) == sorted(
        [ENGINES["patchmatch"].quick_preview, "patchmatch"]
    )
    quick = next(r for r in records if r["engine"] != "patchmatch")
    assert quick["stands_in_for"] == "patchmatch"
    assert all(r["status"] == "preview" and (folder / r["preview"]).is_file() for r in records)
    better = next(r for r in records if r["engine"] == "patchmatch")
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None)
    assert panel.selected_repair().id == better["id"]
    assert panel.accept.text() == "Accept Patch-based result"
    panel.accept.click()
    qtbot.waitUntil(
        lambda: (
            {r["id"]: r["status"] for r in review_repairs(folder)}
            == {better["id"]: "accepted", quick["id"]: "discarded"}
        )
    )
    assert not window.session.project.entry(CASE).pending_repair


def test_a_quick_preview_that_lands_last_does_not_replace_the_shown_better_result(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """The issue's 3 runs in 4: the patch result lands, then the quick preview after it."""
    open_case(window, demo_project, CASE)
    case = window.session.case
    order = RepairOrder(FRAGMENT, "remove", "remove the jaw")
    better, _ = repairs.make_preview(case, EDITED, order, PatchMatchEngine())
    quick, _ = repairs.make_preview(case, EDITED, order, FsrEngine(), None, "patchmatch")
    jobs = window.repair_ui.jobs
    panel = window.repair_ui.panel
    jobs.landed.emit(RepairJob(1, CASE, EDITED, "patchmatch", FRAGMENT), better, "patch")
    qtbot.waitUntil(lambda: panel.selected_repair() is not None)
    assert panel.selected_repair().engine == "patchmatch"
    jobs.landed.emit(RepairJob(2, CASE, EDITED, "opencv-fsr", FRAGMENT), quick, "quick")
    qtbot.waitUntil(lambda: panel.previews.count() == 2)
    assert panel.selected_repair().engine == "patchmatch"
    assert "Patch-based" in panel.accept.text()
    caption = window.compare.captions[EDITED].text()
    assert "patchmatch" in caption and "stand-in" not in caption
    # the list: one entry for the box, the quick preview under it as an alternative
    texts = [panel.previews.item(i).text() for i in range(panel.previews.count())]
    assert "patchmatch" in texts[0] and texts[1].lstrip().startswith("↳")
    window.repair_ui.accept()  # Ctrl+Return's path
    folder = demo_project / "cases" / CASE
    qtbot.waitUntil(
        lambda: (
            next(r for r in review_repairs(folder) if r["engine"] == "patchmatch")["status"]
            == "accepted"
        )
    )
    assert (folder / "edited.png").read_bytes() == (folder / better.preview).read_bytes()


def test_a_preview_of_an_image_changed_since_offers_to_repair_again(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, CASE)
    case = window.session.case
    folder = demo_project / "cases" / CASE
    order = RepairOrder(FRAGMENT, "remove", "remove the jaw")
    other = RepairOrder((0.1, 0.1, 0.2, 0.2), "remove", "remove the jaw")
    stale, _ = repairs.make_preview(case, EDITED, other, FsrEngine())
    fresh, _ = repairs.make_preview(case, EDITED, order, FsrEngine())
    jobs, panel = window.repair_ui.jobs, window.repair_ui.panel
    jobs.landed.emit(RepairJob(1, CASE, EDITED, "opencv-fsr", other.box), stale, "a")
    jobs.landed.emit(RepairJob(2, CASE, EDITED, "opencv-fsr", FRAGMENT), fresh, "b")
    qtbot.waitUntil(lambda: panel.previews.count() == 2)
    panel.select_repair(review_repairs(folder)[1]["id"])
    panel.accept.click()
    qtbot.waitUntil(lambda: review_repairs(folder)[1]["status"] == "accepted")
    panel.select_repair(review_repairs(folder)[0]["id"])
    assert panel.accept.text() == "Repair again on the current image"
    assert panel.accept.isEnabled()
    before = (folder / "edited.png").read_bytes()
    panel.accept.click()  # repairs the same box again, on the image as it is now
    qtbot.waitUntil(lambda: len(review_repairs(folder)) == 3, timeout=30000)
    assert review_repairs(folder)[0]["status"] == "preview"  # never accepted
    assert (folder / "edited.png").read_bytes() == before


def loops_loaded() -> bool:
    """(In a worker process) whether the patch-based engine's loops are loaded there; the
    job lasts a moment so that jobs sent together land on different workers."""
    import sys
    import time

    time.sleep(0.5)
    kernels = sys.modules.get("sabre_desk.imaging.patchmatch_kernels")
    return kernels is not None and bool(kernels.patchmatch_pass.signatures)


def test_every_worker_is_warmed_once_the_first_case_is_painted(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The first repair of a session finds its engine ready in whichever worker runs it:
    the window warms every worker once the first case is on screen, while the reviewer
    draws a box (``warm_up_later``)."""
    pool = window.jobs.pool
    submit, warming = pool.submit, []

    def noted(*args: Any, **kwargs: Any) -> Job:
        job = submit(*args, **kwargs)
        warming.append(job)
        return job

    monkeypatch.setattr(pool, "submit", noted)
    warm_up_later(window)
    open_case(window, demo_project, CASE)
    workers = pool.size + pool.spare
    # (a fresh install compiles the loops in each worker first: tens of seconds on a busy CI)
    qtbot.waitUntil(lambda: pool.workers == workers and pool.pending == 0, timeout=100_000)
    loaded: list[bool] = []
    for _ in range(workers):
        window.jobs.submit(loops_loaded, (), lambda result, _error: loaded.append(result))
    qtbot.waitUntil(lambda: len(loaded) == workers, timeout=30000)
    assert loaded == [True] * workers
    assert pool.workers == workers  # asked of the warmed workers, none started for it
    # queued behind the window's jobs, run as high as a repair: the first repair waits for
    # it if it is still going (two busy programs: the first repair on screen 22 s → 10 s)
    warm_ups = [job for job in warming if job.fn is warm_up]
    assert len(warm_ups) == workers and all(j.watched and j.priority < 0 for j in warm_ups)


def test_a_window_nobody_is_at_warms_no_worker(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A --screenshot run closes once its case is painted: the warm-up would start every
    worker just as the window goes. Once the pool has nothing left to do, none of its
    workers (if it started any) has the loops: a warm-up asked for would have started them
    all and loaded the loops in each."""
    window.unattended = True
    warm_up_later(window)
    open_case(window, demo_project, CASE)
    pool = window.jobs.pool
    qtbot.waitUntil(lambda: pool.pending == 0 and pool.running == 0, timeout=60000)
    loaded: list[bool] = []
    for _ in range(pool.workers):
        window.jobs.submit(loops_loaded, (), lambda result, _error: loaded.append(result))
    qtbot.waitUntil(lambda: len(loaded) == pool.workers, timeout=30000)
    assert not any(loaded)


def test_the_sweeps_wait_while_a_repair_is_on_its_way(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A repair the reviewer waits on has the worker processes to itself: neither the change
    map's nor the previews' sweep hands out a job until it has landed."""
    open_case(window, demo_project, CASE)
    sweeps = (window.previews.sweep, window.changes_ui.idle_sweep)
    qtbot.waitUntil(lambda: not any(s.running for s in sweeps), timeout=30000)
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData("patchmatch"))
    assert panel.run_repair()
    window.changes_ui.sweep(window.session.project)  # a sweep due while the repair runs
    seen: list[bool] = []
    for _ in range(6000):  # a minute at most
        if not window.repair_ui.jobs.computing():
            break
        seen.append(any(s.running for s in sweeps))
        qtbot.wait(10)
    assert seen and not window.repair_ui.jobs.computing() and not any(seen)


def test_repair_again_on_a_patch_based_result_shows_another_fill(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """Repair again on a fill with a flaw gave the very same pixels: now the next fill."""
    panel = box_with_the_patch_engine(qtbot, window, open_case, demo_project)
    assert panel.run_repair()
    qtbot.waitUntil(lambda: panel.previews.count() == 2, timeout=60000)
    qtbot.waitUntil(lambda: panel.selected_repair().engine == "patchmatch")
    first = panel.selected_repair()
    panel.again.click()
    folder = demo_project / "cases" / CASE
    qtbot.waitUntil(lambda: len(review_repairs(folder)) == 3, timeout=60000)
    again = review_repairs(folder)[2]
    assert again["engine"] == "patchmatch" and again["variant"] == 1
    assert (folder / again["preview"]).read_bytes() != (folder / first.preview).read_bytes()
    # the newest of the box's patch-based fills is the one shown, named as the second
    qtbot.waitUntil(lambda: panel.selected_repair().id == again["id"])
    assert "patchmatch, fill 2" in window.compare.captions[EDITED].text()
    assert "patchmatch, fill 2" in panel.previews.item(0).text()
    assert panel.accept.text() == "Accept Patch-based result (fill 2)"


def test_a_box_repaired_twice_before_either_lands_gets_two_fills(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    panel = box_with_the_patch_engine(qtbot, window, open_case, demo_project)
    assert panel.run_repair() and panel.run_repair()  # Ctrl+R twice at once
    folder = demo_project / "cases" / CASE
    review = folder / "reviews" / "alice.json"
    qtbot.waitUntil(lambda: review.is_file() and len(review_repairs(folder)) == 3, timeout=90000)
    fills = [r for r in review_repairs(folder) if r["engine"] == "patchmatch"]
    assert sorted(r.get("variant", 0) for r in fills) == [0, 1]
    one, two = ((folder / r["preview"]).read_bytes() for r in fills)
    assert one != two
    # one quick stand-in: the second repair's would have been the same pixels again
    assert [r["engine"] for r in review_repairs(folder)].count("opencv-telea") == 1


def test_a_box_repaired_again_gets_its_next_fill_and_no_second_stand_in(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """Each Ctrl+R on a box added two entries, the stand-in the same pixels every time."""
    panel = box_with_the_patch_engine(qtbot, window, open_case, demo_project)
    assert panel.run_repair()
    folder = demo_project / "cases" / CASE
    review = folder / "reviews" / "alice.json"
    qtbot.waitUntil(lambda: review.is_file() and len(review_repairs(folder)) == 2, timeout=60000)
    window.repair_ui.leave_comparison()  # back to the case: the box can be selected again
    canvas = window.compare.canvases[EDITED]
    middle = at(canvas, (FRAGMENT[0] + FRAGMENT[2]) / 2, (FRAGMENT[1] + FRAGMENT[3]) / 2)
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=middle)  # select it
    qtbot.waitUntil(lambda: panel.current_box() is not None)
    assert panel.run_repair()
    qtbot.waitUntil(lambda: len(review_repairs(folder)) == 3, timeout=60000)
    last = review_repairs(folder)[2]
    assert last["engine"] == "patchmatch" and last["variant"] == 1
