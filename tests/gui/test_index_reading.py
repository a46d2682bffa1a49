"""Opening a project of a few thousand cases: the list shows its first screenful and the
first case opens before the rest of the index is read; the rest arrives as rows appended
to the list, never a reset of it, the footer saying the index is still being read."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

from PIL import Image
from PySide6.QtCore import Qt, QTimer

from sabre_desk.gui.machinery import index_reader
from sabre_desk.gui.main_window import MainWindow

CASES = 3000


def make_project(root: Path, n: int) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 3, "name": "large"})
    )
    buf = io.BytesIO()
    Image.new("RGB", (32, 24), (120, 130, 140)).save(buf, "PNG")
    png = root / "template.png"
    png.write_bytes(buf.getvalue())
    spec = {
        "concept_id": "",
        "pressure_test_type": "context_prior",
        "objective": "a large project",
        "generation_mode": "paired_edit",
        "base_prompt": "a workbench with a roll of tape",
        "edit_prompt": "replace the tape with a bagel",
        "task_attributes": [],
        "questions": [
            {
                "probe_id": "edited_target",
                "image_role": "edited",
                "question_type": "yes_no",
                "prompt": "Is there a bagel?",
                "answer": "yes",
                "eval_type": "yes_no_exact",
            }
        ],
        "review_targets": [],
        "generation_notes": [],
    }
    for i in range(n):
        folder = root / "cases" / f"case{i:05d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(dict(spec, concept_id=f"c{i:05d}")))
        os.link(png, folder / "base.png")
        os.link(png, folder / "edited.png")


def test_rows_and_a_case_before_the_index_is_read(
    qtbot, window: MainWindow, hold_pool, tmp_path: Path
) -> None:
    root = tmp_path / "large"
    make_project(root, CASES)
    model = window.case_list.model
    resets: list[bool] = []
    appended: list[int] = []
    model.modelReset.connect(lambda: resets.append(True))
    model.rowsInserted.connect(lambda _parent, first, last: appended.append(last - first + 1))
    let_go = hold_pool(window.index_reader.pool)  # hold the rest back: the first piece alone
    window.resize(1366, 768)
    window.show()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        assert window.open_project(root)
    project = window.project
    assert project is not None and project.indexing
    assert model.rowCount() == index_reader.FIRST_INDEX_CHUNK < CASES
    view = window.case_list.view
    assert view.indexAt(view.viewport().rect().topLeft()).row() == 0  # rows in view
    bottom = view.indexAt(view.viewport().rect().bottomLeft()).row()
    assert bottom == -1 or bottom < model.rowCount()  # the first piece fills what shows
    assert window.controller is not None and window.controller.editor is not None
    assert window.controller.editor.case_id == "case00000"  # opened, the index unread
    assert "reading the index" in window.case_list.progress.text()
    resets.clear()

    let_go()
    qtbot.waitUntil(
        lambda: not project.indexing and window.workbench.counts.cases == CASES, timeout=60000
    )
    qtbot.waitUntil(lambda: "reading" not in window.case_list.progress.text(), timeout=5000)
    assert model.rowCount() == CASES
    assert not resets  # rows appended, the list never laid out anew
    assert sum(appended) >= CASES - index_reader.FIRST_INDEX_CHUNK and len(appended) > 1
    # then every case is checked as `validate` checks it (this spec breaks its primer)
    with qtbot.waitSignal(window.verdicts.finished, timeout=120_000):
        pass
    assert window.case_list.progress.text() == f"decided by me 0 / 0 valid · invalid {CASES}"
    assert "primer context" in model.index(0).data(Qt.ItemDataRole.ToolTipRole)
    assert window.controller.editor.case_id == "case00000"  # the case shown stays
    assert window.case_list.current_case() == "case00000"


def test_the_index_is_read_whole_under_a_reviewer_who_never_stops(
    qtbot, window: MainWindow, hold_pool, tmp_path: Path
) -> None:
    """The index waits while the reviewer moves from case to case, a run at a time: someone
    flipping through cases without a pause still gets the whole list."""
    root = tmp_path / "large"
    cases = index_reader.FIRST_INDEX_CHUNK + 2 * index_reader.INDEX_RUN + 10
    make_project(root, cases)
    let_go = hold_pool(window.index_reader.pool)
    window.show()
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        assert window.open_project(root)
    project = window.project
    assert project is not None and project.indexing
    pace = window.workbench.pace
    flipping = QTimer(window)
    flipping.setInterval(100)  # a case every tenth of a second, never staying on one
    flipping.timeout.connect(pace.moved)
    pace.moved()
    flipping.start()
    let_go()
    qtbot.waitUntil(lambda: not project.indexing, timeout=30000)
    assert pace.moving  # read whole while the reviewer was still on the move
    flipping.stop()
    assert window.case_list.model.rowCount() == cases
    qtbot.waitUntil(lambda: window.workbench.counts.cases == cases, timeout=5000)
