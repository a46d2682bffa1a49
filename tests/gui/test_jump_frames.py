"""What a jump paints and what waits for the paint: the canvases keep their frame until the
new case's images land (no "Loading…" flash for an image that comes at once), and the case's
validity check starts once its images are on the screen, never beside their decodes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject

from sabre_desk.core.case import validity
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk import validity_checks
from sabre_desk.gui.desk.canvas import compare_view
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.machinery import image_loader
from sabre_desk.gui.main_window import MainWindow

BASE, EDITED = ImageRole.BASE, ImageRole.EDITED


class Paints(QObject):
    """What each canvas showed every time it was painted: its message, or "image"."""

    def __init__(self, canvases: dict[ImageRole, ImageCanvas]):
        super().__init__()
        self.seen: list[tuple[ImageRole, str]] = []
        self._roles = {canvas.viewport(): (role, canvas) for role, canvas in canvases.items()}
        for viewport in self._roles:
            viewport.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and watched in self._roles:
            role, canvas = self._roles[watched]
            self.seen.append((role, canvas.message or "image"))
        return False


@pytest.fixture
def project(project_with: Callable[..., Path]) -> Path:
    return project_with("a", "b", "c")


@pytest.fixture
def gated() -> threading.Event:
    """Set to let the decodes of case "b" that ``jump_to_b`` holds back go on."""
    return threading.Event()


@pytest.fixture
def jump_to_b(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    project: Path,
    gated: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
) -> Paints:
    """Case "a" on screen, then a jump to "b", whose images are decoded only once *gated*
    is set; what the canvases paint from the jump on."""
    open_case(window, project, "a")
    window.previews.sweep.stop()
    assert window.wait_for_background(15000)
    qtbot.wait(1)  # what was read ahead is delivered...
    window.loader.clear()  # ...and forgotten: the images of "b" are decoded now
    decode = image_loader.load_for_display

    def gated_decode(path: Path, *args, **kwargs):
        if path.parent.name == "b":
            gated.wait(10)
        return decode(path, *args, **kwargs)

    monkeypatch.setattr(image_loader, "load_for_display", gated_decode)
    paints = Paints(window.compare.canvases)
    window.case_list.select("b")
    return paints


@pytest.fixture
def long_grace(monkeypatch: pytest.MonkeyPatch) -> int:
    """A grace no busy machine outlasts while the test looks (the app's is 60 ms: a test
    waiting a third of it failed on a loaded CI runner that stalled past the whole)."""
    monkeypatch.setattr(compare_view, "LOADING_GRACE_MS", 5000)
    return 5000


def test_images_that_land_within_the_grace_are_the_first_thing_painted(
    qtbot, window: MainWindow, long_grace: int, jump_to_b: Paints, gated: threading.Event
) -> None:
    paints = jump_to_b
    qtbot.wait(200)  # the decodes are still held back, well within the grace
    assert paints.seen == []  # the last frame stays: no "Loading…" flashes up
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        gated.set()
    assert set(paints.seen) == {(BASE, "image"), (EDITED, "image")}


def test_images_that_take_longer_show_loading_after_the_grace(
    qtbot, window: MainWindow, jump_to_b: Paints, gated: threading.Event
) -> None:
    paints = jump_to_b
    qtbot.waitUntil(lambda: {(BASE, "Loading…"), (EDITED, "Loading…")} <= set(paints.seen))
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        gated.set()
    assert (BASE, "image") in paints.seen and (EDITED, "image") in paints.seen


def test_a_case_is_checked_once_its_images_are_painted(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    open_case(window, project, "a")
    assert window.wait_for_background(15000)
    shown: list[str] = []
    # the frame on screen, told before the check may start (``images_shown`` is emitted
    # after it has: the check's worker could look before that signal reached this list)
    window.display.painted.connect(
        lambda: shown.append(window.session.case.case_id) if window.session.case else None
    )
    checked: list[tuple[str, bool]] = []  # case, whether its images were on screen then
    # only the paint may start the check here: on a loaded machine the paint can come
    # later than the wait for a window that paints nothing (that wait has its own test)
    monkeypatch.setattr(validity_checks, "CHECK_WAIT_MS", 600_000)
    # the window's own check of the open case (the sweep that settles every case's verdict
    # in the background checks cases too, whether shown or not)
    own = window.controller.validity_checks.validity
    check = own.check

    def recording_check(case_id: str, *args, **kwargs):
        checked.append((case_id, case_id in shown))
        return check(case_id, *args, **kwargs)

    monkeypatch.setattr(own, "check", recording_check)
    window.case_list.select("c")
    qtbot.waitUntil(lambda: window.controller.validity is not None, timeout=10000)
    assert checked == [("c", True)]
    assert window.controller.validity.case_id == "c" and window.controller.validity.valid


def test_a_window_that_paints_nothing_checks_its_case_all_the_same(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    open_case(window, project, "a")
    assert window.wait_for_background(15000)
    window.hide()  # a hidden window paints nothing
    window.case_list.select("c")
    qtbot.waitUntil(lambda: window.controller.validity is not None, timeout=10000)
    assert window.controller.validity.case_id == "c"


def test_waiting_for_the_background_waits_for_the_check_too(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check = validity.Validity.check

    def slow_check(self, case_id: str, *args, **kwargs):
        time.sleep(0.3)
        return check(self, case_id, *args, **kwargs)

    monkeypatch.setattr(validity.Validity, "check", slow_check)
    open_case(window, project, "c")
    assert window.wait_for_background(15000)
    qtbot.wait(1)  # the verdict's delivery, queued to this thread
    assert window.controller.validity is not None
    assert window.controller.validity.case_id == "c"
