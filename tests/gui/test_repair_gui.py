"""Repairing in the window: box, run on the pool, compare, accept, undo, revert."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, image_reply
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import QApplication

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import Go
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.probe_model import RESULT

CASE = "ctx03_wrench_banana"
EDITED = ImageRole.EDITED
#: a repair's preview lands well within this (about a second); under two other busy programs
#: a worker's first repair, which loads the engine, took over 10 s: a bound only a hang reaches
REPAIR_LANDS_MS = 30_000


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def review(root: Path, case_id: str = CASE) -> dict:
    return json.loads((root / "cases" / case_id / "reviews" / "alice.json").read_text())


def at(canvas: ImageCanvas, fx: float, fy: float) -> QPoint:
    w, h = canvas.image_size
    return canvas.mapFromScene(QPointF(fx * w, fy * h))


def box_the_fragment(qtbot, window: MainWindow) -> None:
    canvas = window.compare.canvases[EDITED]
    canvas.setFocus()
    viewport = canvas.viewport()
    start, end = at(canvas, 0.345, 0.595), at(canvas, 0.41, 0.69)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, (start + end) / 2)
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    qtbot.waitUntil(lambda: window.repair_ui.panel.current_box() is not None, timeout=2000)


def shown(canvas: ImageCanvas) -> tuple[float, float, float]:
    """The image's size on screen and the spot at the view's centre (Sync: the same)."""
    zoom = canvas.zoom_state()
    assert zoom is not None
    return (zoom.width, zoom.cx, zoom.cy)


def quick_engine(window: MainWindow) -> None:
    """Choose the quick frequency-selective engine: one preview per repair, in a moment
    (the default also lands a second, better one later; test_progressive_repair_gui)."""
    panel = window.repair_ui.panel
    panel.engine.setCurrentIndex(panel.engine.findData("opencv-fsr"))


def press(qtbot, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


@pytest.fixture
def repairing(window: MainWindow, open_case: Callable, demo_project: Path) -> MainWindow:
    open_case(window, demo_project, CASE)
    return window


def test_repair_compare_accept_undo_and_revert(
    qtbot,
    repairing: MainWindow,
    demo_project: Path,
) -> None:
    window, folder = repairing, demo_project / "cases" / CASE
    original = sha(folder / "edited.png")
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    assert panel.engine.currentData() == "patchmatch"  # the offline default
    quick_engine(window)
    press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=REPAIR_LANDS_MS)
    record = review(demo_project)["repairs"][0]
    assert record["status"] == "preview" and record["engine"] == "opencv-fsr"
    assert (folder / record["preview"]).is_file()
    assert sha(folder / "edited.png") == original
    # the comparison: current image on the left, the preview on the right
    qtbot.waitUntil(
        lambda: window.compare.captions[ImageRole.EDITED].text().startswith("Repair r1"),
        timeout=5000,
    )
    assert window.compare.captions[ImageRole.BASE].text() == "Edited (current)"

    panel.accept.click()
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "accepted")
    saved = review(demo_project)
    assert sha(folder / "edited.png") == sha(folder / record["preview"])
    assert sha(folder / saved["repairs"][0]["backup"]) == original
    assert saved["decision"] == "needs_recheck"
    # the filter's answers about the Edited image were given before it was repaired
    model = window.case_panel.probe_model
    rows = {model.question(r).image_role: r for r in range(model.rowCount())}
    assert model.index(rows[ImageRole.EDITED], RESULT).data() == "Before repair"
    assert model.index(rows[ImageRole.BASE], RESULT).data() in ("Correct", "Incorrect")

    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo = revert
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "reverted")
    assert sha(folder / "edited.png") == original
    # ... and the decision the accept set is undone too: the case was not reviewed
    qtbot.waitUntil(lambda: review(demo_project)["decision"] is None, timeout=2000)
    assert model.index(rows[ImageRole.EDITED], RESULT).data() in ("Correct", "Incorrect")
    press(
        qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "accepted")
    assert review(demo_project)["decision"] == "needs_recheck"
    panel.select_repair("r1")
    panel.revert.click()
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "reverted")
    assert sha(folder / "edited.png") == original
    events = [json.loads(x)["event"] for x in (folder / "history.jsonl").read_text().splitlines()]
    assert events.count("repair_accepted") == 2 and events.count("repair_reverted") == 2


def test_a_message_about_one_case_is_gone_on_the_next(qtbot, repairing: MainWindow) -> None:
    panel = repairing.repair_ui.panel
    assert not panel.run_repair()  # no box yet
    assert "select or draw a box first" in panel.status.text()
    with qtbot.waitSignal(repairing.images_shown, timeout=10000):
        repairing.case_list.go(Go.NEXT)
    assert "select or draw a box first" not in panel.status.text()
    assert repairing.controller.editor is not None and repairing.controller.editor.messages == []


def test_a_repair_lands_in_its_case_after_the_reviewer_moved_on(
    qtbot,
    repairing: MainWindow,
    demo_project: Path,
) -> None:
    window = repairing
    box_the_fragment(qtbot, window)
    quick_engine(window)
    window.repair_ui.panel.run_repair()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.go(Go.NEXT)  # away before the job lands
    status = window.repair_ui.panel.status.text()
    assert "running on this case" not in status  # the job is another case's
    if window.repair_ui.jobs.jobs:
        assert "1 on other cases" in status
    qtbot.waitUntil(lambda: not window.repair_ui.jobs.jobs, timeout=10000)
    qtbot.waitUntil(lambda: window.project.entry(CASE).pending_repair, timeout=3000)
    assert review(demo_project)["repairs"][0]["status"] == "preview"
    row = window.workbench.row_of(CASE)
    assert "repair preview is waiting" in window.case_list.model.index(row).data(
        Qt.ItemDataRole.ToolTipRole
    )


def test_a_repair_for_a_case_left_is_recorded_off_the_window_thread_and_there_on_return(
    qtbot,
    repairing: MainWindow,
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Recording it fsyncs the review and the history: never on the window's thread, and a
    reviewer coming back while it is still being written sees it and saves over it cleanly."""
    window = repairing
    writers: list[bool] = []
    entered, gate = threading.Event(), threading.Event()
    real_save = Project.save_review

    def slow_save(self: Project, case: Case, *args: object, **kwargs: object) -> None:
        if case.case_id == CASE and case.review.repairs:
            writers.append(threading.current_thread() is threading.main_thread())
            entered.set()
            gate.wait(30)  # the disk is busy
        real_save(self, case, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Project, "save_review", slow_save)
    box_the_fragment(qtbot, window)
    quick_engine(window)
    window.repair_ui.panel.run_repair()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.go(Go.NEXT)
    qtbot.waitUntil(entered.is_set, timeout=15000)  # the window goes on meanwhile
    assert writers == [False]
    threading.Timer(0.2, gate.set).start()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select(CASE)  # back while it is still being written
    panel = window.repair_ui.panel
    assert panel.previews.count() == 1 and window.controller.case.review.repairs
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: window.status.save_label.property("state") == "saved", timeout=3000)
    saved = review(demo_project)
    assert saved["decision"] is not None and saved["repairs"][0]["status"] == "preview"


