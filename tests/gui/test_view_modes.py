"""The view at 1366×768: a case opens fitted, Sync means one scale, no mode widens the window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.main_window import MainWindow

BASE, EDITED, IMAGE = ImageRole.BASE, ImageRole.EDITED, ImageRole.IMAGE
PAIRED = "ctx01_tape_bagel"


def press(qtbot, window: MainWindow, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget() or window, key, modifier)


def shown_width(canvas: ImageCanvas) -> float:
    """The image's width on screen, in view pixels."""
    size = canvas.image_size
    assert size is not None
    return size[0] * canvas.zoom


def fitted(canvas: ImageCanvas) -> bool:
    """The whole image shown as large as the view allows."""
    size = canvas.image_size
    assert size is not None
    view = canvas.viewport().rect()
    fit = min(view.width() / size[0], view.height() / size[1])
    return abs(canvas.zoom - fit) / fit < 0.02


def next_case(qtbot, window: MainWindow) -> str:
    with qtbot.waitSignal(window.images_shown, timeout=10000) as blocker:
        press(qtbot, window, Qt.Key.Key_N)
    return blocker.args[0]


@pytest.fixture
def laptop(window: MainWindow, open_case: Callable, demo_project: Path, qtbot) -> MainWindow:
    window.resize(SCREEN_W, SCREEN_H - 38)  # a laptop's free area, under a title bar
    open_case(window, demo_project, PAIRED)
    window.compare.canvases[EDITED].setFocus()
    qtbot.wait(50)
    return window


def test_after_swiping_on_and_off_the_next_case_opens_fitted(qtbot, laptop: MainWindow) -> None:
    window = laptop
    press(qtbot, window, Qt.Key.Key_Plus)  # zoomed on this case
    press(qtbot, window, Qt.Key.Key_W)
    press(qtbot, window, Qt.Key.Key_W)
    seen = []
    for _ in range(4):
        case_id = next_case(qtbot, window)
        qtbot.wait(30)
        roles = window.compare.visible_roles
        seen.append((case_id, roles))
        for role in roles:
            assert fitted(window.compare.canvases[role]), (case_id, role)
        if len(roles) == 2:
            base, edited = (window.compare.canvases[r] for r in (BASE, EDITED))
            assert shown_width(base) == pytest.approx(shown_width(edited), rel=0.02)
        # The status bar names an image of this case at its zoom, not the last case's.
        canvas = window.compare.active_canvas()
        role = next(r for r in roles if window.compare.canvases[r] is canvas)
        assert window.status.position_label.text().startswith(role.value), case_id
        assert window.status.position_label.text().endswith(f"{canvas.screen_zoom * 100:.0f}%")
    assert any(roles == [IMAGE] for _, roles in seen)


SCREEN_W, SCREEN_H = 1366, 768
REPAIRED = "ctx03_wrench_banana"


def at(canvas: ImageCanvas, fx: float, fy: float) -> QPoint:
    w, h = canvas.image_size
    return canvas.mapFromScene(QPointF(fx * w, fy * h))


