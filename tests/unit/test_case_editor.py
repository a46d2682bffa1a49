"""The open case's editor, without Qt: proposals become before/after edits, edits apply and
undo, every change is announced, saved once, and refused with a reason where it must be."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import png_bytes

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.case_editor import Aspect, CaseEditor
from sabre_desk.core.desk.case_edits import BoxesEdit, DecisionEdit, Edit, NotesEdit


def open_editor(root: Path, case_id: str = "c1") -> CaseEditor:
    project = Project.open(root, "alice")
    return CaseEditor(project, project.load_case(case_id), Validity(project).check)


@pytest.fixture
def root(make_project, add_case) -> Path:
    root = make_project()
    add_case(root, "c1")
    add_case(root, "c2")
    return root


def saved(root: Path, case_id: str = "c1") -> dict:
    return json.loads((root / "cases" / case_id / "reviews" / "alice.json").read_text())


def test_a_decision_is_an_edit_that_applies_undoes_and_saves_once(root: Path) -> None:
    editor = open_editor(root)
    seen: list[object] = []
    editor.changed.connect(seen.append)
    editor.decided.connect(lambda d: seen.append(("decided", d)))
    editor.autosave_due.connect(lambda: seen.append("autosave"))
    edit = editor.decide(Decision.KEEP)
    assert isinstance(edit, DecisionEdit) and (edit.before, edit.after) == (None, Decision.KEEP)
    assert editor.review.decision is None  # a proposal changes nothing
    assert edit.redo(editor)
    assert editor.review.decision is Decision.KEEP and editor.dirty
    assert seen == ["autosave", Aspect.DECISION, ("decided", Decision.KEEP)]
    assert editor.save() and not editor.dirty
    assert saved(root)["decision"] == "keep"
    assert edit.undo(editor) and editor.review.decision is None
    assert editor.save() and saved(root)["decision"] is None
    history = (root / "cases" / "c1" / "history.jsonl").read_text().splitlines()
    assert [json.loads(line)["data"].get("undo", False) for line in history] == [False, True]
    assert editor.decide(None) is None  # nothing to do


def test_keep_is_refused_on_an_invalid_case_with_the_reason(make_project, add_case) -> None:
    root = make_project()
    add_case(root, "c1", images={"base.png": png_bytes(), "edited.png": png_bytes()[:60]})
    editor = open_editor(root)
    refused: list[str] = []
    editor.refused.connect(refused.append)
    assert editor.validity is None  # not checked yet: Keep checks it on the spot
    assert editor.decide(Decision.KEEP) is None
    assert refused and "edited.png" in refused[0] and "invalid" in refused[0]
    assert editor.validity is not None and not editor.validity.valid
    assert isinstance(editor.decide(Decision.EDIT_FAILED), DecisionEdit)


def test_box_edits_say_what_to_select_and_nudges_merge(root: Path) -> None:
    editor = open_editor(root)
    focus: list[tuple[ImageRole, int]] = []
    editor.box_focus.connect(lambda role, i: focus.append((role, i)))
    add = editor.add_box(ImageRole.EDITED, (0.1, 0.1, 0.3, 0.3), "defect")
    assert add.redo(editor) and focus[-1] == (ImageRole.EDITED, 0)  # the new box selected
    first = editor.change_box(ImageRole.EDITED, 0, (0.11, 0.1, 0.31, 0.3), nudge=True)
    second = editor.change_box(ImageRole.EDITED, 0, (0.12, 0.1, 0.32, 0.3), nudge=True)
    assert isinstance(first, BoxesEdit) and isinstance(second, BoxesEdit)
    assert first.redo(editor) and first.absorb(second) and second.redo(editor)
    assert first.undo(editor)  # one step back over both nudges
    assert editor.review.boxes[0].box == (0.1, 0.1, 0.3, 0.3)
    delete = editor.remove_box(ImageRole.EDITED, 0)
    assert delete is not None and delete.redo(editor) and focus[-1] == (ImageRole.EDITED, -1)
    assert delete.undo(editor) and focus[-1] == (ImageRole.EDITED, 0)  # it comes back selected
    mirror = editor.mirror_box(ImageRole.EDITED, 0)
    assert mirror is not None and mirror.redo(editor)
    assert [b.image_role for b in editor.review.boxes] == [ImageRole.EDITED, ImageRole.BASE]


def test_typing_is_one_undo_step_and_a_bad_answer_is_refused(root: Path) -> None:
    editor = open_editor(root)
    first, second = editor.write_notes("half"), NotesEdit("Edit notes", "half", "half a thought")
    assert isinstance(first, NotesEdit) and first.absorb(second)
    assert first.redo(editor) and editor.review.notes == "half a thought"
    probe = editor.case.spec.questions[0].probe_id
    assert editor.edit_question(probe, answer="maybe") == (
        f"{probe}: answer: a yes_no answer is 'yes' or 'no', not 'maybe'"
    )
    change = editor.edit_question(probe, answer="no")
    assert isinstance(change, Edit) and change.redo(editor)
    assert editor.review.question_edits[probe].answer == "no"


def test_each_case_has_its_own_messages_and_a_read_only_project_refuses(root: Path) -> None:
    one = open_editor(root, "c1")
    one.say("select or draw a box first")
    two = open_editor(root, "c2")
    assert one.messages == ["select or draw a box first"] and two.messages == []
    project = Project.open(root, "alice")
    project.read_only = True
    editor = CaseEditor(project, project.load_case("c1"))
    failed: list[str] = []
    editor.failed.connect(failed.append)
    assert editor.decide(Decision.UNSURE) is None and "read-only" in failed[0]
    assert not (root / "cases" / "c1" / "reviews").exists()