def test_gemini_is_offered_only_with_a_key(
    window: MainWindow, open_case: Callable, demo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    open_case(window, demo_project, CASE)
    combo = window.repair_ui.panel.engine
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    item = model.item(combo.findData("gemini"))
    assert not item.isEnabled()
    assert "GEMINI_API_KEY" in item.toolTip()


@pytest.fixture
def fake_gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    server = FakeGemini()
    monkeypatch.setenv("GEMINI_API_KEY", "k" * 32)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url)
    yield server
    server.close()


def test_a_swap_with_the_fake_gemini_server_and_a_cancel(
    qtbot,
    fake_gemini: FakeGemini,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    box_the_fragment(qtbot, window)
    panel.engine.setCurrentIndex(panel.engine.findData("gemini"))
    panel.op.setCurrentIndex(panel.op.findData("swap"))
    assert "replace the wrench with a banana" in panel.instruction.toPlainText()
    assert panel.run.isEnabled()
    panel.run.click()
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=15000)
    record = review(demo_project)["repairs"][0]
    assert record["engine"] == "gemini" and record["model"] == "gemini-3.1-flash-image"
    assert len(fake_gemini.requests) == 1

    slow = image_reply()
    slow.delay_s = 3.0
    fake_gemini.script = [slow]
    panel.again.click()  # the preview is selected: run the same request once more
    qtbot.waitUntil(lambda: panel.cancel.isVisible(), timeout=2000)
    panel.cancel.click()
    qtbot.waitUntil(lambda: not window.repair_ui.jobs.jobs, timeout=15000)
    qtbot.wait(200)
    assert len(review(demo_project)["repairs"]) == 1  # the cancelled one was never recorded
    for path in demo_project.rglob("*"):  # the API key reached no project file
        if path.is_file():
            assert b"k" * 32 not in path.read_bytes(), path


