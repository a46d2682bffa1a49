"""A jump to a case never shown: its two images are decoded side by side and each is painted
as it lands; the previews of the cases ahead of the reviewer are made first."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.machinery import image_loader
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.case_display import PREFETCH_NEIGHBOURS

BASE, EDITED = ImageRole.BASE, ImageRole.EDITED


@pytest.fixture
def project(project_with: Callable[..., Path]) -> Path:
    return project_with(*(f"c{i:02d}" for i in range(30)))


def test_a_cold_jump_decodes_both_images_at_once_and_paints_each_as_it_lands(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_case(window, project, "c00")
    window.previews.sweep.stop()
    window.loader.set_store(None)  # no previews: the images themselves are decoded
    assert window.wait_for_background(15000)
    decode = image_loader.load_for_display
    both_started = threading.Barrier(2, timeout=5)
    edited_may_finish = threading.Event()
    side_by_side: list[bool] = []

    def slow_decode(path: Path, *args, **kwargs):
        if path.parent.name == "c20":
            try:
                both_started.wait()  # only passes when the other decode runs meanwhile
                side_by_side.append(True)
            except threading.BrokenBarrierError:
                side_by_side.append(False)
            if path.stem == "edited":
                edited_may_finish.wait(10)
        return decode(path, *args, **kwargs)

    monkeypatch.setattr(image_loader, "load_for_display", slow_decode)
    window.case_list.select("c20")  # a jump: nothing of c20 was ever read
    base = window.compare.canvases[BASE]
    qtbot.waitUntil(lambda: base.display_image is not None and base.message == "", timeout=5000)
    # Base is on screen while Edited is still being decoded
    assert window.compare.canvases[EDITED].display_image is None
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        edited_may_finish.set()
    assert side_by_side == [True, True]


def test_the_previews_of_the_cases_ahead_are_made_first(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    open_case(window, project, "c00")
    window.previews.sweep.stop()
    window.previews.start(window.project, window.loader.store)  # all 30 still to make
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("c15")
    queued = [args[1].name for args in window.previews.sweep.upcoming(6)]
    near = {f"c{15 + d:02d}" for d in range(-PREFETCH_NEIGHBOURS, PREFETCH_NEIGHBOURS + 1)}
    assert queued[:2] == [f"c{15 + PREFETCH_NEIGHBOURS + 1:02d}", f"c{15 - 3:02d}"]
    assert not near & set(queued)  # those are decoded, their previews written behind
