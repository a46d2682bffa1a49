"""The window, driven as a reviewer would: open a project, move between cases, look."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import png_bytes, read_only, yes_no_spec
from PIL import Image
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMenu, QTextBrowser

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import Go
from sabre_desk.demo import writer
from sabre_desk.gui.evaluation.export_dialog import export_release
from sabre_desk.gui.machinery.workers import POOL_THREAD_NICE
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.case_list_model import ENTRY_ROLE
from sabre_desk.settings import load_settings

BASE, EDITED, IMAGE = ImageRole.BASE, ImageRole.EDITED, ImageRole.IMAGE


def test_opening_the_demo_shows_cases_images_and_probes(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project, "ctx01_tape_bagel")
    assert window.case_list.model.rowCount() == 13
    footer = window.case_list.progress
    qtbot.waitUntil(lambda: footer.text() == "decided by me 0 / 13 valid", timeout=20_000)
    assert window.compare.canvases[BASE].image_size == (768, 512)
    assert window.compare.canvases[EDITED].image_size == (768, 512)
    assert window.compare.visible_roles == [BASE, EDITED]
    model = window.case_panel.probe_model
    assert model.rowCount() == 4
    results = [model.index(r, 5).data() for r in range(4)]
    assert results == ["Correct", "Correct", "Incorrect", "Incorrect"]
    assert model.index(2, 4).data() == "Yes."
    assert "plain bagel" in window.case_panel.summary.toPlainText()
    # two review targets of the spec, four validity items of the Context primer
    assert len(window.case_panel.checklist) == 6
    assert "primer:no_leftovers" in window.case_panel.checklist
    assert window.windowTitle().startswith("sabre-desk demo")
    assert window.status.save_label.text() == "✓ Saved"
    settings, _ = load_settings()
    assert settings.recent_projects == [str(demo_project)]


def test_a_stale_image_never_replaces_the_current_case(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    make_project: Callable,
    add_case: Callable,
) -> None:
    root = make_project()
    add_case(
        root, "big", images={"base.png": png_bytes(1500, 1100), "edited.png": png_bytes(1500, 1100)}
    )
    add_case(root, "small", images={"base.png": png_bytes(30, 20), "edited.png": png_bytes(30, 20)})
    open_case(window, root, "small")
    for _ in range(5):  # flip back and forth faster than decoding
        window.case_list.select("big")
        window.case_list.select("small")
    window.pool.waitForDone(5000)
    qtbot.wait(50)  # let any late, stale results arrive
    assert window.compare.canvases[BASE].image_size == (30, 20)
    assert window.compare.canvases[EDITED].image_size == (30, 20)


def test_broken_cases_show_their_reason_and_the_rest_keeps_working(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    make_project: Callable,
    add_case: Callable,
) -> None:
    root = make_project()
    add_case(root, "a_good")
    (add_case(root, "b_bad_spec") / "spec.json").write_text("{oops")
    add_case(root, "c_bad_image", images={"base.png": png_bytes(), "edited.png": b"junk"})
    open_case(window, root, "b_bad_spec")
    assert "cannot be opened" in window.case_panel.summary.toPlainText()
    assert "spec.json" in window.case_panel.summary.toPlainText()
    row = window.workbench.row_of("b_bad_spec")
    tooltip = window.case_list.model.index(row).data(Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith("Invalid — spec.json")
    # the junk image is found by the check of every case, before anyone opens it
    footer = window.case_list.progress
    expected = "decided by me 0 / 1 valid · invalid 2"
    qtbot.waitUntil(lambda: footer.text() == expected, timeout=20_000)

    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("c_bad_image")
    assert window.compare.canvases[BASE].image_size is not None
    assert window.compare.canvases[EDITED].image_size is None
    assert "edited.png" in window.compare.canvases[EDITED].message

    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("a_good")
    assert window.compare.canvases[EDITED].image_size == (64, 48)
    assert window.case_panel.probe_model.rowCount() == 2


def test_a_folder_that_is_not_a_project_is_explained(
    window: MainWindow, warnings_shown: list[str], tmp_path: Path
) -> None:
    assert not window.open_project(tmp_path)
    assert warnings_shown and "sabre-project.json" in warnings_shown[0]
    assert window.project is None


def test_before_a_project_opens_the_filters_read_all(window: MainWindow) -> None:
    """The welcome screen's case filters say what they will show, not a blank box."""
    assert window.project is None
    assert window.case_list.decision_filter.currentText() == "All decisions"
    assert window.case_list.subset_filter.currentText() == "All subsets"


