"""The window applies the one rule for validity and shows the one set of counts: Keep is
never recorded on a case `validate` calls invalid (the reason shows where the decisions
are), and the case list, the Pipeline panel and the Team dialog give the very numbers
`stats --json` gives for the same project."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from factories import EVERY_KIND_COUNTS, TRUNCATED_CASE, every_kind_of_case
from PySide6.QtCore import Qt

from sabre_desk.core.case.review import Decision
from sabre_desk.gui.main_window import MainWindow


def _truncate(image: Path) -> None:
    data = image.read_bytes()
    image.write_bytes(data[: len(data) // 3])


def test_keep_is_refused_on_a_case_whose_image_does_not_decode(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path
) -> None:
    folder = demo_project / "cases" / TRUNCATED_CASE
    _truncate(folder / "edited.png")
    open_case(window, demo_project, TRUNCATED_CASE)
    panel, controller = window.case_panel, window.controller
    keep = panel.decision_buttons[Decision.KEEP]
    qtbot.waitUntil(lambda: controller.validity is not None, timeout=10_000)
    assert not keep.isEnabled()
    assert panel.validity_note.isVisibleTo(panel)
    assert "edited.png" in panel.validity_note.text() and "truncated" in panel.validity_note.text()
    window.compare.canvases[next(iter(window.compare.canvases))].setFocus()
    qtbot.keyClick(window.compare.canvases[next(iter(window.compare.canvases))], Qt.Key.Key_1)
    assert controller.set_decision(Decision.KEEP) is False  # neither the key nor a call
    assert not (folder / "reviews" / "alice.json").exists()
    # the case is invalid in the list and its counts (the verdict reaches the index on the
    # next turn of the event loop, however loaded the machine)
    qtbot.waitUntil(lambda: bool(window.project.entry(TRUNCATED_CASE).problem), timeout=5000)
    qtbot.waitUntil(lambda: "invalid 1" in window.case_list.progress.text(), timeout=5000)
    # the other decisions stay possible
    assert panel.decision_buttons[Decision.EDIT_FAILED].isEnabled()
    assert controller.set_decision(Decision.EDIT_FAILED)
    qtbot.waitUntil(lambda: (folder / "reviews" / "alice.json").exists(), timeout=3000)
    saved = json.loads((folder / "reviews" / "alice.json").read_text())
    assert saved["decision"] == "edit_failed"


def test_the_window_counts_what_stats_counts(
    qtbot, window: MainWindow, demo_project: Path, capsys
) -> None:
    from sabre_desk.cli import main

    root = every_kind_of_case(demo_project)
    assert main(["stats", str(root), "--json", "--reviewer", "alice"]) == 0
    counts = json.loads(capsys.readouterr().out)["counts"]
    assert counts == EVERY_KIND_COUNTS
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=10_000)
    # the image a check found broken is known before the case is opened
    expected_footer = (
        f"decided by me {counts['decided_by_me']} / {counts['valid']} valid · "
        f"invalid {counts['invalid']}"
    )
    qtbot.waitUntil(lambda: window.case_list.progress.text() == expected_footer, timeout=10_000)

    ui = window.pipeline_ui
    with qtbot.waitSignal(ui.refreshed, timeout=20_000):
        ui.action.trigger()
    rows = ui.panel.stages
    shown = {n.text(): c.text() for n, c in zip(rows.names, rows.counts, strict=True)}
    assert shown["Imaged"] == str(counts["cases"]) and shown["Valid"] == str(counts["valid"])
    assert shown["Decided by anyone"] == str(counts["decided_by_anyone"])
    assert shown["Final Keep"] == str(counts["final_keep"])

    window.team_ui.dialog_action.trigger()
    dialog = window.team_ui.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=20_000)
    header = dialog.header.text().replace("\xa0", " ")  # the words as read
    assert "decided by me 5, decided by anyone 6, stale 1, disputed 1" in header
    assert "with final 5, final Keep 4" in header
    assert "valid cases: decided by anyone 6" in dialog.counts.text()
    dialog.close()


def test_flipping_past_cases_takes_back_their_validity_checks_and_the_last_gets_its_own(
    qtbot, window: MainWindow, open_case: Callable, demo_project: Path, monkeypatch
) -> None:
    """Each check decodes the case's images in full; the checks of cases flipped past are
    taken back (they kept a core busy long after a flip), the case stayed on is checked."""
    from sabre_desk.core.case.validity import Validity

    checked: list[str] = []
    real = Validity.check

    def slow_check(self: Validity, case_id: str, *args: object, **kwargs: object) -> object:
        if window.controller is not None and self is window.controller._validity:
            checked.append(case_id)  # the open case's check, on its worker
            time.sleep(0.2)  # as long as a pair of large images takes
        return real(self, case_id, *args, **kwargs)

    monkeypatch.setattr(Validity, "check", slow_check)
    open_case(window, demo_project)
    controller = window.controller
    first = controller.case.case_id
    canvas = window.compare.canvases[next(iter(window.compare.canvases))]
    canvas.setFocus()
    passed = []
    for _ in range(8):
        qtbot.keyClick(canvas, Qt.Key.Key_N)
        passed.append(controller.case.case_id)
    last = passed[-1]
    qtbot.waitUntil(
        lambda: controller.validity is not None and controller.validity.case_id == last,
        timeout=10_000,
    )
    assert window.wait_for_background(10_000)
    assert len(set(passed)) == 8 and first not in passed
    assert checked[-1] == last
    assert len(checked) <= 4  # the first, one under way, the last: not all nine
