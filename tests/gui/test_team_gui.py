"""A team in the window: blind review, adjudication, stale decisions, live updates, locks."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import rgb_array, write_review
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextLayout
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

from sabre_desk.core.case.locks import LOCK_NAME, OWNER_NAME
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import repairs
from sabre_desk.core.repair.repairs import RepairStep
from sabre_desk.core.team.final import all_reviews, settle
from sabre_desk.core.team.ratings import adjudicator_rule
from sabre_desk.core.team.team import write_team_settings
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.shortcuts import shortcuts_html
from sabre_desk.imaging.io import encode_png

EDITED = ImageRole.EDITED
BOB_BOX = {"image_role": "edited", "label": "target", "box": [0.1, 0.1, 0.5, 0.5]}


def press(qtbot, key: Qt.Key, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget(), key, modifier)


def saved(root: Path, reviewer: str, case_id: str = "c1") -> dict:
    path = root / "cases" / case_id / "reviews" / f"{reviewer}.json"
    return json.loads(path.read_text()) if path.exists() else {}


def repair_elsewhere(root: Path, case_id: str, seed: int) -> Case:
    """alice, in another window, accepts a repair of the Edited image (random pixels)."""
    alice = Project.open(root, "alice")
    case = alice.load_case(case_id)
    info = case.image_info[EDITED]
    pixels = rgb_array(info.width, info.height, seed)
    box = {"op": "remove", "box": (0, 0, 1, 1)}
    record, _ = repairs.save_preview(case, EDITED, encode_png(pixels), "file", box)
    repairs.add_preview(alice, case, record)
    repairs.accept(alice, case, record.id)
    return case


def center_color(canvas) -> tuple[int, int, int]:
    shot = canvas.viewport().grab().toImage()
    color = shot.pixelColor(shot.width() // 2, shot.height() // 2)
    return color.red(), color.green(), color.blue()


@pytest.fixture
def team(make_project: Callable, add_case: Callable) -> Path:
    root = make_project()
    for case_id in ("c1", "c2", "c3"):
        add_case(root, case_id)
    return root


def test_blind_review_hides_the_others_until_you_decide_then_shows_them_in_colour(
    qtbot, window: MainWindow, open_case: Callable, team: Path
) -> None:
    write_review(team / "cases/c1", "bob", "edit_failed", notes="bagel is a donut", boxes=[BOB_BOX])
    open_case(window, team, "c1")
    section, layer = window.team_ui.section, window.team_ui.layers[EDITED]
    assert section.isVisible() and "Blind review" in section.notice.text()
    assert not section.table.isVisible() and layer.items == []
    assert "donut" not in window.case_panel.summary.toPlainText()
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_1)  # Keep
    qtbot.waitUntil(lambda: section.table.isVisible(), timeout=2000)
    assert "Blind review" not in section.notice.text()
    assert section.cell("Decision", "bob") == "Edited replacement failed"
    assert section.cell("Notes", "bob") == "bagel is a donut"
    assert section.cell("Decision", "alice") == "Keep"
    (item,) = layer.items
    color = window.team_ui.colors.of("bob")
    assert item.pen().color() == color
    header = section.table.horizontalHeaderItem(1)
    assert header.text() == "bob" and header.foreground().color() == color
    # bound to the image judged, once saved (within half a second)
    qtbot.waitUntil(lambda: saved(team, "alice").get("decided_on", {}).get("edited"), timeout=2000)


def test_an_adjudicator_settles_a_disagreement_from_the_queue(
    qtbot, make_window: Callable, open_case: Callable, team: Path
) -> None:
    write_review(team / "cases/c2", "alice", "keep")
    write_review(team / "cases/c2", "bob", "scene_changed", boxes=[BOB_BOX])
    write_review(team / "cases/c3", "alice", "keep")
    write_review(team / "cases/c3", "bob", "keep")
    write_team_settings(team, {"adjudicators": ["carol"]})
    window = make_window("carol")
    open_case(window, team, "c1")
    project = window.project
    qtbot.waitUntil(lambda: project.entry("c2").disputed, timeout=10000)
    combo = window.case_list.decision_filter
    combo.setCurrentIndex(combo.findData("disputed"))
    assert window.workbench.visible_ids() == ["c2"]
    combo.setCurrentIndex(0)
    window.compare.canvases[EDITED].setFocus()
    with qtbot.waitSignal(window.images_shown, timeout=5000):
        press(
            qtbot,
            Qt.Key.Key_D,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    assert window.controller.case.case_id == "c2"
    section = window.team_ui.section
    assert "Your decision settles it" in section.notice.text()  # shown whole, not blind
    assert section.cell("Decision", "alice") == "Keep"
    assert section.cell("Decision", "bob") == "Scene changed"
    assert len(window.team_ui.layers[EDITED].items) == 1  # bob's box beside alice's none
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_5)  # Scene changed: bob was right
    qtbot.waitUntil(lambda: saved(team, "carol", "c2").get("adjudication") is True, timeout=2000)
    assert saved(team, "carol", "c2")["decision"] == "scene_changed"
    qtbot.waitUntil(lambda: not project.entry("c2").disputed, timeout=2000)
    # "Saved" once the save thread is done: the review and its history line both written
    qtbot.waitUntil(lambda: window.status.save_label.text() == "✓ Saved", timeout=3000)
    case = Project.open(team, "dave").load_case("c2")
    final = settle(all_reviews(case), adjudicators=["carol"])
    assert final.decision is Decision.SCENE_CHANGED and final.why == "adjudicated by carol"
    history = (team / "cases/c2/history.jsonl").read_text()
    assert '"adjudication":true' in history


def test_a_repair_accepted_elsewhere_makes_your_decision_stale(
    qtbot, make_window: Callable, open_case: Callable, team: Path
) -> None:
    write_review(team / "cases/c1", "bob", "keep")
    bob = make_window("bob")
    open_case(bob, team, "c1")
    before = center_color(bob.compare.canvases[EDITED])
    assert before == (200, 90, 40)  # add_case's flat Edited image
    assert not bob.project.entry("c1").stale
    # alice, in another window, accepts a repair of the Edited image
    case = repair_elsewhere(team, "c1", seed=3)
    section = bob.team_ui.section
    qtbot.waitUntil(lambda: "made on an earlier image" in section.notice.text(), timeout=10000)
    qtbot.waitUntil(lambda: bob.project.entry("c1").stale, timeout=10000)  # the list follows
    assert bob.project.entry("c1").decision is Decision.NEEDS_RECHECK  # his case list says so
    row = bob.workbench.row_of("c1")
    tip = bob.case_list.model.index(row).data(Qt.ItemDataRole.ToolTipRole)
    assert "Needs recheck" in tip and "made on an earlier image" in tip
    assert section.cell("Decision", "bob").startswith("Keep (stale")
    # the canvas shows the repaired image (noise), no longer the flat original colour
    canvas = bob.compare.canvases[EDITED]
    qtbot.waitUntil(lambda: center_color(canvas) != before, timeout=5000)
    # deciding again binds his decision to the new image
    bob.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_1)
    qtbot.waitUntil(lambda: not bob.project.entry("c1").stale, timeout=3000)
    new_image = case.review.decided_on[EDITED]
    qtbot.waitUntil(lambda: saved(team, "bob")["decided_on"]["edited"] == new_image, timeout=2000)


def test_what_others_write_appears_without_taking_focus_or_local_edits(
    qtbot, window: MainWindow, open_case: Callable, team: Path
) -> None:
    open_case(window, team, "c1")
    window.compare.canvases[EDITED].setFocus()
    press(qtbot, Qt.Key.Key_1)
    notes = window.case_panel.notes
    notes.setFocus()
    qtbot.keyClicks(notes, "half a thought")
    write_review(team / "cases/c1", "bob", "unsure", notes="from bob's window")
    section = window.team_ui.section
    qtbot.waitUntil(lambda: section.cell("Decision", "bob") == "Unsure", timeout=5000)
    assert notes.hasFocus() and notes.toPlainText() == "half a thought"
    # F5 reads at once what the poll would read within a second
    write_review(team / "cases/c1", "bob", "keep", notes="changed his mind")
    press(qtbot, Qt.Key.Key_F5)
    assert section.cell("Notes", "bob") == "changed his mind"
    qtbot.waitUntil(lambda: saved(team, "alice").get("notes") == "half a thought", timeout=3000)


HOLDER = r"""
import sys, time
from pathlib import Path
from sabre_desk.core.case.locks import case_lock
from sabre_desk.ground.storage import atomic_write_json
folder = Path(sys.argv[1])
with case_lock(folder, "bob", "accept"):
    record = folder / ".repairs.lock.json"
    import json
    data = json.loads(record.read_text())
    data["since"] = "2026-01-01T00:00:00Z"  # held for months: a hung window
    atomic_write_json(record, data)
    print("held", flush=True)
    time.sleep(60)