def test_what_needs_a_project_is_greyed_out_until_one_is_open(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """Save, Export, a decision, Next Case, Fit: nothing to act on before a project opens;
    New, Open, Quit and the shortcuts sheet work from the start."""
    actions = {a.text(): a for menu in window.menuBar().findChildren(QMenu) for a in menu.actions()}
    needs = ["&Save Now", "&Export Release…", "&Next Case", "&Fit to Window", "Clear Decision"]
    always = ["&New Project…", "&Open Project…", "&Quit", "&Keyboard Shortcuts"]
    assert not any(actions[text].isEnabled() for text in needs)
    assert all(actions[text].isEnabled() for text in always)
    open_case(window, demo_project)
    assert all(actions[text].isEnabled() for text in needs + always)


def test_filters_hide_cases_that_do_not_match(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project)
    qtbot.keyClicks(window.case_list.filter, "brick")
    assert window.workbench.visible_ids() == ["tex01_mug_brick"]
    window.case_list.filter.clear()
    combo = window.case_list.subset_filter
    combo.setCurrentIndex(combo.findData("counting"))
    assert window.workbench.visible_ids() == [
        "count01_apples",
        "count02_bottles",
    ]


def test_single_image_cases_show_one_canvas(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project, "count01_apples")
    assert window.compare.visible_roles == [IMAGE]
    # the phone photo is shown upright: stored 512x768 with EXIF orientation 6
    assert window.compare.canvases[IMAGE].image_size == (768, 512)


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
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    with Image.open(out) as shot:
        assert shot.size[0] >= 1000 and shot.size[1] >= 600
        colors = shot.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colors is not None and len(colors) > 1000  # real images were painted


def test_browsing_writes_nothing(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    spec_path = demo_project / "cases" / "ctx01_tape_bagel" / "spec.json"
    before = spec_path.read_bytes()
    open_case(window, demo_project, "ctx01_tape_bagel")
    window.case_list.go(Go.NEXT)
    window.close()
    assert spec_path.read_bytes() == before
    assert not list(demo_project.glob("cases/*/reviews"))
    assert not list(demo_project.glob("cases/*/history.jsonl"))


def test_a_read_only_project_says_so_and_refuses_changes(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    with read_only(demo_project):
        open_case(window, demo_project)
        assert "[read-only]" in window.windowTitle()
        assert "read-only" in window.statusBar().currentMessage()
        assert window.status.save_label.text() == "Read-only"
        assert not window.case_panel.decision_buttons[
            next(iter(window.case_panel.decision_buttons))
        ].isEnabled()
        window.setFocus()
        qtbot.keyClick(window, Qt.Key.Key_1)
        assert window.controller.case.review.decision is None
    assert not list(demo_project.glob("cases/*/reviews"))


def test_the_entry_role_gives_the_index_row(
    window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    open_case(window, demo_project)
    index = window.case_list.model.index(0)
    assert index.data(ENTRY_ROLE).case_id == "attr01_red_triangles"


def test_cases_with_a_repair_waiting_are_marked_and_filterable(
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    review = demo_project / "cases" / "ctx03_wrench_banana" / "reviews" / "alice.json"
    review.parent.mkdir()
    review.write_text(
        json.dumps(
            {
                "case_id": "ctx03_wrench_banana",
                "reviewer": "alice",
                "repairs": [
                    {
                        "id": "r1",
                        "image_role": "edited",
                        "op": "remove",
                        "engine": "opencv-telea",
                        "box": [0.3, 0.5, 0.45, 0.7],
                        "preview": "repairs/x.png",
                        "status": "preview",
                    }
                ],
            }
        )
    )
    open_case(window, demo_project)
    combo = window.case_list.decision_filter
    combo.setCurrentIndex(combo.findData("repair"))
    assert window.workbench.visible_ids() == ["ctx03_wrench_banana"]
    # The filter has the mark's name, as the legend under the list explains the mark.
    assert combo.currentText().lower() in window.case_list.legend.text()
    index = window.case_list.model.index(0)
    assert "repair preview is waiting" in index.data(Qt.ItemDataRole.ToolTipRole)


def test_a_duplicate_concept_is_explained_in_the_case_panel(
    window: MainWindow,
    open_case: Callable,
    make_project: Callable,
    add_case: Callable,
) -> None:
    root = make_project()
    add_case(root, "a", spec=yes_no_spec(concept_id="same"))
    add_case(root, "b", spec=yes_no_spec(concept_id="same"))
    open_case(window, root, "b")
    assert "duplicate concept_id 'same'" in window.case_panel.summary.toPlainText()


def test_dropping_a_project_folder_opens_it(
    qtbot,
    window: MainWindow,
    demo_project: Path,
) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(demo_project))])
    pos = QPointF(window.width() / 2, window.height() / 2)
    enter = QDragEnterEvent(
        pos.toPoint(),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        pos,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        QApplication.sendEvent(window, drop)
    assert window.project is not None and window.project.root == demo_project


def test_the_primer_checklist_is_ticked_and_saved_and_its_design_shown(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    open_case(window, demo_project, "ctx03_wrench_banana")
    panel = window.case_panel
    assert "Context" in panel.primer_label.text()
    panel.checklist["primer:no_leftovers"].click()
    path = demo_project / "cases" / "ctx03_wrench_banana" / "reviews" / "alice.json"
    qtbot.waitUntil(
        lambda: (
            path.exists()
            and json.loads(path.read_text())["checklist"] == {"primer:no_leftovers": True}
        ),
        timeout=1500,
    )
    panel.design_button.click()
    assert panel.design_dialog is not None and panel.design_dialog.isVisible()
    text = panel.design_dialog.findChild(QTextBrowser).toPlainText()
    assert "Capability tested." in text and "**" not in text  # rendered, not raw Markdown
    panel.design_dialog.close()


def test_a_tick_belongs_to_its_case_when_the_checklist_moves_to_another(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    demo_project: Path,
) -> None:
    """The checklist's rows are reused from case to case: a tick, its text and what it
    saves follow the case shown, never the row."""
    open_case(window, demo_project, "ctx03_wrench_banana")
    panel = window.case_panel
    first = panel.checklist["primer:no_leftovers"]
    first.click()
    texts = {key: box.accessibleName() for key, box in panel.checklist.items()}
    window.case_list.select("tex01_mug_brick")
    qtbot.waitUntil(lambda: window.controller.case.case_id == "tex01_mug_brick", timeout=5000)
    assert not any(box.isChecked() for box in panel.checklist.values())
    assert {box.accessibleName() for box in panel.checklist.values()} != set(texts.values())
    window.case_list.select("ctx03_wrench_banana")
    qtbot.waitUntil(lambda: window.controller.case.case_id == "ctx03_wrench_banana", timeout=5000)
    ticked = [key for key, box in panel.checklist.items() if box.isChecked()]
    assert ticked == ["primer:no_leftovers"]
    assert {key: box.accessibleName() for key, box in panel.checklist.items()} == texts


def test_a_project_primer_for_a_new_stress_test_shows_its_checklist(
    window: MainWindow,
    open_case: Callable,
    make_project: Callable,
    add_case: Callable,
) -> None:
    root = make_project()
    add_case(root, "c1")  # pressure_test_type "custom_yes_no": no shipped primer
    from sabre_desk.core.case.primers import scaffold

    path = scaffold("custom_yes_no", root / "primers")
    path.write_text(path.read_text().replace("evidence_visible", "glare_free"))
    open_case(window, root, "c1")
    assert "primer:glare_free" in window.case_panel.checklist
    assert window.case_panel.design_button.isVisible()


def test_a_large_index_is_read_behind_the_first_case(
    qtbot, window: MainWindow, hold_pool, demo_project: Path, monkeypatch
) -> None:
    """The first cases are shown at once; the rest of the index arrives in pieces, the
    list and the counts growing, and the export waits until it is whole."""
    import sabre_desk.gui.machinery.index_reader as index_reader

    monkeypatch.setattr(index_reader, "FIRST_INDEX_CHUNK", 3)
    monkeypatch.setattr(index_reader, "INDEX_CHUNK", 4)
    let_go = hold_pool(window.index_reader.pool)  # hold the rest back: the first piece alone
    assert window.open_project(demo_project)
    assert window.workbench.counts.cases == 3 and window.case_list.model.rowCount() == 3
    assert window.project is not None and window.project.indexing
    assert export_release(window.session, window.pool, window) is None
    assert "still being read" in window.statusBar().currentMessage()
    let_go()
    qtbot.waitUntil(lambda: window.workbench.counts.cases == 13, timeout=10000)
    assert window.case_list.model.rowCount() == 13
    footer = window.case_list.progress
    qtbot.waitUntil(lambda: footer.text() == "decided by me 0 / 13 valid", timeout=20_000)
    assert not window.project.indexing
    assert "13 cases" in window.statusBar().currentMessage()


def test_the_window_is_usable_at_1280_by_720(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A laptop screen: every decision button, the notes, the four probes of a paired case
    and the status bar are in view; showing the change map does not make the window taller."""
    open_case(window, demo_project, "ctx01_tape_bagel")
    window.resize(1280, 720)
    qtbot.wait(200)
    assert window.height() == 720 and window.minimumSizeHint().height() <= 720
    frame = window.rect()
    panel = window.case_panel
    assert panel is not None
    for widget in [*panel.decision_buttons.values(), panel.notes, window.statusBar()]:
        corner = widget.mapTo(window, widget.rect().bottomRight())
        assert widget.isVisible() and frame.contains(corner), widget
    table = panel.probes
    last = panel.probe_model.rowCount() - 1
    assert last == 3
    bottom = table.rowViewportPosition(last) + table.rowHeight(last)
    assert 0 <= bottom <= table.viewport().height()
    header = table.horizontalHeader()
    metrics = header.fontMetrics()
    for column in range(header.count()):  # no header cut short ("Referen…")
        text = panel.probe_model.headerData(column, Qt.Orientation.Horizontal)
        assert metrics.horizontalAdvance(text) < header.sectionSize(column), text
    for combo in (window.case_list.decision_filter, window.case_list.subset_filter):
        text = combo.currentText()
        assert combo.fontMetrics().horizontalAdvance(text) < combo.width() - 20, text
    assert "repair waiting" in window.case_list.legend.text()  # the marks are explained
    window.changes_ui.action.trigger()
    qtbot.wait(200)
    assert window.height() == 720


def test_the_status_bar_names_the_project_again_once_a_message_has_passed(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """A repair's "is ready" or any other passing message never takes away for good which
    project and reviewer the window is on."""
    assert window.statusBar().currentMessage().startswith("Open a project folder")
    open_case(window, demo_project, "tex01_mug_brick")
    bar = window.statusBar()
    qtbot.waitUntil(lambda: "13 cases" in bar.currentMessage(), timeout=20_000)
    resting = bar.currentMessage()
    assert str(demo_project) in resting and "reviewer alice" in resting
    window.status.say("Repair r1 of tex01_mug_brick is ready", 100)
    assert bar.currentMessage() == "Repair r1 of tex01_mug_brick is ready"
    qtbot.waitUntil(lambda: bar.currentMessage() == resting, timeout=5000)
    window.status.say("about this case", 60_000, case_id="tex01_mug_brick")
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        assert window.case_list.select("ctx01_tape_bagel")
    assert bar.currentMessage() == resting  # the case's message went with it


def test_the_repair_panel_keeps_its_actions_in_view_at_1280_by_720(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """The panel's settings scroll on a laptop screen; the run button, the case's repairs
    and Accept stay in view, and the window does not grow past the screen."""
    open_case(window, demo_project, "tex01_mug_brick")
    window.resize(1280, 720)
    window.repair_ui.dock.raise_()
    qtbot.wait(200)
    assert window.height() == 720 and window.minimumSizeHint().height() <= 720
    panel = window.repair_ui.panel
    assert panel is not None
    frame = window.rect()
    for widget in (panel.run, panel.previews, panel.accept, panel.discard):
        corner = widget.mapTo(window, widget.rect().bottomRight())
        assert widget.isVisible() and frame.contains(corner), widget
    assert panel.previews.height() >= 3 * panel.previews.fontMetrics().height()
    scroll = panel.settings_pane
    assert scroll.verticalScrollBar().maximum() > 0  # the settings scroll: all of them reachable
    scroll.ensureWidgetVisible(panel.feather)
    qtbot.wait(50)
    corner = panel.feather.mapTo(scroll.viewport(), panel.feather.rect().bottomRight())
    assert 0 < corner.y() <= scroll.viewport().height()
    assert scroll.widget().width() <= scroll.viewport().width()  # nothing cut at the right
    assert panel.engine.mapTo(scroll.viewport(), panel.engine.rect().topRight()).x() < (
        scroll.viewport().width()
    )
    window.resize(1560, 1000)  # a tall screen: no scrolling, nothing cut
    qtbot.wait(200)
    assert scroll.verticalScrollBar().maximum() == 0


def test_a_first_start_shows_where_to_begin_and_the_demo_opens_from_it(
    qtbot,
    window: MainWindow,
    tmp_path: Path,
    warnings_shown: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert window.central.currentWidget() is window.welcome
    assert not window.welcome.recent.isVisible()  # nothing opened yet
    not_a_project = tmp_path / "photos"
    not_a_project.mkdir()
    assert not window.open_project(not_a_project)
    assert warnings_shown and "sabre-project.json" in warnings_shown[-1]
    assert "sabre-desk demo" not in warnings_shown[-1]  # no shell command for a window user
    drawn_at: list[int] = []  # the niceness of the thread the demo is drawn on
    draw = writer.write_demo_project

    def drawing(folder: Path) -> Path:
        drawn_at.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return draw(folder)

    monkeypatch.setattr(writer, "write_demo_project", drawing)
    window.welcome.demo_button.click()
    qtbot.waitUntil(lambda: window.workbench.counts.cases == 13, timeout=60_000)
    if sys.platform.startswith("linux"):  # drawn as work the user waits for, not background
        assert drawn_at == [min(19, os.getpriority(os.PRIO_PROCESS, 0) + POOL_THREAD_NICE)]
    assert window.central.currentWidget() is window.compare
    assert window.controller is not None and window.controller.case is not None


def test_the_toolbar_holds_the_menus_own_actions(window: MainWindow) -> None:
    """One definition of each command: a toolbar button is the menu item, key and all."""
    in_menus = {id(a) for group in window.actions_.groups.values() for a in group}
    shown = [a for a in window.toolbar.actions() if not a.isSeparator()]
    assert [a.iconText() for a in shown] == [
        "Open",
        "Save",
        "Export",
        "Fit",
        "100%",
        "Sync",
        "Changes",
        "Repair",
    ]
    for action in shown:
        assert id(action) in in_menus and not action.icon().isNull()
        assert action.shortcut().toString() in action.toolTip()


def test_the_window_comes_back_where_it_was_on_this_screen_only(qtbot) -> None:
    """Closed at 700×500 here, it reopens at 700×500 here; the geometry saved on another
    screen (a large monitor no longer connected) is not applied to this one."""
    import base64

    from PySide6.QtCore import QRect

    from sabre_desk.gui.screen_fit import screen_key
    from sabre_desk.settings import load_settings

    settings, _ = load_settings()
    first = MainWindow("alice", settings)
    qtbot.addWidget(first)
    first.show()
    here = screen_key(first.screen())
    huge = MainWindow("alice", settings)
    qtbot.addWidget(huge)
    huge.setGeometry(QRect(0, 0, 2500, 1400))
    settings.window_geometries = {
        "DP-2 2560x1440": base64.b64encode(huge.saveGeometry().data()).decode()
    }
    first.resize(700, 500)
    first.close()
    assert list(settings.window_geometries) == ["DP-2 2560x1440", here]

    again = MainWindow("alice", load_settings()[0])
    qtbot.addWidget(again)
    assert (again.width(), again.height()) == (700, 500)

    elsewhere, _ = load_settings()
    elsewhere.window_geometries = {"DP-2 2560x1440": settings.window_geometries["DP-2 2560x1440"]}
    other = MainWindow("alice", elsewhere)
    qtbot.addWidget(other)
    area = other.screen().availableGeometry()
    assert other.width() <= area.width() and other.height() <= area.height()


def test_new_project_from_the_welcome_page_makes_and_opens_an_empty_project(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """New project…: a folder, a name and a primer; a folder that is not empty is refused in
    the dialog and nothing is written there; then the new project opens, saying it is empty."""
    from PySide6.QtWidgets import QDialog

    from sabre_desk.gui.making.new_project_dialog import NewProjectDialog

    busy = tmp_path / "photos"
    busy.mkdir()
    (busy / "a.jpg").write_bytes(b"x")
    target = tmp_path / "wrench-study"
    seen: list[NewProjectDialog] = []

    def fill(dialog: NewProjectDialog) -> int:
        seen.append(dialog)
        dialog.folder.setText(str(busy))
        dialog.make_project()
        assert "not empty" in dialog.problem.text() and sorted(busy.iterdir()) == [busy / "a.jpg"]
        dialog.folder.setText(str(target))
        assert dialog.name.text() == "wrench-study"  # follows the folder until typed over
        dialog.primer.setCurrentIndex(dialog.primer.findData("context"))
        dialog.make_project()
        return int(dialog.result())

    monkeypatch.setattr(NewProjectDialog, "exec", fill)
    window.welcome.new_button.click()
    assert seen and seen[0].result() == QDialog.DialogCode.Accepted
    manifest = json.loads((target / "sabre-project.json").read_text())
    assert manifest["name"] == "wrench-study" and manifest["primer"] == "context"
    assert window.project is not None and window.project.root == target.absolute()
    assert window.central.currentWidget() is window.compare
    assert "no cases yet" in window.statusBar().currentMessage()
    assert window.actions_.new_action.shortcut().toString() == "Ctrl+N"
