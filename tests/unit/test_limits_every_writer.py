"""Every writer holds the one table of limits: up to a limit a value round-trips through its
reader exactly, past it nothing is written (the file on disk unchanged). Lists count too:
a review's boxes, question edits, checklist and repairs; a team; a study; an audit."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from factories import write_review
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sabre_desk.core.case.manifest import read_manifest
from sabre_desk.core.case.project import Project, write_review_file
from sabre_desk.core.case.review import Box, QuestionEdit, RepairRecord, Review, validate_review
from sabre_desk.core.case.screening import (
    SCREENING_NAME,
    ProbeResult,
    ScreeningRun,
    append_run,
    read_record,
)
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.core.release.audit import AUDIT_NAME, read_flags
from sabre_desk.core.release.audit_file import excerpt, write_audit
from sabre_desk.core.repair.study import Pick, Session, Study, StudyQuestion, _read_model
from sabre_desk.core.team.merge import MergeError, merge_copy
from sabre_desk.core.team.team import write_team_settings
from sabre_desk.engines.ops import RepairOp
from sabre_desk.ground import limits
from sabre_desk.ground.errors import ProjectError, ReviewError, ScreeningError, StorageError
from sabre_desk.ground.storage import atomic_write_model

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OVER = st.integers(-2, 2)
EMPTY_REVIEW = Review.empty("c1", "alice")


def _box(i: int) -> Box:
    return Box.model_construct(image_role=ImageRole.BASE, label=f"b{i}", box=(0.1, 0.1, 0.2, 0.2))


def _repair(i: int, warnings: list[str] | None = None) -> RepairRecord:
    return RepairRecord.model_construct(
        id=f"r{i}",
        image_role=ImageRole.EDITED,
        op=RepairOp.CLEAN,
        engine="opencv",
        model=None,
        instruction="",
        box=(0.1, 0.1, 0.2, 0.2),
        preview=f"repairs/r{i}.png",
        status="preview",
        backup=None,
        created_at=None,
        decided_at=None,
        warnings=warnings or [],
        seam=None,
    )


#: each counted or keyed field of a review: how to fill it with n items (or an n-long key)
REVIEW_ITEMS: dict[str, tuple[limits.Limit, Callable[[Review, int], None]]] = {
    "boxes": (limits.BOXES, lambda r, n: r.boxes.extend(_box(i) for i in range(n))),
    "question edits": (
        limits.QUESTION_EDITS,
        lambda r, n: r.question_edits.update(
            {f"p{i}": QuestionEdit.model_construct(prompt="q", answer=None) for i in range(n)}
        ),
    ),
    "checklist": (
        limits.CHECKLIST,
        lambda r, n: r.checklist.update({f"edited:t{i}": True for i in range(n)}),
    ),
    "checklist key": (
        limits.CHECKLIST_ITEM,
        lambda r, n: r.checklist.update({"edited:" + "k" * (n - 7): True}),
    ),
    "repairs": (limits.REPAIRS, lambda r, n: r.repairs.extend(_repair(i) for i in range(n))),
    "repair warnings": (
        limits.REPAIR_WARNINGS,
        lambda r, n: r.repairs.append(_repair(1, ["w"] * n)),
    ),
    "repair warning": (
        limits.REPAIR_WARNING,
        lambda r, n: r.repairs.append(_repair(1, ["w" * n])),
    ),
}


@SETTINGS
@given(field=st.sampled_from(sorted(REVIEW_ITEMS)), over=OVER)
def test_every_list_of_a_review_round_trips_up_to_its_count_and_past_it_writes_nothing(
    field: str, over: int
) -> None:
    limit, fill = REVIEW_ITEMS[field]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reviews" / "alice.json"
        first = write_review_file(path, EMPTY_REVIEW.model_copy(deep=True), None)
        before = path.read_bytes()
        review = Review.empty("c1", "alice")
        fill(review, limit.most + over)
        if over > 0:
            with pytest.raises(ReviewError, match="not written"):
                write_review_file(path, review, first)
            assert path.read_bytes() == before
            return
        write_review_file(path, review, first)
        back = validate_review(json.loads(path.read_text("utf-8")), path, "c1")
        assert back.model_dump(mode="json") == review.model_dump(mode="json")


@SETTINGS
@given(over=OVER, which=st.sampled_from(["reviewers", "adjudicators", "name"]))
def test_team_settings_round_trip_up_to_their_limits_and_past_them_write_nothing(
    over: int, which: str
) -> None:
    if which == "name":  # one reviewer whose name is at or past the id limit
        names = ["r" * (limits.ID.most + over)]
    else:
        names = [f"r{i}" for i in range(limits.TEAM.most + over)]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        manifest = root / "sabre-project.json"
        manifest.write_text(json.dumps({"format": "sabre-desk-project", "version": 2, "name": "p"}))
        before = manifest.read_bytes()
        key = "reviewers" if which == "name" else which
        if over > 0:
            with pytest.raises(StorageError, match=r"not saved: .*previous version is unchanged"):
                write_team_settings(root, {key: names})
            assert manifest.read_bytes() == before
            return
        write_team_settings(root, {key: names})
        assert getattr(read_manifest(root), key) == names


def _study(questions: int, instruction: str) -> Study:
    question = StudyQuestion(
        case_id="c1",
        image_role=ImageRole.EDITED,
        box=(0.1, 0.1, 0.2, 0.2),
        original="01_c1.png",
        candidates={m: f"01_c1__{m}.png" for m in ("soft", "hard", "whole", "inpaint")},
    )
    return Study.model_construct(
        format="sabre-desk-study",
        version=1,
        name="pilot",
        created_at="2026-01-01T00:00:00Z",
        engine="opencv",
        instruction=instruction,
        methods=["soft", "hard", "whole", "inpaint"],
        questions=[question] * questions,
    )


@SETTINGS
@given(
    over=OVER,
    which=st.sampled_from(["study questions", "study instruction", "picks", "participant"]),
)
def test_a_study_and_its_sessions_round_trip_up_to_their_limits_and_past_them_write_nothing(
    over: int, which: str
) -> None:
    model: Study | Session
    if which == "study questions":
        model = _study(limits.STUDY_QUESTIONS.most + over, "clean it")
    elif which == "study instruction":
        model = _study(1, "i" * (limits.INSTRUCTION.most + over))
    elif which == "picks":
        pick = Pick(question=0, shown=["soft"], chosen="soft", at="2026-01-01T00:00:00Z")
        model = Session.model_construct(
            participant="ana", started_at="x", picks=[pick] * (limits.STUDY_QUESTIONS.most + over)
        )
    else:
        model = Session.model_construct(
            participant="a" * (limits.ID.most + over), started_at="x", picks=[]
        )
    kind = "manifest" if isinstance(model, Study) else "review"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "study.json"
        path.write_text("{}")
        if over > 0:
            with pytest.raises(StorageError, match="not written"):
                atomic_write_model(path, model, kind)
            assert path.read_text() == "{}"
            return
        atomic_write_model(path, model, kind)
        back = _read_model(path, kind, type(model))
        assert back.model_dump(mode="json") == model.model_dump(mode="json")


@SETTINGS
@given(over=OVER, piece=st.sampled_from(["a", "é", "字"]))
def test_screening_runs_round_trip_up_to_the_answer_limit_and_past_it_add_nothing(
    over: int, piece: str
) -> None:
    text = piece * (limits.MODEL_ANSWER.most + over)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        append_run(folder, ScreeningRun(model="m", at="2026-01-01T00:00:00Z"))
        before = (folder / SCREENING_NAME).read_bytes()
        run = ScreeningRun(model="m", at="2026-01-02T00:00:00Z")
        run.results["p1"] = ProbeResult.model_construct(response=text)
        if over > 0:
            with pytest.raises(ScreeningError, match="not written"):
                append_run(folder, run)
            assert (folder / SCREENING_NAME).read_bytes() == before
            return
        append_run(folder, run)
        record = read_record(folder)
        assert record is not None and record.runs[-1].results["p1"].response == text


def _flag(answer: str, models: int = 2) -> dict[str, Any]:
    return {
        "question_id": "c1:p1",
        "case_id": "c1",
        "probe_id": "p1",
        "subset": "s",
        "question": "Is it a mug?",
        "reference": "yes",
        "agreed": "no",
        "answers": {f"m{i}": answer for i in range(models)},
        "flagged_at": "2026-01-01T00:00:00Z",
        "release_root_sha256": None,
    }


@SETTINGS
@given(over=OVER, which=st.sampled_from(["answer", "models"]))
def test_audit_flags_round_trip_up_to_their_limits_and_past_them_write_nothing(
    over: int, which: str
) -> None:
    if which == "answer":
        flag = _flag("n" * (limits.AUDIT_ANSWER.most + over))
    else:
        flag = _flag("no", limits.AUDIT_MODELS.most + over)
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        write_audit(root / AUDIT_NAME, [_flag("no")])
        before = (root / AUDIT_NAME).read_bytes()
        if over > 0:
            with pytest.raises(ProjectError, match="not written"):
                write_audit(root / AUDIT_NAME, [flag])
            assert (root / AUDIT_NAME).read_bytes() == before
            return
        write_audit(root / AUDIT_NAME, [flag])
        assert read_flags(root) == [flag]


def test_a_model_answer_past_the_audit_limit_is_kept_as_an_excerpt_within_it() -> None:
    long = "x" * 50_000
    kept = excerpt(long)
    assert kept is not None and len(kept) == limits.AUDIT_ANSWER.most
    assert kept.endswith("[cut: 50,000 characters; the whole answer is in its predictions file]")
    assert excerpt("yes") == "yes"


# --- the case editor refuses the item past a count, in words ----------------------------


def test_the_editor_refuses_a_box_and_a_tick_past_their_counts_in_words(
    make_project: Callable[..., Path], add_case: Callable[..., Path]
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    boxes = [
        {"image_role": "edited", "label": f"b{i}", "box": [0.1, 0.1, 0.2, 0.2]}
        for i in range(limits.BOXES.most)
    ]
    ticks = {f"edited:t{i}": True for i in range(limits.CHECKLIST.most)}
    write_review(folder, "alice", None, boxes=boxes, checklist=ticks)
    project = Project.open(root, "alice")
    editor = CaseEditor(project, project.load_case("c1"), Validity(project).check)
    failed: list[str] = []
    editor.failed.connect(failed.append)
    assert editor.add_box(ImageRole.EDITED, (0.3, 0.3, 0.4, 0.4), "one more") is None
    assert failed[-1] == "Not taken: A case's boxes can hold at most 1,000 items."
    assert editor.tick("edited:one more", True) is None
    assert failed[-1] == "Not taken: A review's checklist can hold at most 1,000 items."
    untick = editor.tick("edited:t0", False)  # taking one away is always allowed
    assert untick is not None


def test_a_review_written_with_too_many_boxes_opens_with_the_first_ones_and_keeps_the_rest(
    make_project: Callable[..., Path], add_case: Callable[..., Path]
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    boxes = [
        {"image_role": "edited", "label": f"b{i:04d}" + "l" * 300, "box": [0.1, 0.1, 0.2, 0.2]}
        for i in range(limits.BOXES.most + 5)
    ]
    path = write_review(folder, "alice", None, boxes=boxes)
    raw = path.read_bytes()
    case = Project.open(root, "alice").load_case("c1")
    assert [b.label for b in case.review.boxes] == [
        (f"b{i:04d}" + "l" * 300)[: limits.BOX_LABEL.most] for i in range(limits.BOXES.most)
    ]
    [note] = case.warnings
    assert "boxes had 1,005 items; the first 1,000 are kept" in note.reason
    assert "boxes.0.label had 305 characters; cut at the limit of 200 (and 999 more" in note.reason
    [side] = (folder / "reviews").glob("alice.json.over-limit-*")
    assert side.read_bytes() == raw


# --- merge: a copy's review is held to the same limits before it is written -------------


@pytest.fixture
def parted(make_project: Callable[..., Path], add_case: Callable[..., Path]) -> tuple[Path, Path]:
    root = make_project("proj")
    for case_id in ("c1", "c2"):
        add_case(root, case_id)
    copy = Path(shutil.copytree(root, root.parent / "copy"))
    add_case(copy, "c3")  # a case only the copy has
    return root, copy


def _every_file(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.name.startswith(".")
    }


def test_merge_takes_a_copys_over_long_review_cut_with_the_whole_one_beside_it(
    parted: tuple[Path, Path],
) -> None:
    root, copy = parted
    long_notes = "n" * 20_000 + "the rest" * 625
    for case_id in ("c1", "c3"):  # one the project has, one only the copy has
        write_review(copy / "cases" / case_id, "ana", "keep", notes=long_notes)
    raws = {c: (copy / "cases" / c / "reviews" / "ana.json").read_bytes() for c in ("c1", "c3")}
    result = merge_copy(root, copy)
    sides = [s for s in result.steps if ".over-limit-" in s.file]
    assert len(sides) == 2 and all("taken cut at the limit" in s.why for s in sides)
    for case_id in ("c1", "c3"):
        reviews = root / "cases" / case_id / "reviews"
        case = Project.open(root, "ana").load_case(case_id)
        assert case.review.notes == "n" * 20_000 and case.warnings == []
        [side] = reviews.glob("ana.json.over-limit-*")
        assert side.read_bytes() == raws[case_id]  # nothing lost
    assert merge_copy(root, copy).steps == []  # a second merge finds nothing to do


def test_merge_refuses_a_copys_review_the_reader_refuses_naming_it_and_writes_nothing(
    parted: tuple[Path, Path],
) -> None:
    root, copy = parted
    write_review(copy / "cases" / "c1", "ana", "keep")
    bad = write_review(copy / "cases" / "c2", "ana", "maybe")  # not a decision
    before = _every_file(root)
    with pytest.raises(MergeError, match="cannot be taken back: decision") as caught:
        merge_copy(root, copy)
    assert caught.value.path == bad and "nothing was changed" in caught.value.reason
    assert _every_file(root) == before
    write_review(copy / "cases" / "c2", "ana", "keep")  # the same merge, the copy put right
    assert {s.file for s in merge_copy(root, copy).steps} >= {
        "cases/c1/reviews/ana.json",
        "cases/c2/reviews/ana.json",
        "cases/c3",
    }
    assert Project.open(root, "ana").load_case("c2").review.decision is not None
