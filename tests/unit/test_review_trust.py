"""A review file is data from elsewhere: it can name no file outside its case, speak for
no other reviewer or case, and carry no answer the spec's rules forbid."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import png_bytes

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.repair import repairs
from sabre_desk.core.team.final import all_reviews, final_decision
from sabre_desk.ground.errors import RepairError, ReviewError
from sabre_desk.imaging.io import encode_png, load_image


def _review(case_id: str, reviewer: str, **fields: object) -> dict:
    return {"case_id": case_id, "reviewer": reviewer, **fields}


def _repair(status: str, preview: str, backup: str | None = None) -> dict:
    return {
        "id": "r1",
        "image_role": "edited",
        "op": "remove",
        "engine": "opencv-telea",
        "box": [0.1, 0.1, 0.5, 0.5],
        "preview": preview,
        "status": status,
        "backup": backup,
    }


def _write(folder: Path, name: str, data: dict) -> Path:
    (folder / "reviews").mkdir(exist_ok=True)
    path = folder / "reviews" / name
    path.write_text(json.dumps(data))
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("record", "field"),
    [
        (_repair("preview", "/etc/passwd"), "preview"),
        (_repair("preview", "repairs/../../../outside.png"), "preview"),
        (_repair("accepted", "repairs/x.png", "../../../outside.txt"), "backup"),
        (_repair("accepted", "repairs/x.png", "/tmp/base.png"), "backup"),
    ],
)
def test_a_repair_record_naming_a_file_outside_the_case_is_refused(
    make_project: Callable, add_case: Callable, record: dict, field: str
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    _write(folder, "alice.json", _review("c1", "alice", repairs=[record]))
    before = {p.name: _digest(p) for p in folder.glob("*.png")}
    with pytest.raises(ReviewError) as info:
        Project.open(root, "alice").load_case("c1")
    assert field in info.value.reason and "left untouched" in info.value.reason
    assert {p.name: _digest(p) for p in folder.glob("*.png")} == before


def test_accept_refuses_a_preview_behind_a_linked_repairs_folder(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.png").write_bytes(png_bytes(color=(1, 2, 3)))
    (folder / "repairs").symlink_to(outside, target_is_directory=True)
    _write(
        folder,
        "alice.json",
        _review("c1", "alice", repairs=[_repair("preview", "repairs/secret.png")]),
    )
    edited = _digest(folder / "edited.png")
    project = Project.open(root, "alice")
    case = project.load_case("c1")
    with pytest.raises(RepairError) as info:
        repairs.accept(project, case, "r1")
    assert "outside the case" in info.value.reason
    assert _digest(folder / "edited.png") == edited


def test_revert_never_deletes_an_image_without_a_copy(
    make_project: Callable, add_case: Callable
) -> None:
    """Reverting to a JPEG backup replaces edited.png: the PNG is moved aside, not deleted."""
    root = make_project()
    folder = add_case(root, "c1")
    (folder / "repairs" / "backups").mkdir(parents=True)
    original = png_bytes(color=(9, 9, 9))
    (folder / "repairs" / "backups" / "edited__1.jpg").write_bytes(original)
    (folder / "repairs" / "p.png").write_bytes((folder / "edited.png").read_bytes())
    record = _repair("accepted", "repairs/p.png", "repairs/backups/edited__1.jpg")
    _write(folder, "alice.json", _review("c1", "alice", repairs=[record]))
    current = (folder / "edited.png").read_bytes()
    project = Project.open(root, "alice")
    case = project.load_case("c1")
    repairs.revert(project, case, "r1")
    assert (folder / "edited.jpg").read_bytes() == original
    assert not (folder / "edited.png").exists()
    kept = [p.read_bytes() for p in (folder / "repairs").rglob("*") if p.is_file()]
    assert current in kept  # the image that was shown still exists, set aside


def test_accept_sets_aside_a_second_image_of_the_same_role(
    make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    stray = png_bytes(color=(7, 7, 7))
    (folder / "edited.jpg").write_bytes(stray)  # a second edited image (another extension)
    project = Project.open(root, "alice")
    case = project.load_case("c1")
    pixels = load_image(case.images[ImageRole.EDITED])
    record, _ = repairs.save_preview(
        case,
        ImageRole.EDITED,
        encode_png(pixels),
        "opencv-telea",
        {"op": "remove", "box": (0.1, 0.1, 0.5, 0.5)},
    )
    repairs.add_preview(project, case, record)
    repairs.accept(project, case, record.id)
    assert not (folder / "edited.jpg").exists()
    kept = [p.read_bytes() for p in (folder / "repairs" / "backups").iterdir()]
    assert stray in kept


def test_another_reviewers_bad_answer_edit_is_reported_and_cannot_reach_a_release(
    make_project: Callable, add_case: Callable, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    _write(folder, "alice.json", _review("c1", "alice", decision="keep"))
    _write(
        folder,
        "bob.json",
        _review("c1", "bob", decision="keep", question_edits={"base_source": {"answer": "maybe"}}),
    )
    report = validate_project(Project.open(root, "alice"))
    (case,) = report.cases
    assert not case.valid
    assert any("bob.json" in p.file and "maybe" in p.reason for p in case.problems)
    assert main(["export", str(root), str(tmp_path / "rel"), "--reviewer", "alice"]) == 0
    assert (tmp_path / "rel" / "benchmark.jsonl").read_text() == ""  # the case waits
    left_out = [line for line in capsys.readouterr().out.splitlines() if "left out" in line]
    assert left_out and "bob.json" in left_out[0] and "maybe" in left_out[0]


def test_a_review_file_speaking_for_someone_else_is_ignored(
    make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    add_case(root, "c2")
    _write(folder, "alice.json", _review("c1", "alice", decision="keep"))
    _write(folder, "bob.json", _review("c1", "bob", decision="keep"))
    _write(
        folder,
        "mallory.json",
        _review(
            "c2",
            "alice",
            decision="base_invalid",
            adjudicated=True,
            question_edits={"base_source": {"answer": "no"}},
        ),
    )
    case = Project.open(root, "bob").load_case("c1")
    assert "mallory" not in case.other_reviews and "alice" in case.other_reviews
    assert any("mallory.json" in str(w.path) for w in case.warnings)
    decision, why = final_decision(all_reviews(case))
    assert decision is Decision.KEEP and "adjudicated" not in why
