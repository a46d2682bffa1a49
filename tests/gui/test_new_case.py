"""File > New Case: a case made around the reviewer's own photos, checked as it is typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import png_bytes

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.making.new_project import init_project
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.making.new_case_dialog import ANSWER, PROBE, PROMPT, NewCaseDialog


@pytest.fixture
def photos(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "phone"
    folder.mkdir()
    made = {}
    for name, color in (("desk_base", (200, 180, 150)), ("desk_edited", (150, 180, 200))):
        made[name] = folder / f"{name}.png"
        made[name].write_bytes(png_bytes(80, 60, color))
    made["small"] = folder / "small.png"
    made["small"].write_bytes(png_bytes(40, 30))
    return made


def test_a_context_case_from_two_photos_is_checked_live_and_saved_into_the_list(
    qtbot, window: MainWindow, tmp_path: Path, photos: dict[str, Path], monkeypatch
) -> None:
    root = init_project(tmp_path / "study", primer="context")
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=5000)
    seen: list[NewCaseDialog] = []

    def author(dialog: NewCaseDialog) -> int:
        seen.append(dialog)
        assert dialog.primer.currentData() == "context"  # the project's primer
        assert not dialog.kind.isEnabled()  # Context is a pair, always
        assert "Base photo: choose one, or drop it on its button" in dialog.current_problems
        dialog.set_image(ImageRole.BASE, photos["desk_base"])
        assert dialog.case_id.text() == "desk"  # from the photo's name
        dialog.set_image(ImageRole.EDITED, photos["small"])
        assert any("differ in size (40×30 vs 80×60)" in p for p in dialog.current_problems)
        dialog.set_image(ImageRole.EDITED, photos["desk_edited"])
        assert any("source_entity" in p for p in dialog.current_problems)
        dialog.attribute_edits["source_entity"].setText("stapler")
        dialog.attribute_edits["target_entity"].setText("croissant")
        table = dialog.questions
        assert table.rowCount() == 4
        prompts = [dialog.draft.questions[r].prompt for r in range(4)]
        assert prompts[0] == "Is there a {source_entity} in the image?"
        assert not table.item(0, ANSWER).flags() & table.item(0, PROMPT).flags().ItemIsEditable
        assert dialog.current_problems == []
        save = dialog.buttons.button(dialog.buttons.StandardButton.Save)
        assert save.isEnabled()
        table.item(3, PROMPT).setText("Is there a croissant on the desk?")
        dialog.save()
        return int(dialog.result())

    monkeypatch.setattr(NewCaseDialog, "exec", author)
    window.actions_.new_case_action.trigger()
    assert seen and seen[0].saved == "desk"
    spec = json.loads((root / "cases" / "desk" / "spec.json").read_text())
    assert spec["provenance"]["real_image"] is True
    questions = {q["probe_id"]: q for q in spec["questions"]}
    assert questions["base_source"]["prompt"] == "Is there a stapler in the image?"
    assert questions["edited_target"]["prompt"] == "Is there a croissant on the desk?"
    assert [questions[p]["answer"] for p in ("base_source", "base_target")] == ["yes", "no"]
    assert validate_project(Project.open(root, "alice")).valid
    assert window.workbench.counts.cases == 1
    qtbot.waitUntil(
        lambda: window.controller.case is not None and window.controller.case.case_id == "desk",
        timeout=5000,
    )


def test_a_primer_without_fixed_probes_takes_questions_of_its_types(
    qtbot, window: MainWindow, tmp_path: Path, photos: dict[str, Path]
) -> None:
    root = init_project(tmp_path / "counts", primer="counting")
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=5000)
    dialog = NewCaseDialog(window.project, window)
    qtbot.addWidget(dialog)
    dialog.set_image(ImageRole.IMAGE, photos["small"])
    assert any("questions" in p for p in dialog.current_problems)  # at least one is needed
    dialog.add_question.click()
    assert dialog.draft.questions[0].question_type.value == "open"  # the primer's only type
    dialog.questions.item(0, PROMPT).setText("How many pens are on the desk?")
    dialog.questions.item(0, ANSWER).setText("seven")
    assert any("count" in p for p in dialog.current_problems)
    dialog.questions.item(0, ANSWER).setText("7")
    assert dialog.current_problems == []
    dialog.save()
    spec = json.loads((root / "cases" / "small" / "spec.json").read_text())
    assert spec["questions"][0]["eval_type"] == "count_exact"
    assert spec["generation_mode"] == "single_image"


def test_the_chosen_photos_show_as_thumbnails_and_the_questions_read_as_words(
    qtbot, window: MainWindow, tmp_path: Path, photos: dict[str, Path]
) -> None:
    """No {source_entity} in the questions: the attribute's name until it is typed, then
    what was typed; each photo chosen shows on its button, small."""
    root = init_project(tmp_path / "study", primer="context")
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=5000)
    dialog = NewCaseDialog(window.project, window)
    qtbot.addWidget(dialog)
    table = dialog.questions
    shown = [table.item(r, PROMPT).text() for r in range(table.rowCount())]
    assert shown[0] == "Is there a ‹source entity› in the image?"
    assert not any("{" in text for text in shown)
    dialog.attribute_edits["source_entity"].setText("stapler")
    assert table.item(0, PROMPT).text() == "Is there a stapler in the image?"
    assert dialog.draft.questions[0].prompt == "Is there a {source_entity} in the image?"
    dialog.attribute_edits["source_entity"].setText("pen")  # still follows the attribute
    assert table.item(0, PROMPT).text() == "Is there a pen in the image?"

    assert dialog.photos[ImageRole.BASE].thumbnail is None
    dialog.set_image(ImageRole.BASE, photos["desk_base"])
    thumbnail = dialog.photos[ImageRole.BASE].thumbnail
    assert thumbnail is not None and (thumbnail.width(), thumbnail.height()) == (96, 72)
    assert thumbnail.pixelColor(48, 36).getRgb()[:3] == (200, 180, 150)  # that photo
    assert not dialog.photos[ImageRole.BASE].icon().isNull()


def test_each_probe_id_shows_whole_in_the_question_table(
    qtbot, window: MainWindow, tmp_path: Path
) -> None:
    """A primer's probe ids (component_count_…) are not cut to "component_c…": the Probe
    column is as wide as its longest id."""
    root = init_project(tmp_path / "study", primer="attribute")
    assert window.open_project(root)
    qtbot.waitUntil(lambda: not window.project.indexing, timeout=5000)
    dialog = NewCaseDialog(window.project, window)
    qtbot.addWidget(dialog)
    dialog.resize(960, 600)
    dialog.show()
    qtbot.wait(20)
    table = dialog.questions
    assert table.rowCount() >= 1
    ids = [table.item(row, PROBE).text() for row in range(table.rowCount())]
    assert any(len(probe_id) > 12 for probe_id in ids)  # one longer than the column's start
    # as wide as the cells need: the delegate's own measure of the widest id
    assert table.sizeHintForColumn(PROBE) <= table.columnWidth(PROBE), ids