"""


def test_the_repair_panel_names_the_lock_holder_and_breaks_a_stale_lock(
    qtbot,
    window: MainWindow,
    open_case: Callable,
    team: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = team / "cases/c1"
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    holder = subprocess.Popen(
        [sys.executable, str(script), str(folder)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        open_case(window, team, "c1")
        banner = window.repair_ui.panel.lock_banner
        qtbot.waitUntil(lambda: banner.isVisibleTo(window.repair_ui.panel), timeout=3000)
        assert "locked by bob on" in banner.label.text() and "stale" in banner.label.text()
        assert banner.break_button.isVisibleTo(banner)
        # accepting now is refused at once, naming the holder (not after a 15 s wait)
        assert not window.controller.take_repair_step(RepairStep.ACCEPT, "r1")
        assert "bob on" in window.case_panel.error.text()
        assert "holds the lock" in window.case_panel.error.text()
        asked: list[str] = []

        def answer(parent, title, text, *args, **kwargs):
            asked.append(text)
            return QMessageBox.StandardButton.Yes

        monkeypatch.setattr(QMessageBox, "question", answer)
        banner.break_button.click()
        assert asked and "bob" in asked[0]
        assert not (folder / LOCK_NAME).exists() and not (folder / OWNER_NAME).exists()
        assert not banner.isVisibleTo(window.repair_ui.panel)
        events = [json.loads(x) for x in (folder / "history.jsonl").read_text().splitlines()]
        assert (
            events[-1]["event"] == "lock_broken"
            and events[-1]["data"]["owner"]["reviewer"] == "bob"
        )
    finally:
        holder.kill()
        holder.wait()


def test_assigned_to_me_filter_and_the_team_dialog(
    qtbot, window: MainWindow, open_case: Callable, team: Path
) -> None:
    (team / "assignments.json").write_text(
        json.dumps(
            {
                "reviewers": ["alice", "bob"],
                "cases": {"c1": ["alice", "bob"], "c2": ["bob"], "c3": ["alice"]},
            }
        )
    )
    write_review(team / "cases/c1", "alice", "keep")
    write_review(team / "cases/c1", "bob", "edit_failed")
    open_case(window, team, "c1")
    combo = window.case_list.decision_filter
    combo.setCurrentIndex(combo.findData("assigned"))
    assert window.workbench.visible_ids() == ["c1", "c3"]
    combo.setCurrentIndex(0)
    window.compare.canvases[EDITED].setFocus()
    press(
        qtbot, Qt.Key.Key_T, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    dialog = window.team_ui.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=15000)
    figures = [dialog.figures.item(r, 0).text() for r in range(dialog.figures.rowCount())]
    assert "Krippendorff's α, six decisions" in figures and "alice × bob: Cohen's κ" in figures
    agreement_row = figures.index("alice × bob: agreement")
    assert dialog.figures.item(agreement_row, 1).text() == "0%"
    assert dialog.figures.item(agreement_row, 3).text() == "1"
    progress = {
        dialog.progress.item(r, 0).text(): dialog.progress.item(r, 2).text()
        for r in range(dialog.progress.rowCount())
    }
    assert progress == {"alice": "2", "bob": "2"}  # assigned
    assert dialog.confusion.item(0, 2).text() == "1"  # alice Keep × bob Edited replacement failed
    # Each decision's name whole in the confusion table's headers.
    header = dialog.confusion.horizontalHeader()
    for column in range(dialog.confusion.columnCount()):
        label = dialog.confusion.horizontalHeaderItem(column).text()
        assert header.sectionSize(column) >= header.fontMetrics().horizontalAdvance(label), label
    # No adjudicator named: anyone may settle. The dialog says so in the core's words, in
    # its header and its Disagreements tab alike, and its disputed case is the one Next
    # Disagreement (Ctrl+Shift+D) goes to.
    rule = adjudicator_rule(None)
    assert rule in dialog.header.text().replace("\xa0", " ")  # the words as read
    note = dialog.disagreements_note.text()
    assert note.startswith("1 disputed") and rule.capitalize() in note
    assert dialog.disagreements.item(0).text().startswith("c1 — ")
    dialog.close()
    disputed = [c.case_id for c in dialog.summary.ratings.cases if c.disputed]
    qtbot.waitUntil(
        lambda: [e.case_id for e in window.workbench.entries if e.disputed] == disputed,
        timeout=5000,
    )
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        window.case_list.select("c2")
    window.activateWindow()  # as the window manager does when a dialog closes
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    canvas = window.compare.canvases[EDITED]
    canvas.setFocus()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        qtbot.keyClick(
            canvas,
            Qt.Key.Key_D,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    assert window.controller.case.case_id == "c1"


def test_the_shortcuts_sheet_lists_the_team_keys(window: MainWindow) -> None:
    html = shortcuts_html(window.actions_.groups)
    for text in ("Team…", "Ctrl+Shift+T", "Next Disagreement to Settle", "Ctrl+Shift+D", "F5"):
        assert text in html


def go(qtbot, window: MainWindow, case_id: str) -> None:
    """*window* in front (the keys of the menus act on the active window), at *case_id*."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    if window.controller.case is None or window.controller.case.case_id != case_id:
        with qtbot.waitSignal(window.images_shown, timeout=10000):
            window.case_list.select(case_id)


