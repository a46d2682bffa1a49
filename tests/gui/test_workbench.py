"""Reviewing with keys and mouse, and checking what reached the disk."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QLineEdit

from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.machinery.image_loader import image_key
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.probe_model import ANSWER

BASE, EDITED = ImageRole.BASE, ImageRole.EDITED
CASE = "ctx01_tape_bagel"


def review_file(root: Path, case_id: str = CASE, reviewer: str = "alice") -> Path:
    return root / "cases" / case_id / "reviews" / f"{reviewer}.json"


def on_disk(root: Path, case_id: str = CASE) -> dict:
    path = review_file(root, case_id)
    return json.loads(path.read_text()) if path.exists() else {}


def history(root: Path, case_id: str = CASE) -> list[dict]:
    path = root / "cases" / case_id / "history.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_saved(qtbot, root: Path, check: Callable[[dict], bool]) -> dict:
    """Autosave promises 0.5 s; wait a little longer than that for the file to say so, and
    for the window to have it acknowledged (the history events are written with it)."""
    qtbot.waitUntil(lambda: check(on_disk(root)), timeout=1500)
    windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    qtbot.waitUntil(
        lambda: all(w.controller is None or not w.controller.saver.pending for w in windows),
        timeout=1500,
    )
    return on_disk(root)


def press(
    qtbot,
    window: MainWindow,
    key: Qt.Key,
    modifier: Qt.KeyboardModifier = Qt.KeyboardModifier.NoModifier,
) -> None:
    target = QApplication.focusWidget() or window
    qtbot.keyClick(target, key, modifier)


def drag(qtbot, canvas: ImageCanvas, start: QPoint, end: QPoint) -> None:
    viewport = canvas.viewport()
    qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=start)
    for t in (0.25, 0.5, 0.75, 1.0):
        qtbot.mouseMove(viewport, start + (end - start) * t)
    qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=end)


def at(canvas: ImageCanvas, fx: float, fy: float) -> QPoint:
    """The viewport point showing the image point at fractions (fx, fy) of its size."""
    w, h = canvas.image_size
    return canvas.mapFromScene(QPointF(fx * w, fy * h))


def expected_box(canvas: ImageCanvas, a: QPoint, b: QPoint) -> tuple[float, ...]:
    w, h = canvas.image_size
    pa, pb = canvas.mapToScene(a), canvas.mapToScene(b)
    return (pa.x() / w, pa.y() / h, pb.x() / w, pb.y() / h)


@pytest.fixture
def review(window: MainWindow, open_case: Callable, demo_project: Path) -> MainWindow:
    open_case(window, demo_project, CASE)
    window.compare.canvases[EDITED].setFocus()
    return window


def test_a_decision_key_is_saved_within_half_a_second(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    press(qtbot, review, Qt.Key.Key_1)
    saved = wait_saved(qtbot, demo_project, lambda d: d.get("decision") == "keep")
    assert saved["reviewer"] == "alice" and saved["case_id"] == CASE
    assert history(demo_project)[-1]["event"] == "decision"
    assert history(demo_project)[-1]["data"] == {"from": None, "to": "keep"}
    # every case is checked behind the index ("checking N…" until then): waited for
    qtbot.waitUntil(
        lambda: review.case_list.progress.text() == "decided by me 1 / 13 valid", timeout=15000
    )
    assert review.case_panel.decision_buttons[
        next(iter(review.case_panel.decision_buttons))
    ].isChecked()
    assert review.status.save_label.text() == "✓ Saved"


def test_drawing_moving_and_deleting_a_box(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    canvas = review.compare.canvases[EDITED]
    a, b = at(canvas, 0.3, 0.4), at(canvas, 0.5, 0.7)
    drag(qtbot, canvas, a, b)
    saved = wait_saved(qtbot, demo_project, lambda d: len(d.get("boxes", [])) == 1)
    box = saved["boxes"][0]
    assert box["image_role"] == "edited" and box["label"] == "target"
    assert box["box"] == pytest.approx(expected_box(canvas, a, b), abs=0.003)
    assert canvas.selected_box == 0  # the new box is selected, ready to adjust

    middle = at(canvas, 0.4, 0.55)
    drag(qtbot, canvas, middle, middle + QPoint(20, 30))  # move it by its middle
    moved = wait_saved(qtbot, demo_project, lambda d: d["boxes"][0]["box"] != box["box"])["boxes"][
        0
    ]["box"]
    dx, dy = moved[0] - box["box"][0], moved[1] - box["box"][1]
    w, h = canvas.image_size
    assert dx * w == pytest.approx(20 / canvas.zoom, abs=1.5)
    assert dy * h == pytest.approx(30 / canvas.zoom, abs=1.5)
    assert moved[2] - moved[0] == pytest.approx(box["box"][2] - box["box"][0], abs=1e-4)

    press(qtbot, review, Qt.Key.Key_Delete)
    wait_saved(qtbot, demo_project, lambda d: d["boxes"] == [])
    actions = [e["data"]["action"] for e in history(demo_project) if e["event"] == "box"]
    assert actions == ["add", "change", "remove"]


def test_a_click_saves_nothing_a_drag_draws_and_m_mirrors(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    """A click meant to focus or pan never becomes a box in the review."""
    canvas = review.compare.canvases[BASE]
    canvas.setFocus()
    history = demo_project / "cases" / CASE / "history.jsonl"
    qtbot.mouseClick(canvas.viewport(), Qt.MouseButton.LeftButton, pos=at(canvas, 0.5, 0.6))
    qtbot.wait(700)  # longer than the autosave delay
    assert canvas.box_count == 0
    assert not review_file(demo_project).exists() or not on_disk(demo_project).get("boxes")
    assert not history.exists() or '"box"' not in history.read_text()
    start, end = at(canvas, 0.4, 0.5), at(canvas, 0.6, 0.7)
    qtbot.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=start)
    for k in range(1, 6):
        qtbot.mouseMove(canvas.viewport(), start + (end - start) * k / 5)
    qtbot.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=end)
    saved = wait_saved(qtbot, demo_project, lambda d: len(d.get("boxes", [])) == 1)
    x0, y0, x1, y1 = saved["boxes"][0]["box"]
    assert (x0, y0) == pytest.approx((0.4, 0.5), abs=0.01)
    assert (x1, y1) == pytest.approx((0.6, 0.7), abs=0.01)
    assert saved["boxes"][0]["label"] == "source"
    press(qtbot, review, Qt.Key.Key_M)
    saved = wait_saved(qtbot, demo_project, lambda d: len(d.get("boxes", [])) == 2)
    assert saved["boxes"][1]["image_role"] == "edited"
    assert saved["boxes"][1]["label"] == "target"
    assert saved["boxes"][1]["box"] == saved["boxes"][0]["box"]
    assert review.compare.canvases[EDITED].box_count == 1


def test_editing_an_answer_with_the_keyboard(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    table = review.case_panel.probes
    table.setFocus()
    table.setCurrentIndex(review.case_panel.probe_model.index(1, ANSWER))
    press(qtbot, review, Qt.Key.Key_F2)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QLineEdit)
    editor.selectAll()
    qtbot.keyClicks(editor, "YES")
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    saved = wait_saved(qtbot, demo_project, lambda d: bool(d.get("question_edits")))
    assert saved["question_edits"] == {"base_target": {"prompt": None, "answer": "yes"}}
    assert review.case_panel.probe_model.index(1, ANSWER).data() == "yes"
    spec = json.loads((demo_project / "cases" / CASE / "spec.json").read_text())
    assert spec["questions"][1]["answer"] == "no"  # the spec itself is never rewritten


def test_an_invalid_answer_is_refused_with_the_rule(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    model = review.case_panel.probe_model
    assert not model.setData(model.index(0, ANSWER), "maybe")
    assert "'yes' or 'no'" in review.statusBar().currentMessage()
    assert "'yes' or 'no'" in review.case_panel.error.text()
    qtbot.wait(400)
    assert not review_file(demo_project).exists()


def test_undo_and_redo_reach_the_disk(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    press(qtbot, review, Qt.Key.Key_2)
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") == "needs_recheck")
    press(qtbot, review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") is None)
    assert history(demo_project)[-1]["data"] == {"from": "needs_recheck", "to": None, "undo": True}
    press(
        qtbot,
        review,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") == "needs_recheck")


def test_notes_are_saved_after_a_pause_and_undone_as_one_step(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    notes = review.case_panel.notes
    notes.setFocus()
    qtbot.keyClicks(notes, "bagel looks")
    qtbot.wait(300)
    qtbot.keyClicks(notes, " pasted on")
    saved = wait_saved(qtbot, demo_project, lambda d: d.get("notes") == "bagel looks pasted on")
    assert saved["notes"] == "bagel looks pasted on"
    review.compare.canvases[EDITED].setFocus()
    press(qtbot, review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_saved(qtbot, demo_project, lambda d: d.get("notes") == "")
    assert notes.toPlainText() == ""


def test_switching_cases_saves_and_returning_restores(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    press(qtbot, review, Qt.Key.Key_5)
    with qtbot.waitSignal(review.images_shown, timeout=10000) as shown:
        press(qtbot, review, Qt.Key.Key_N)  # saved on switch, not only after the delay
    assert shown.args == ["ctx02_apple_tennis_ball"]
    qtbot.waitUntil(lambda: on_disk(demo_project).get("decision") == "scene_changed")
    with qtbot.waitSignal(review.images_shown, timeout=10000):
        press(qtbot, review, Qt.Key.Key_P)
    assert review.controller.case.case_id == CASE
    assert review.case_panel.decision_buttons[
        list(review.case_panel.decision_buttons)[4]
    ].isChecked()


def test_keyboard_navigation(qtbot, review: MainWindow, monkeypatch) -> None:
    def current() -> str:
        return review.controller.case.case_id

    press(qtbot, review, Qt.Key.Key_End)
    qtbot.waitUntil(lambda: current() == "tex02_board_marble")
    press(qtbot, review, Qt.Key.Key_Home)
    qtbot.waitUntil(lambda: current() == "attr01_red_triangles")
    press(qtbot, review, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: current() == "attr02_traffic_light")
    press(qtbot, review, Qt.Key.Key_1)  # keep, then the next unreviewed skips it
    press(qtbot, review, Qt.Key.Key_PageUp)
    qtbot.waitUntil(lambda: current() == "attr01_red_triangles")
    press(qtbot, review, Qt.Key.Key_N, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: current() == "count01_apples")

    def typed(dialog: QInputDialog) -> int:
        dialog.setTextValue("spatial01_desk")
        return QInputDialog.DialogCode.Accepted.value

    monkeypatch.setattr(QInputDialog, "exec", typed)
    press(qtbot, review, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: current() == "spatial01_desk")


def test_auto_advance_moves_to_the_next_unreviewed_case(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    review.actions_.auto_advance.trigger()
    assert review.settings.auto_advance
    press(qtbot, review, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: review.controller.case.case_id == "ctx02_apple_tennis_ball")
    qtbot.waitUntil(lambda: on_disk(demo_project).get("decision") == "keep")


def test_ctrl_z_after_auto_advance_goes_back_and_takes_the_decision_back(
    qtbot, review: MainWindow, demo_project: Path
) -> None:
    review.actions_.auto_advance.trigger()
    press(qtbot, review, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: review.controller.case.case_id == "ctx02_apple_tennis_ball")
    undo = next(a for a in review.actions_.groups["Edit"] if a.text().startswith("&Undo"))
    assert undo.isEnabled()  # nothing to undo on this case, but the last decision is
    press(qtbot, review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: review.controller.case.case_id == CASE, timeout=3000)
    assert review.controller.case.review.decision is None
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") is None)


def test_a_review_changed_on_disk_is_not_overwritten_silently(
    qtbot,
    review: MainWindow,
    demo_project: Path,
    monkeypatch,
) -> None:
    press(qtbot, review, Qt.Key.Key_1)
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") == "keep")
    theirs = on_disk(demo_project) | {"decision": "base_invalid", "notes": "other window"}
    review_file(demo_project).write_text(json.dumps(theirs))
    asked: list[str] = []
    monkeypatch.setattr(review, "ask_conflict", lambda msg: asked.append(msg) or "theirs")
    press(qtbot, review, Qt.Key.Key_6)
    qtbot.waitUntil(lambda: bool(asked), timeout=1500)
    assert "changed on disk" in asked[0]
    assert on_disk(demo_project)["decision"] == "base_invalid"  # theirs kept
    assert review.controller.case.review.notes == "other window"  # and loaded

    monkeypatch.setattr(review, "ask_conflict", lambda msg: asked.append(msg) or "mine")
    review_file(demo_project).write_text(json.dumps(theirs | {"notes": "again"}))
    press(qtbot, review, Qt.Key.Key_6)
    qtbot.waitUntil(lambda: on_disk(demo_project).get("decision") == "unsure", timeout=1500)
    assert len(asked) == 2


def test_quit_and_reopen_finds_everything_as_left(
    qtbot,
    make_window: Callable,
    open_case: Callable,
    demo_project: Path,
) -> None:
    first = make_window()
    open_case(first, demo_project, CASE)
    first.compare.canvases[EDITED].setFocus()
    press(qtbot, first, Qt.Key.Key_3)
    edited = first.compare.canvases[EDITED]
    drag(qtbot, edited, at(edited, 0.2, 0.3), at(edited, 0.4, 0.6))
    first.controller.edit_question("edited_target", answer="no")
    first.case_panel.notes.setPlainText("jaw left over")
    first.case_panel.notes.commit()
    first.cases_dock.hide()
    first.close()  # immediately: the pending autosave must not be lost
    saved = on_disk(demo_project)
    assert saved["decision"] == "edit_failed" and saved["notes"] == "jaw left over"
    assert len(saved["boxes"]) == 1
    assert saved["question_edits"]["edited_target"]["answer"] == "no"

    second = make_window()
    assert not second.cases_dock.isVisible()  # the dock layout persisted
    open_case(second, demo_project, CASE)
    case = second.controller.case
    assert case.review.decision.value == "edit_failed"
    assert second.compare.canvases[EDITED].box_count == 1
    assert second.case_panel.notes.toPlainText() == "jaw left over"
    assert second.case_panel.probe_model.index(3, ANSWER).data() == "no"


def test_wheel_zoom_keeps_the_point_under_the_cursor_and_views_stay_in_sync(
    qtbot,
    review: MainWindow,
) -> None:
    base, edited = review.compare.canvases[BASE], review.compare.canvases[EDITED]
    edited.zoom_by(4.0)  # large enough that the image overflows the view both ways
    anchor = at(edited, 0.3, 0.6)
    before = edited.mapToScene(anchor)
    zoom_before = edited.zoom
    for _ in range(3):  # three notches of a real mouse wheel over the anchor
        wheel = QWheelEvent(
            anchor.toPointF(),
            edited.viewport().mapToGlobal(anchor).toPointF(),
            QPoint(0, 0),
            QPoint(0, 120),
            Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier,
            Qt.ScrollPhase.NoScrollPhase,
            False,
        )
        QApplication.sendEvent(edited.viewport(), wheel)
    assert edited.zoom == pytest.approx(zoom_before * 1.25**3)
    after = edited.mapToScene(anchor)
    assert (after - before).manhattanLength() < 2.0
    assert base.zoom == pytest.approx(edited.zoom, rel=0.01)
    assert base.view_state() == pytest.approx(edited.view_state(), abs=0.01)
    press(qtbot, review, Qt.Key.Key_F)
    assert edited.zoom < 1.0 and base.zoom == pytest.approx(edited.zoom, rel=0.01)
    review.compare.actual_size()
    assert edited.screen_zoom == pytest.approx(1.0)


def test_the_shortcuts_sheet_lists_every_action(review: MainWindow) -> None:
    from sabre_desk.gui.shortcuts import shortcuts_html

    html = shortcuts_html(review.actions_.groups)
    for text in ("Next Unreviewed", "Shift+N", "Keep", "Ctrl+G", "Undo", "Mirror Box"):
        assert text in html


def test_boxes_can_be_drawn_and_adjusted_with_the_keyboard_alone(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    press(qtbot, review, Qt.Key.Key_B)
    saved = wait_saved(qtbot, demo_project, lambda d: len(d.get("boxes", [])) == 1)
    first = saved["boxes"][0]["box"]
    assert saved["boxes"][0]["image_role"] == "edited"
    assert (first[0] + first[2]) / 2 == pytest.approx(0.5, abs=0.01)
    for _ in range(5):
        press(qtbot, review, Qt.Key.Key_Right, Qt.KeyboardModifier.ShiftModifier)
    press(qtbot, review, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    moved = wait_saved(qtbot, demo_project, lambda d: d["boxes"][0]["box"][3] > first[3])["boxes"][
        0
    ]["box"]
    canvas = review.compare.canvases[EDITED]
    w, h = canvas.image_size
    assert (moved[0] - first[0]) * w == pytest.approx(50 / canvas.zoom, abs=1.0)
    assert moved[1] == pytest.approx(first[1], abs=1e-6)  # Alt+Down grew it downwards
    assert (moved[3] - first[3]) * h == pytest.approx(1 / canvas.zoom, abs=0.5)
    # one keyboard adjustment is one undo step, like one mouse drag
    press(qtbot, review, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    wait_saved(qtbot, demo_project, lambda d: d["boxes"] and d["boxes"][0]["box"] == first)


def test_the_first_keys_after_opening_decide_not_filter(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    """No widget is focused by the test: the keys go wherever the window put the focus."""
    open_case(window, demo_project, CASE)
    press(qtbot, window, Qt.Key.Key_1)
    wait_saved(qtbot, demo_project, lambda d: d.get("decision") == "keep")
    assert window.case_list.filter.text() == ""
    press(qtbot, window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert QApplication.focusWidget() is window.case_list.filter


def test_undoing_a_delete_selects_the_box_that_comes_back(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    """Two boxes, the first deleted and brought back: it is the selected one again (a
    selection guessed from the box count would pick the last box)."""
    controller = review.controller
    assert controller is not None
    controller.add_box(EDITED, (0.1, 0.1, 0.3, 0.3), "target")
    controller.add_box(EDITED, (0.6, 0.6, 0.8, 0.8), "evidence")
    canvas = review.compare.canvases[EDITED]
    assert canvas.selected_box == 1  # the box just drawn
    canvas.setFocus()
    qtbot.keyClick(canvas, Qt.Key.Key_Tab)
    assert canvas.selected_box == 0  # Tab moves to the next box, round to the first
    press(qtbot, review, Qt.Key.Key_Delete)
    assert canvas.box_count == 1 and canvas.selected_box == -1
    review.controller.undo_group.undo()
    assert canvas.box_count == 2
    assert canvas.selected_box == 0
    assert controller.case.review.boxes_on(EDITED)[0].label == "target"


def test_esc_in_the_notes_hands_the_keys_back_to_the_image(
    qtbot,
    review: MainWindow,
    demo_project: Path,
) -> None:
    """Typing a note, then Esc, then N: the N moves to the next case, it is not typed."""
    notes = review.case_panel.notes
    notes.setFocus()
    qtbot.keyClicks(notes, "Jaw still visible")
    qtbot.keyClick(notes, Qt.Key.Key_Escape)
    assert not notes.hasFocus()
    press(qtbot, review, Qt.Key.Key_N)
    assert review.controller.case.case_id != CASE
    # moving on hands the note's save to the save thread: it lands without holding N up
    qtbot.waitUntil(lambda: on_disk(demo_project).get("notes") == "Jaw still visible")
    review.case_list.filter.setFocus()
    qtbot.keyClick(review.case_list.filter, Qt.Key.Key_Escape)
    assert not review.case_list.filter.hasFocus()


def test_a_single_image_case_offers_only_the_decisions_it_can_have(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "count01_apples")
    buttons = window.case_panel.decision_buttons
    assert [d for d, b in buttons.items() if not b.isEnabled()] == [
        Decision.EDIT_FAILED,
        Decision.BASE_INVALID,
        Decision.SCENE_CHANGED,
    ]
    window.compare.canvases[ImageRole.IMAGE].setFocus()
    press(qtbot, window, Qt.Key.Key_5)  # Scene changed: refused, said so
    assert window.controller.case.review.decision is None
    assert "one image" in window.statusBar().currentMessage()
    press(qtbot, window, Qt.Key.Key_1)
    assert window.controller.case.review.decision is Decision.KEEP


def test_small_boxes_keep_visible_handles_and_labels_sit_on_a_plate(
    qtbot, review: MainWindow
) -> None:
    from sabre_desk.gui.desk.canvas.box_item import HANDLE_PX, LabelPlate

    canvas = review.compare.canvases[EDITED]
    review.controller.add_box(EDITED, (0.50, 0.50, 0.51, 0.51), "target")  # a few pixels
    (item,) = canvas._boxes
    scale = canvas.transform().m11()
    side = min(item.rect().width(), item.rect().height()) * scale
    handle = next(iter(item.handle_rects().values())).width() * scale
    assert handle < HANDLE_PX and handle <= max(3.0, side / 3) + 0.01
    assert isinstance(item.text, LabelPlate) and item.text.label == "target"
    assert item.text.boundingRect().height() > 0 and item.text.color.isValid()


def test_holding_v_blinks_the_other_image_in_place(qtbot, review: MainWindow) -> None:
    """The Edited canvas shows Base while V is held, same view and boxes; then Edited again."""
    from PySide6.QtTest import QTest

    canvas = review.compare.canvases[EDITED]
    review.controller.add_box(EDITED, (0.4, 0.5, 0.6, 0.7), "target")
    qtbot.waitUntil(lambda: canvas._pixmap_item is not None, timeout=5000)
    canvas.setFocus()
    own, view = canvas._pixmap_item, canvas.view_state()
    base_pixels = review.loader.cached(image_key(review.controller.case.images[BASE]))
    assert base_pixels is not None
    QTest.keyPress(canvas, Qt.Key.Key_V)
    assert canvas._pixmap_item is not own
    assert review.compare.captions[EDITED].text().startswith("Base")
    assert canvas.box_count == 1 and canvas.view_state() == view
    QTest.keyRelease(canvas, Qt.Key.Key_V)
    assert canvas._pixmap_item is own
    assert review.compare.captions[EDITED].text() == "Edited"


def test_a_pair_is_laid_out_the_way_that_shows_it_larger(qtbot) -> None:
    """Two landscape images one above the other in a tall view, side by side in a wide one;
    portrait images side by side."""
    from sabre_desk.gui.desk.canvas.compare_view import CompareView

    view = CompareView()
    qtbot.addWidget(view)
    view.resize(1200, 900)
    view.show()
    view.show_roles((BASE, EDITED))
    view.set_aspect(2.0)
    assert view.stacked
    view.resize(2000, 500)
    qtbot.waitUntil(lambda: not view.stacked, timeout=2000)
    view.resize(1200, 900)
    qtbot.waitUntil(lambda: view.stacked, timeout=2000)
    view.set_aspect(0.75)
    assert not view.stacked
    view.set_aspect(2.0)
    view.show_roles((ImageRole.IMAGE,))  # a single image: nothing to arrange
    assert not view.stacked


def test_w_swipes_base_over_edited_behind_a_divider_the_reviewer_drags(
    qtbot, review: MainWindow
) -> None:
    """W shows the pair in one canvas: Base left of a divider, Edited right of it. Dragging
    moves the divider, and so which image each screen column shows; W again splits them."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QImage
    from PySide6.QtTest import QTest

    canvas = review.compare.canvases[EDITED]
    qtbot.waitUntil(lambda: canvas.display_image is not None, timeout=5000)
    press(qtbot, review, Qt.Key.Key_W)
    assert review.actions_.swipe.isChecked() and canvas.swiping
    assert review.compare.visible_roles == [EDITED]  # one canvas, as large as the pair's
    assert review.compare.swipe_label.text().startswith("◂ Base  |  Edited ▸")
    # the line above names both images; no caption under it says the canvas is Edited only
    assert not review.compare.captions[EDITED].isVisible()
    qtbot.wait(50)
    canvas.fit()
    w, h = canvas.image_size

    def inside() -> QImage:  # the image's area on screen, less the divider at its edges
        area = canvas.mapFromScene(QRectF(0, 0, w, h)).boundingRect().adjusted(4, 4, -4, -4)
        return canvas.grab().toImage().copy(area)

    canvas.move_swipe(0.0)
    edited = inside()
    place = canvas.geometry()
    QTest.keyPress(canvas, Qt.Key.Key_V)  # Base in the same view, for reference
    qtbot.wait(20)
    assert canvas.geometry() == place  # the caption naming it shows; the image stays put
    assert review.compare.captions[EDITED].isVisible()
    base = inside()
    QTest.keyRelease(canvas, Qt.Key.Key_V)
    assert base != edited
    canvas.move_swipe(1.0)
    assert inside() == base

    # A drag to the middle: the divider follows, no box is drawn.
    middle = canvas.mapFromScene(w / 2, h / 2)
    QTest.mousePress(canvas.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    QTest.mouseRelease(canvas.viewport(), Qt.MouseButton.LeftButton, pos=middle)
    assert abs(canvas.swipe_split - 0.5) < 0.02
    assert review.controller.case.review.boxes == []
    QTest.keyClick(canvas, Qt.Key.Key_Right)
    assert abs(canvas.swipe_split - 0.55) < 0.02

    press(qtbot, review, Qt.Key.Key_W)
    assert not canvas.swiping and BASE in review.compare.visible_roles
    assert review.compare.swipe_label.isHidden()
    assert review.compare.captions[EDITED].isVisible()


def test_right_click_on_a_box_offers_its_label_mirror_and_delete(qtbot, review: MainWindow) -> None:
    """The box menu stays up after the click (it is owned by the window) and its choices act
    on that box."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMenu

    canvas = review.compare.canvases[EDITED]
    qtbot.waitUntil(lambda: canvas.display_image is not None, timeout=5000)
    review.controller.add_box(EDITED, (0.4, 0.5, 0.6, 0.7), "target")
    w, h = canvas.image_size
    inside = canvas.mapFromScene(0.5 * w, 0.6 * h)
    QTest.mouseClick(canvas.viewport(), Qt.MouseButton.RightButton, pos=inside)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=2000)
    menu = QApplication.activePopupWidget()
    texts = [a.text() for a in menu.actions() if a.text()]
    assert "Mirror to the other image" in texts and any(t.startswith("Label: ") for t in texts)
    next(a for a in menu.actions() if a.text() == "Mirror to the other image").trigger()
    menu.close()
    assert len(review.controller.case.review.boxes_on(BASE)) == 1
