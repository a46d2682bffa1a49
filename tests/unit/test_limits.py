"""What sabre-desk writes, it reads back: one table of limits, held before every write.

A reviewer who pastes a long text into Notes must never save a case they can no longer
open; a review an earlier version wrote past a limit opens, cut, with nothing lost.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from factories import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sabre_desk.core.case.assignments import Assignments, read_assignments, write_assignments
from sabre_desk.core.case.project import Project, write_review_file
from sabre_desk.core.case.review import Box, QuestionEdit, RepairRecord, Review, validate_review
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.engines.ops import RepairOp
from sabre_desk.ground import limits
from sabre_desk.ground.errors import ReviewError, StorageError
from sabre_desk.ground.storage import append_history, read_history


def open_editor(root: Path, case_id: str = "c1") -> CaseEditor:
    project = Project.open(root, "alice")
    return CaseEditor(project, project.load_case(case_id), Validity(project).check)


@pytest.fixture
def root(make_project, add_case) -> Path:
    root = make_project()
    add_case(root, "c1")
    return root


def review_path(root: Path) -> Path:
    return root / "cases" / "c1" / "reviews" / "alice.json"


def test_notes_past_the_limit_are_refused_in_words_and_the_case_opens_again(root: Path) -> None:
    editor = open_editor(root)
    failed: list[str] = []
    editor.failed.connect(failed.append)
    assert editor.write_notes("x" * 25_000) is None
    assert failed == [
        "Not taken: Notes can hold at most 20,000 characters; this has 25,000 (5,000 too many)."
    ]
    full = editor.write_notes("y" * 20_000)  # exactly the limit is taken
    assert full is not None and full.redo(editor) and editor.save()
    again = open_editor(root)
    assert again.review.notes == "y" * 20_000 and again.case.warnings == []


def test_a_box_label_and_a_question_past_their_limits_are_refused(root: Path) -> None:
    editor = open_editor(root)
    failed: list[str] = []
    editor.failed.connect(failed.append)
    assert editor.add_box(ImageRole.EDITED, (0.1, 0.1, 0.3, 0.3), "l" * 201) is None
    assert "A box label can hold at most 200 characters; this has 201" in failed[-1]
    probe = editor.case.spec.questions[0].probe_id
    refusal = editor.edit_question(probe, prompt="q" * 2_001)
    assert refusal == (
        f"{probe}: A question can hold at most 2,000 characters; this has 2,001 (1 too many)"
    )


def test_the_writer_refuses_a_review_its_reader_would_refuse_and_keeps_the_file(
    root: Path,
) -> None:
    editor = open_editor(root)
    edit = editor.write_notes("kept")
    assert edit is not None and edit.redo(editor) and editor.save()
    before = review_path(root).read_bytes()
    editor.review.notes = "z" * 25_000  # assigned past every check, as a caller might
    failed: list[str] = []
    editor.failed.connect(failed.append)
    editor.dirty = True
    assert not editor.save()
    assert "notes: String should have at most 20000 characters" in failed[0]
    assert "the previous version is unchanged" in failed[0]
    assert review_path(root).read_bytes() == before
    assert open_editor(root).review.notes == "kept"


def test_a_review_written_past_a_limit_opens_cut_with_the_rest_kept_beside_it(
    root: Path,
) -> None:
    editor = open_editor(root)
    edit = editor.write_notes("first")
    assert edit is not None and edit.redo(editor) and editor.save()
    data = json.loads(review_path(root).read_text())
    data["notes"] = "n" * 20_000 + "the rest" * 625  # as an earlier version wrote it
    review_path(root).write_text(json.dumps(data))
    raw = review_path(root).read_bytes()

    opened = open_editor(root)
    assert opened.review.notes == "n" * 20_000
    [note] = opened.case.warnings
    assert "notes had 25,000 characters; cut at the limit of 20,000" in note.reason
    sides = sorted((root / "cases" / "c1" / "reviews").glob("alice.json.over-limit-*"))
    assert len(sides) == 1 and f"reviews/{sides[0].name}" in note.reason
    assert sides[0].read_bytes() == raw  # nothing lost: the whole file, as it was
    assert open_editor(root).case.warnings[0].reason == note.reason  # one copy, not two
    assert len(list(sides[0].parent.glob("alice.json.over-limit-*"))) == 1

    more = opened.write_notes(opened.review.notes[:-5] + "done.")
    assert more is not None and more.redo(opened) and opened.save()
    reopened = open_editor(root)
    assert reopened.review.notes.endswith("done.") and reopened.case.warnings == []
    assert sides[0].read_bytes() == raw


def test_a_read_only_project_shows_the_cut_and_writes_nothing(root: Path) -> None:
    path = review_path(root)
    path.parent.mkdir()
    data = Review.empty("c1", "alice").model_dump(mode="json")
    path.write_text(json.dumps(data | {"notes": "r" * 20_001}))
    project = Project.open(root, "alice")
    project.read_only = True
    case = project.load_case("c1")
    assert case.review.notes == "r" * 20_000
    assert "read-only" in case.warnings[0].reason
    assert [p.name for p in path.parent.iterdir()] == ["alice.json"]


def test_a_review_with_another_problem_still_stops_the_case_untouched(root: Path) -> None:
    path = review_path(root)
    path.parent.mkdir()
    data = Review.empty("c1", "alice").model_dump(mode="json")
    path.write_text(json.dumps(data | {"notes": "r" * 20_001, "decision": "maybe"}))
    with pytest.raises(ReviewError, match="left untouched"):
        Project.open(root, "alice").load_case("c1")
    assert [p.name for p in path.parent.iterdir()] == ["alice.json"]


# --- every writer: up to its limit it round-trips, past it nothing is written ------------

#: each field a reviewer writes, how to put a text into a review, and its limit
FIELDS = {
    "notes": (limits.NOTES, lambda r, t: setattr(r, "notes", t)),
    "box label": (
        limits.BOX_LABEL,
        lambda r, t: r.boxes.append(
            Box.model_construct(image_role=ImageRole.BASE, label=t, box=(0.1, 0.1, 0.2, 0.2))
        ),
    ),
    "question": (
        limits.QUESTION,
        lambda r, t: r.question_edits.update(p1=QuestionEdit.model_construct(prompt=t)),
    ),
    "answer": (
        limits.ANSWER,
        lambda r, t: r.question_edits.update(p1=QuestionEdit.model_construct(answer=t)),
    ),
    "repair instruction": (
        limits.TEXT,
        lambda r, t: r.repairs.append(
            RepairRecord.model_construct(
                id="r1",
                image_role=ImageRole.EDITED,
                op=RepairOp.CLEAN,
                engine="opencv",
                model=None,
                instruction=t,
                box=(0.1, 0.1, 0.2, 0.2),
                preview="repairs/r1.png",
                status="preview",
                backup=None,
                created_at=None,
                decided_at=None,
                warnings=[],
                seam=None,
            )
        ),
    ),
}

#: text of every kind: control characters (escaped in JSON), letters of other scripts,
#: characters outside the BMP (4 bytes in UTF-8, 2 code units in Qt)
PIECES = st.text(
    alphabet=st.sampled_from(["a", " ", "\n", "\x01", '"', "\\", "é", "字", "😀"]),
    min_size=1,
    max_size=8,
)


def text_of(piece: str, size: int) -> str:
    return (piece * (size // len(piece) + 1))[:size]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(sorted(FIELDS)), over=st.integers(-3, 3), piece=PIECES)
def test_every_review_field_round_trips_up_to_its_limit_and_past_it_writes_nothing(
    field: str, over: int, piece: str
) -> None:
    limit, put = FIELDS[field]
    text = text_of(piece, limit.most + over)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reviews" / "alice.json"
        first = write_review_file(path, Review.empty("c1", "alice"), None)
        before = path.read_bytes()
        review = Review.empty("c1", "alice")
        put(review, text)
        if over > 0:
            with pytest.raises(ReviewError, match="not written"):
                write_review_file(path, review, first)
            assert path.read_bytes() == before
            return
        write_review_file(path, review, first)
        back = validate_review(json.loads(path.read_text("utf-8")), path, "c1")
        assert back.model_dump(mode="json") == review.model_dump(mode="json")


@settings(max_examples=40, deadline=None)
@given(piece=PIECES, extra=st.integers(-16, 16))
def test_history_entries_round_trip_up_to_their_limit_and_past_it_add_nothing(
    piece: str, extra: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.jsonl"
        append_history(path, {"event": "first"})
        before = path.read_bytes()
        entry = {"event": "notes", "data": {"to": ""}}
        frame = len(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
        room = limits.HISTORY_LINE.most - frame + extra
        unit = len(json.dumps(piece, ensure_ascii=False).encode()) - 2  # bytes in the line
        entry["data"]["to"] = piece * (room // unit + (1 if extra > 0 else 0))
        size = len(json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode())
        if size > limits.HISTORY_LINE.most:
            with pytest.raises(StorageError, match="at most 262,144 bytes"):
                append_history(path, entry)
            assert path.read_bytes() == before
            return
        append_history(path, entry)
        history = read_history(path)
        assert history.problems == [] and history.entries[-1] == entry


def test_two_notes_at_their_limit_always_fit_one_history_line() -> None:
    worst = "\x01" * limits.NOTES.most  # six bytes each in JSON
    entry = {"at": "2026-01-01T00:00:00Z", "reviewer": "a" * 64, "event": "notes"}
    line = json.dumps(entry | {"data": {"from": worst, "to": worst, "undo": True}})
    assert len(line.encode()) <= limits.HISTORY_LINE.most


@settings(max_examples=30, deadline=None)
@given(over=st.integers(-2, 2), letter=st.sampled_from(["a", "Z", "7"]))
def test_assignments_round_trip_up_to_the_name_limit_and_past_it_write_nothing(
    over: int, letter: str
) -> None:
    name = letter * (limits.ID.most + over)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_assignments(root, Assignments(reviewers=["ana"], cases={"c1": ["ana"]}))
        before = (root / "assignments.json").read_bytes()
        # assigned past the model's checks, as a caller copying fields might
        made = Assignments.model_construct(reviewers=["ana", name], cases={"c1": [name]})
        if over > 0:
            with pytest.raises(StorageError, match=r"not written: .*use 1-128 letters"):
                write_assignments(root, made)
            assert (root / "assignments.json").read_bytes() == before
            return
        write_assignments(root, made)
        assert read_assignments(root) == Assignments.model_validate(made.model_dump())


def test_the_repair_command_refuses_a_long_instruction_before_making_any_file(
    root: Path, tmp_path: Path
) -> None:
    case = root / "cases" / "c1"
    before = sorted(p.name for p in case.iterdir())
    args = ("repair", str(root), "c1", "--box", "0.1,0.1,0.2,0.2")
    done = run_cli(*args, "--instruction", "i" * 25_000, home=tmp_path / "home")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert (
        "--instruction: A repair instruction can hold at most 20,000 characters; "
        "this has 25,000 (5,000 too many)"
    ) in done.stderr
    assert sorted(p.name for p in case.iterdir()) == before  # no preview, no review