def decide(qtbot, window: MainWindow, case_id: str, key: Qt.Key) -> None:
    go(qtbot, window, case_id)
    qtbot.keyClick(window.compare.canvases[EDITED], key)
    qtbot.waitUntil(lambda: window.status.save_label.text() == "✓ Saved", timeout=3000)


def test_two_reviewers_and_an_adjudicator_curate_the_demo_into_a_release(
    qtbot, make_window: Callable, open_case: Callable, demo_project: Path, tmp_path: Path
) -> None:
    from sabre_desk.core.release.export import export

    write_team_settings(demo_project, {"adjudicators": ["carol"]})
    alice, bob = make_window("alice"), make_window("bob")
    open_case(alice, demo_project, "ctx01_tape_bagel")
    open_case(bob, demo_project, "ctx01_tape_bagel")
    plan = {  # alice, bob
        "ctx01_tape_bagel": (Qt.Key.Key_1, Qt.Key.Key_1),
        "attr01_red_triangles": (Qt.Key.Key_1, Qt.Key.Key_1),
        "tex01_mug_brick": (Qt.Key.Key_1, Qt.Key.Key_3),
    }
    for case_id, (key, _) in plan.items():
        decide(qtbot, alice, case_id, key)
    for case_id, (_, key) in plan.items():
        go(qtbot, bob, case_id)
        # bob has not decided: alice's decision is hidden from him (on the case he had open
        # when she decided, from the next poll on)
        qtbot.waitUntil(lambda: bob.team_ui.team.hidden, timeout=5000)
        assert bob.team_ui.section.cell("Decision", "alice") == ""
        decide(qtbot, bob, case_id, key)
        assert bob.team_ui.section.cell("Decision", "alice") == "Keep"
    dialog = alice.team_ui.show_dialog()
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=15000)
    (pair,) = dialog.summary.agreement.overall.pairs
    assert pair.reviewers == ("alice", "bob") and pair.n == 3
    assert pair.percent.value == pytest.approx(2 / 3) and pair.kappa.value is not None
    assert dialog.summary.agreement.overall.alpha.n == 3
    dialog.close()
    carol = make_window("carol")
    open_case(carol, demo_project, "ctx01_tape_bagel")
    qtbot.waitUntil(lambda: carol.project.entry("tex01_mug_brick").disputed, timeout=15000)
    with qtbot.waitSignal(carol.images_shown, timeout=10000):
        qtbot.keyClick(
            carol.compare.canvases[EDITED],
            Qt.Key.Key_D,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
    assert carol.controller.case.case_id == "tex01_mug_brick"
    decide(qtbot, carol, "tex01_mug_brick", Qt.Key.Key_1)
    summary = export(Project.open(demo_project, "carol"), tmp_path / "release")
    assert summary.cases == 3  # two agreed, one adjudicated
    rows = [json.loads(x) for x in (tmp_path / "release/benchmark.jsonl").read_text().splitlines()]
    assert {r["case_id"] for r in rows} == set(plan)
    assert {r["provenance"]["decided"] for r in rows} == {
        "agreed by alice, bob",
        "adjudicated by carol",
    }
    assert len(summary.left_out) == 10 and all(": not decided" in x for x in summary.left_out)


def test_other_cases_changed_on_disk_update_the_case_list(
    qtbot, make_window: Callable, open_case: Callable, team: Path
) -> None:
    write_review(team / "cases/c2", "carol", "keep")
    write_team_settings(team, {"adjudicators": ["carol"]})
    window = make_window("carol")
    open_case(window, team, "c1")
    project = window.project
    qtbot.waitUntil(lambda: window.team_ui.live.cases_noted == 3, timeout=5000)
    assert project.entry("c2").decision is Decision.KEEP and not project.entry("c3").disputed
    # meanwhile, elsewhere: c2's image is repaired, alice and bob disagree on c3
    repair_elsewhere(team, "c2", seed=5)
    write_review(team / "cases/c3", "alice", "keep")
    write_review(team / "cases/c3", "bob", "base_invalid")
    window.team_ui.live.poll_project()  # what the ten-second poll does
    # the poll reads on a background pool, far below the window and its workers (which
    # start at window open): on a busy runner 5 s was not enough; only a hang takes 30
    qtbot.waitUntil(lambda: project.entry("c2").stale, timeout=30_000)
    assert window.workbench.entry("c2").decision is Decision.NEEDS_RECHECK
    qtbot.waitUntil(lambda: window.workbench.entry("c3").disputed, timeout=30_000)
    assert window.controller.case.case_id == "c1"  # nothing moved under the reviewer


def wrapped_lines(label: QLabel) -> list[str]:
    """*label*'s text as its width wraps it, line by line."""
    lines = []
    for paragraph in label.text().split("\n"):
        layout = QTextLayout(paragraph, label.font())
        layout.beginLayout()
        while (line := layout.createLine()).isValid():
            line.setLineWidth(label.contentsRect().width())
            lines.append(paragraph[line.textStart() : line.textStart() + line.textLength()])
        layout.endLayout()
    return lines


def test_the_team_header_wraps_between_figures_never_inside_one(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    """At the dialog's size a line never starts with "% intervals" or "out: 10 not
    decided": each figure keeps its words together, the lines break between figures."""
    write_review(demo_project / "cases" / "count01_apples", "bob", "keep")
    open_case(window, demo_project)
    dialog = window.team_ui.show_dialog()
    assert dialog is not None
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=15000)
    figures = [f.strip() for f in dialog.header.text().replace("\n", " · ").split(" · ")]
    assert len(figures) > 5
    for line in wrapped_lines(dialog.header):
        assert any(line.strip().startswith(f.strip()[:12]) for f in figures), line
