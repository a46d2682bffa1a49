"""`sabre-desk merge PROJECT COPY`: a reviewer's work on a copy of the project (a train
ride) taken back into it, losing no byte of either side, and a second merge changing
nothing."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import png_bytes, write_review

from sabre_desk.cli import main


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--reviewer", "lead"])
    out = capsys.readouterr()
    return code, out.out, out.err


def event(folder: Path, reviewer: str, at: str, kind: str, data: dict[str, object]) -> None:
    line = {"at": at, "reviewer": reviewer, "event": kind, "data": data}
    with (folder / "history.jsonl").open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def decide(folder: Path, reviewer: str, decision: str, at: str, notes: str = "") -> None:
    write_review(folder, reviewer, decision, at=at, notes=notes)
    event(folder, reviewer, at, "decision", {"from": None, "to": decision})


def accept_repair(folder: Path, reviewer: str, at: str, color: tuple[int, int, int]) -> None:
    """What accepting a repair leaves on disk: the old image in repairs/backups/, the
    repaired one in its place, the preview, the record and the event."""
    stamp = at.replace("-", "").replace(":", "")
    backups = folder / "repairs" / "backups"
    backups.mkdir(parents=True, exist_ok=True)
    backup = f"edited__{stamp}.png"
    shutil.move(folder / "edited.png", backups / backup)
    preview = f"{folder.name}__{stamp}__opencv-telea__repaired.png"
    (folder / "repairs" / preview).write_bytes(png_bytes(color=color))
    (folder / "edited.png").write_bytes(png_bytes(color=color))
    record = {
        "id": "r1", "image_role": "edited", "op": "remove", "engine": "opencv-telea",
        "box": [0.1, 0.1, 0.5, 0.5], "preview": f"repairs/{preview}", "status": "accepted",
        "backup": f"repairs/backups/{backup}", "created_at": at, "decided_at": at,
    }  # fmt: skip
    write_review(folder, reviewer, "needs_recheck", at=at, repairs=[record])
    event(folder, reviewer, at, "repair_accepted", {"id": "r1"})


def every_file(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
        if p.is_file() and ".sabre-desk" not in p.parts and not p.name.startswith(".")
    }


def all_bytes(root: Path) -> set[str]:
    """Every review, image and repair file's bytes, and every history event (a history
    file is merged event by event, so its events count, not its bytes)."""
    out: set[str] = set()
    for path in root.rglob("*"):
        if path.name == "history.jsonl":
            out |= {
                json.dumps(json.loads(x), sort_keys=True) for x in path.read_text().splitlines()
            }
        elif path.is_file():
            out.add(hashlib.sha256(path.read_bytes()).hexdigest())
    return out


@pytest.fixture
def parted(make_project: Callable[..., Path], add_case: Callable[..., Path]) -> tuple[Path, Path]:
    """A project and a copy of it, each worked on after they parted."""
    root = make_project("proj")
    for case_id in ("c00", "c01", "c02"):
        add_case(root, case_id)
    decide(root / "cases" / "c00", "alice", "keep", "2026-11-29T10:00:00Z")
    copy = Path(shutil.copytree(root, root.parent / "train-copy"))
    # on the train, alice: a new decision, a changed one, an accepted repair
    decide(copy / "cases" / "c02", "alice", "keep", "2026-11-30T09:00:00Z")
    decide(copy / "cases" / "c00", "alice", "unsure", "2026-11-30T09:05:00Z", notes="tram")
    accept_repair(copy / "cases" / "c01", "alice", "2026-11-30T09:10:00Z", (10, 200, 10))
    # at home, bob decides too, and alice's c00 review is also changed at home
    decide(root / "cases" / "c02", "bob", "edit_failed", "2026-11-30T08:00:00Z")
    decide(root / "cases" / "c00", "alice", "base_invalid", "2026-11-30T08:30:00Z")
    return root, copy


def test_merge_takes_the_copys_work_keeps_both_versions_of_a_review_changed_on_both_sides(
    parted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, copy = parted
    before_copy = every_file(copy)
    before_bytes = all_bytes(root) | all_bytes(copy)

    code, out, _ = run(capsys, "merge", str(root), str(copy), "--dry-run")
    assert code == 0 and "would take back" in out and "nothing was written" in out
    assert not (root / ".sabre-desk").exists()

    code, out, err = run(capsys, "merge", str(root), str(copy))
    assert code == 0, err
    c00, c01, c02 = (root / "cases" / c for c in ("c00", "c01", "c02"))
    # a review only the copy has is taken; bob's work at home stays
    assert json.loads((c02 / "reviews" / "alice.json").read_text())["decision"] == "keep"
    assert json.loads((c02 / "reviews" / "bob.json").read_text())["decision"] == "edit_failed"
    # changed on both sides: the project's stays, the copy's is beside it
    assert json.loads((c00 / "reviews" / "alice.json").read_text())["decision"] == "base_invalid"
    (side,) = (c00 / "reviews").glob("alice.merge-conflict-*.json")
    assert json.loads(side.read_text())["decision"] == "unsure"
    # the accepted repair: the copy's image, the old one kept in backups
    assert (c01 / "edited.png").read_bytes() == (copy / "cases/c01/edited.png").read_bytes()
    assert (c01 / "reviews" / "alice.json").exists()
    # history: a union in time order, no duplicates
    lines = (c02 / "history.jsonl").read_text().splitlines()
    assert [json.loads(x)["reviewer"] for x in lines] == ["bob", "alice"]
    assert len(set((c00 / "history.jsonl").read_text().splitlines())) == 3
    # the report says it in stats' words
    assert "conflict(s) to settle" in out and "(counts; 'me' is lead)" in out
    assert "per reviewer:" in out
    # no byte of either side is lost, and the copy was never written
    assert before_bytes <= all_bytes(root)
    assert every_file(copy) == before_copy

    # a second merge changes nothing
    after = every_file(root)
    code, out, _ = run(capsys, "merge", str(root), str(copy))
    assert code == 0 and "nothing to take back" in out
    assert every_file(root) == after


def test_merge_back_into_the_copy_loses_nothing_and_settles_to_the_same_work(
    parted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, copy = parted
    everything = all_bytes(root) | all_bytes(copy)
    assert run(capsys, "merge", str(root), str(copy))[0] == 0
    assert run(capsys, "merge", str(copy), str(root))[0] == 0
    assert everything <= all_bytes(copy) and everything <= all_bytes(root)
    for rel in ("cases/c00/reviews/alice.json", "cases/c01/edited.png", "cases/c02/history.jsonl"):
        assert (root / rel).read_bytes() == (copy / rel).read_bytes()
    code, out, _ = run(capsys, "merge", str(copy), str(root))
    assert code == 0 and "nothing to take back" in out


def test_both_sides_replacing_one_image_keeps_the_projects_and_waits_with_the_copys(
    parted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, copy = parted
    accept_repair(root / "cases" / "c01", "bob", "2026-11-30T07:00:00Z", (90, 90, 250))
    mine = (root / "cases/c01/edited.png").read_bytes()
    code, out, _ = run(capsys, "merge", str(root), str(copy), "--json")
    assert code == 0
    report = json.loads(out)
    (waiting,) = [s for s in report["steps"] if s["kind"] == "image_conflict"]
    assert "decide which stays" in waiting["why"]
    assert (root / "cases/c01/edited.png").read_bytes() == mine
    theirs = (copy / "cases/c01/edited.png").read_bytes()
    assert (root / waiting["file"]).read_bytes() == theirs
    # a repair waiting on the case in alice's review, marked for a decision
    alice = json.loads((root / "cases/c01/reviews/alice.json").read_text())
    (record,) = [r for r in alice["repairs"] if r["status"] == "preview"]
    assert record["preview"] == waiting["file"].removeprefix("cases/c01/")
    assert "decide which stays" in record["merge"]
    from sabre_desk.core.case.project import Project

    case = Project.open(root, "alice").load_case("c01")
    assert [r.status for r in case.review.repairs] == ["accepted", "preview"]
    # a second merge changes nothing
    after = every_file(root)
    code, out, _ = run(capsys, "merge", str(root), str(copy))
    assert code == 0 and "nothing to take back" in out and every_file(root) == after
    assert report["counts"]["cases"] == 3  # the report carries stats' counts


def test_a_folder_of_another_project_is_refused_and_nothing_changes(
    parted: tuple[Path, Path], make_project: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = parted
    other = make_project("other")
    before = every_file(root)
    code, _, err = run(capsys, "merge", str(root), str(other))
    assert code != 0 and "is another project" in err and str(other) in err
    assert every_file(root) == before


def test_a_file_of_the_copy_that_cannot_be_read_is_named_and_nothing_changes(
    parted: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    root, copy = parted
    unreadable = copy / "cases" / "c02" / "reviews" / "alice.json"
    unreadable.chmod(0)
    if os.access(unreadable, os.R_OK):
        pytest.skip("files are readable whatever their mode here (root)")
    before = every_file(root)
    code, _, err = run(capsys, "merge", str(root), str(copy))
    assert code != 0 and str(unreadable) in err and "nothing was changed" in err
    assert every_file(root) == before
