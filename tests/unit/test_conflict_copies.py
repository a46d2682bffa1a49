"""A synced drive's conflict copy beside a review, ``assignments.json`` or
``sabre-project.json``: the case stays valid, the copy never counts, ``validate`` and
``stats`` (text and --json) list it under its own heading, and settling keeps one version
and archives the other, never deleting a byte."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from sabre_desk.cli import main
from sabre_desk.core.case.binding import bind, image_hashes
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.team.conflict_copies import (
    HEADING,
    find_conflict_copies,
    settle_newest_first,
)

CASE = "ctx01_tape_bagel"

#: One conflict copy of ``alice.json`` per sync tool, as each names it.
COPIES = {
    "alice (conflicted copy 2026-11-29).json": "Dropbox",
    "alice (Alice's conflicted copy 2026-11-29).json": "Dropbox",
    "alice (conflicted copy 2026-11-29 120500).json": "Nextcloud",
    "alice_conflict-20261129-120500.json": "Nextcloud",
    "alice.sync-conflict-20261129-120500-ABCDEFG.json": "Syncthing",
    "alice-LAPTOP.json": "OneDrive",
    "alice-LAPTOP-2.json": "OneDrive",
    "alice (1).json": "Google Drive",
    "alice.merge-conflict-20261205T150700.json": "sabre-desk merge",
}


def _decide(root: Path, reviewer: str, decision: Decision) -> Path:
    project = Project.open(root, reviewer)
    case = project.load_case(CASE)
    bind(case.review, decision, image_hashes(case.images) or {})
    project.save_review(case)
    return case.review_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("name", list(COPIES), ids=list(COPIES))
def test_a_conflict_copy_leaves_the_case_valid_uncounted_and_listed(
    name: str, demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    review = _decide(demo_project, "alice", Decision.KEEP)
    copy = review.parent / name
    data = json.loads(review.read_text(encoding="utf-8"))
    copy.write_text(json.dumps({**data, "decision": "drop"}), encoding="utf-8")

    code, out = _run(capsys, "--reviewer", "alice", "validate", str(demo_project))
    assert code == 0, out
    assert "INVALID" not in out and "invalid reviewer file name" not in out
    assert f"{HEADING} (1" in out
    assert f"cases/{CASE}/reviews/{name}: a {COPIES[name]} copy of alice.json" in out

    code, out = _run(capsys, "--reviewer", "alice", "stats", str(demo_project))
    assert code == 0 and "decided by me 1" in out and "decided by anyone 1" in out, out
    assert f"cases/{CASE}/reviews/{name}" in out.split(HEADING, 1)[1]
    code, out = _run(capsys, "--reviewer", "alice", "stats", str(demo_project), "--json")
    (listed,) = json.loads(out)["conflict_copies"]
    assert listed == {
        "file": f"cases/{CASE}/reviews/{name}",
        "copy_of": f"cases/{CASE}/reviews/alice.json",
        "tool": COPIES[name],
    }
    code, out = _run(capsys, "--reviewer", "alice", "validate", str(demo_project), "--json")
    assert json.loads(out)["conflict_copies"] == [listed]


def test_a_reviewer_whose_name_looks_like_a_onedrive_copy_is_still_a_reviewer(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _decide(demo_project, "alice", Decision.KEEP)
    _decide(demo_project, "alice-bob", Decision.KEEP)
    assert find_conflict_copies(demo_project) == []
    _, out = _run(capsys, "--reviewer", "alice", "stats", str(demo_project))
    assert "decided by anyone 1" in out and HEADING not in out


def test_copies_of_the_project_s_own_files_are_listed(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = demo_project / "sabre-project.json"
    shutil.copy(manifest, demo_project / "sabre-project (conflicted copy 2026-11-29).json")
    (demo_project / "assignments.json").write_text("{}", encoding="utf-8")
    (demo_project / "assignments.sync-conflict-20261129-120500-ABCDEFG.json").write_text("{}")
    code, out = _run(capsys, "validate", str(demo_project))
    assert code == 0, out
    assert "sabre-project (conflicted copy 2026-11-29).json: a Dropbox copy of" in out
    assert "assignments.sync-conflict-20261129-120500-ABCDEFG.json: a Syncthing copy" in out


def test_settling_newest_first_keeps_the_newest_and_archives_the_rest(
    demo_project: Path,
) -> None:
    review = _decide(demo_project, "alice", Decision.KEEP)
    older = review.parent / "alice (1).json"
    newer = review.parent / "alice.sync-conflict-20261129-120500-ABCDEFG.json"
    data = json.loads(review.read_text(encoding="utf-8"))
    older.write_text(json.dumps({**data, "notes": "older"}), encoding="utf-8")
    newer.write_text(json.dumps({**data, "notes": "newest"}), encoding="utf-8")
    now = review.stat().st_mtime
    os.utime(older, (now - 100, now - 100))
    os.utime(newer, (now + 100, now + 100))
    before = {p.read_bytes() for p in review.parent.glob("*.json")}

    dry = settle_newest_first(demo_project, dry_run=True)
    assert dry.lines and "would keep" in dry.lines[0] and newer.exists() and older.exists()

    report = settle_newest_first(demo_project, dry_run=False, stamp="20261205T160000")
    assert "kept" in report.lines[0]
    assert json.loads(review.read_text(encoding="utf-8"))["notes"] == "newest"
    archived = {p.read_bytes() for p in (review.parent / ".archive").iterdir()}
    assert before <= archived | {review.read_bytes()}  # no version lost
    assert find_conflict_copies(demo_project) == []
    assert Project.open(demo_project, "alice").load_case(CASE).review.notes == "newest"


def test_merge_project_project_conflict_copies_settles_newest_first(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    review = _decide(demo_project, "alice", Decision.KEEP)
    copy = review.parent / "alice (conflicted copy 2026-11-29).json"
    data = json.loads(review.read_text(encoding="utf-8"))
    copy.write_text(json.dumps({**data, "notes": "newest"}), encoding="utf-8")
    now = review.stat().st_mtime
    os.utime(copy, (now + 100, now + 100))
    root = str(demo_project)

    code, out = _run(capsys, "merge", root, root, "--conflict-copies", "--dry-run")
    assert code == 0 and "would keep alice (conflicted copy 2026-11-29).json" in out, out
    assert copy.exists() and "nothing was written" in out
    code, out = _run(capsys, "merge", root, root, "--conflict-copies")
    assert code == 0 and "kept alice (conflicted copy 2026-11-29).json" in out, out
    assert not copy.exists() and json.loads(review.read_text())["notes"] == "newest"
    code, out = _run(capsys, "--reviewer", "alice", "validate", root)
    assert HEADING not in out
    code, out = _run(capsys, "merge", root, root, "--conflict-copies")
    assert code == 0 and "no conflict copies to settle" in out