def draw_box(qtbot, canvas: ImageCanvas, a: tuple[float, float], b: tuple[float, float]) -> None:
    canvas.setFocus()
    viewport = canvas.viewport()
    start, end = at(canvas, *a), at(canvas, *b)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, (start + end) / 2)
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def open_repair_comparison(qtbot, window: MainWindow) -> None:
    """Box the fragment on Edited, Ctrl+R, wait for the repair beside the image: the
    default engine's own result, after its quick preview (both landed, none running)."""
    canvas = window.compare.canvases[EDITED]
    draw_box(qtbot, canvas, (0.345, 0.595), (0.41, 0.69))
    press(qtbot, window, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    engine = window.repair_ui.panel.engine.currentData()
    qtbot.waitUntil(lambda: not window.repair_ui.jobs.jobs, timeout=60000)
    qtbot.waitUntil(
        lambda: (
            window.repair_ui.previewing is not None and window.repair_ui.previewing.engine == engine
        ),
        timeout=15000,
    )
    qtbot.waitUntil(
        lambda: all(window.compare.canvases[r].display_image is not None for r in (BASE, EDITED)),
        timeout=5000,
    )
    qtbot.wait(50)


#: The least width the window asks for when it opens: no mode may ask for more (a long
#: caption or hint asking for more widens the window past a laptop's screen).
OPENING_MINIMUM: dict[int, int] = {}


def check_fits(window: MainWindow, what: str) -> None:
    """The window within the screen, and asking for no more room than when it opened."""
    QApplication.processEvents()
    least = window.minimumSizeHint().width()
    opened = OPENING_MINIMUM.setdefault(id(window), least)
    assert window.width() <= SCREEN_W, (what, window.width())
    assert window.height() <= SCREEN_H, (what, window.height())
    assert least <= opened, (what, least, opened)


def check_in_step(window: MainWindow, what: str) -> None:
    """Both images of a pair at the same size on screen, centred on the same spot."""
    roles = window.compare.visible_roles
    if len(roles) != 2:
        return
    a, b = (window.compare.canvases[r] for r in roles)
    if a.image_size is None or b.image_size is None:
        return
    assert shown_width(a) == pytest.approx(shown_width(b), rel=0.01), what
    if not (a.fitted and b.fitted):
        za, zb = a.zoom_state(), b.zoom_state()
        assert za is not None and zb is not None, what
        assert (za.cx, za.cy) == pytest.approx((zb.cx, zb.cy), abs=0.02), what


def go_through_modes(qtbot, window: MainWindow, name: str) -> None:
    """Side by side, zoomed in, swipe on and off, blink, actual size, fitted again: the
    window never outgrows the screen and a pair stays in step throughout."""
    canvas = window.compare.active_canvas()
    assert canvas is not None
    canvas.setFocus()
    steps: list[tuple[str, Callable[[], None]]] = [
        ("zoom in", lambda: press(qtbot, window, Qt.Key.Key_Plus)),
        ("swipe on", lambda: press(qtbot, window, Qt.Key.Key_W)),
        ("divider moved", lambda: press(qtbot, window, Qt.Key.Key_Right)),
        ("blink", lambda: QTest.keyPress(QApplication.focusWidget(), Qt.Key.Key_V)),
        ("blink ends", lambda: QTest.keyRelease(QApplication.focusWidget(), Qt.Key.Key_V)),
        ("swipe off", lambda: press(qtbot, window, Qt.Key.Key_W)),
        ("actual size", lambda: press(qtbot, window, Qt.Key.Key_1, CTRL)),
        ("zoom out", lambda: press(qtbot, window, Qt.Key.Key_Minus)),
        ("fit", lambda: press(qtbot, window, Qt.Key.Key_F)),
    ]
    for step, act in steps:
        act()
        qtbot.wait(20)
        check_fits(window, f"{name}: {step}")
        check_in_step(window, f"{name}: {step}")


CTRL = Qt.KeyboardModifier.ControlModifier


def test_every_mode_on_every_kind_of_case_fits_a_laptop_screen(
    qtbot, laptop: MainWindow, demo_project: Path
) -> None:
    window = laptop
    cases_width = window.cases_dock.width()
    check_fits(window, "opened")
    go_through_modes(qtbot, window, "paired")
    single = next(
        e.case_id
        for e in window.project.entries
        if window.project.load_case(e.case_id).spec.image_roles == (IMAGE,)
    )
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(single)
    go_through_modes(qtbot, window, "single image")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(REPAIRED)
    open_repair_comparison(qtbot, window)
    go_through_modes(qtbot, window, "repair comparison")
    # A swipe inside the comparison, then back to the case: the swipe ends with it, and
    # the two images are in step again, fitted as the case was.
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, window, Qt.Key.Key_W)
    check_fits(window, "swipe in the comparison")
    window.repair_ui.panel.back.click()
    qtbot.waitUntil(lambda: window.repair_ui.previewing is None, timeout=5000)
    qtbot.wait(50)
    assert not window.compare.swiping and not window.actions_.swipe.isChecked()
    assert window.compare.visible_roles == [BASE, EDITED]
    check_in_step(window, "back to the case")
    # fitted as the case was (the case is shown again on the next turns of the event loop)
    qtbot.waitUntil(lambda: all(window.compare.canvases[r].fitted for r in (BASE, EDITED)))
    assert window.cases_dock.width() == pytest.approx(cases_width, abs=2)  # not narrowed


def test_a_box_just_drawn_is_the_repairs_box_at_once(qtbot, laptop: MainWindow) -> None:
    """No click on the new box needed: the Repair panel names it and Repair is enabled."""
    window = laptop
    panel = window.repair_ui.panel
    canvas = window.compare.canvases[EDITED]
    draw_box(qtbot, canvas, (0.3, 0.3), (0.5, 0.5))
    assert canvas.selected_box == 0
    assert panel.current_box() is not None
    assert panel.run.isEnabled()
    assert not panel.box_label.text().startswith("Draw or select")