def test_boxes_cannot_be_edited_on_a_repair_comparison(
    qtbot,
    repairing: MainWindow,
    demo_project: Path,
) -> None:
    window = repairing
    box_the_fragment(qtbot, window)
    panel = window.repair_ui.panel
    quick_engine(window)
    panel.run_repair()
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=REPAIR_LANDS_MS)
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None, timeout=5000)
    before = review(demo_project)["boxes"]
    canvas = window.compare.canvases[EDITED]
    qtbot.waitUntil(lambda: canvas.image_size is not None, timeout=5000)
    canvas.setFocus()
    start, end = at(canvas, 0.1, 0.1), at(canvas, 0.3, 0.3)
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(canvas.viewport(), end)
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=end)
    press(qtbot, Qt.Key.Key_B)
    qtbot.wait(400)  # longer than the autosave delay
    assert review(demo_project)["boxes"] == before
    panel.back.click()  # back to the case: boxes are editable again
    qtbot.waitUntil(lambda: window.repair_ui.previewing is None, timeout=5000)
    canvas.setFocus()
    press(qtbot, Qt.Key.Key_B)
    qtbot.waitUntil(lambda: len(review(demo_project)["boxes"]) == len(before) + 1, timeout=1500)


def test_undo_of_accept_puts_back_the_zoom_the_reviewer_had(
    qtbot, repairing: MainWindow, demo_project: Path
) -> None:
    """Zoomed in on the defect, accept, Ctrl+Z: Base and Edited are shown again at the zoom
    and place they had before the accept, in step with each other."""
    window = repairing
    box_the_fragment(qtbot, window)
    base, edited = window.compare.canvases[ImageRole.BASE], window.compare.canvases[EDITED]
    panel = window.repair_ui.panel
    quick_engine(window)
    press(qtbot, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=REPAIR_LANDS_MS)
    qtbot.waitUntil(
        lambda: (
            window.compare.captions[EDITED].text().startswith("Repair r1")
            and edited.display_image is not None
        ),
        timeout=5000,
    )
    window.compare.zoom_by(3.0)  # judging the preview up close
    before = shown(edited)
    assert shown(base) == pytest.approx(before, abs=1e-3)
    panel.accept.click()
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "accepted")
    edited.setFocus()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "reverted")
    # both images painted again (under load, Base's may still be loading a moment)
    qtbot.waitUntil(lambda: None not in (base.zoom_state(), edited.zoom_state()), timeout=5000)
    assert shown(edited) == pytest.approx(before, abs=1e-3)
    assert shown(base) == pytest.approx(before, abs=1e-3)


def test_the_box_hint_names_the_image_once(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """On a single image the Repair tab asks for a box "on the image" (not "the image
    image")."""
    open_case(window, demo_project, "spatial01_desk")
    panel = window.repair_ui.panel
    panel.refresh()
    assert panel.box_label.text() == "Draw or select a box on the image"


def test_a_repair_picked_from_the_list_names_its_own_image(
    qtbot, make_window: Callable[..., MainWindow], open_case: Callable, demo_project: Path
) -> None:
    """A repair of Base, picked from the list in the next session (the Repair tab starts
    on Edited): the tab's Image field names Base, the image the comparison shows and Repair
    again repairs, not Edited."""
    window = make_window()
    open_case(window, demo_project, CASE)
    quick_engine(window)
    base = window.compare.canvases[ImageRole.BASE]
    viewport = base.viewport()
    start, end = at(base, 0.3, 0.3), at(base, 0.4, 0.4)
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    qtbot.mouseMove(viewport, end)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)
    panel = window.repair_ui.panel
    qtbot.waitUntil(lambda: panel.current_role() is ImageRole.BASE)
    panel.run_repair()
    case = window.session.case
    qtbot.waitUntil(lambda: len(case.review.repairs) == 1, timeout=REPAIR_LANDS_MS)
    assert window.wait_for_background(60_000)
    window.close()  # the next session: the tab starts on Edited
    window = make_window()
    open_case(window, demo_project, CASE)
    panel = window.repair_ui.panel
    assert panel.current_role() is EDITED
    panel.select_repair("r1")
    qtbot.waitUntil(lambda: window.repair_ui.previewing is not None)
    assert panel.current_role() is ImageRole.BASE
    assert panel.role.currentText() == "Base"


def test_the_caption_says_what_became_of_the_result_compared(
    qtbot, repairing: MainWindow, demo_project: Path
) -> None:
    """Discard (and Ctrl+Z of it) changes a result's state but not an image: the caption
    over it went on saying "preview" while the list said "discarded"."""
    window = repairing
    box_the_fragment(qtbot, window)
    quick_engine(window)
    panel = window.repair_ui.panel
    panel.run_repair()
    qtbot.waitUntil(lambda: panel.previews.count() == 1, timeout=REPAIR_LANDS_MS)
    caption = window.compare.captions[EDITED]
    qtbot.waitUntil(lambda: caption.text().endswith("· preview"), timeout=5000)
    panel.discard.click()
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "discarded")
    assert caption.text() == "Repair r1 · opencv-fsr · discarded"
    assert "discarded" in panel.previews.item(0).text()
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # undo the discard
    qtbot.waitUntil(lambda: review(demo_project)["repairs"][0]["status"] == "preview")
    qtbot.waitUntil(lambda: caption.text() == "Repair r1 · opencv-fsr · preview", timeout=2000)
