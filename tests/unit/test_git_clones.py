"""A project in git: three reviewers in three clones (decisions, notes, boxes, repair
previews on a shared case, accepted repairs on different cases) merge with `git merge`
without a conflict, and `stats` afterwards reports exactly each reviewer's decisions."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from sabre_desk.cli import main
from sabre_desk.core.case.git_files import write_git_files
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.case_editor import CaseEditor

pytestmark = pytest.mark.skipif(
    subprocess.run(["git", "--version"], capture_output=True).returncode != 0,
    reason="needs git",
)


def git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
        "HOME": str(folder), "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
    }  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=folder, capture_output=True, text=True, env=env, check=False
    )


def review(root: Path, reviewer: str, case_id: str, decision: Decision, notes: str) -> None:
    project = Project.open(root, reviewer)
    editor = CaseEditor(project, project.load_case(case_id), Validity(project).check)
    for edit in (
        editor.decide(decision),
        editor.write_notes(notes),
        editor.add_box(ImageRole.EDITED, (0.1, 0.1, 0.4, 0.4), "defect"),
    ):
        assert edit is not None and edit.redo(editor)
    assert editor.save()


def repair(root: Path, reviewer: str, case_id: str, *more: str) -> None:
    args = ["repair", str(root), case_id, "--box", "0.2,0.2,0.5,0.5", "--engine", "opencv-telea"]
    assert main([*args, *more, "--reviewer", reviewer]) == 0


@pytest.fixture
def origin(tmp_path: Path, make_project: Callable[..., Path], add_case: Callable) -> Path:
    root = make_project("origin")
    for case_id in ("shared", "c1", "c2", "c3"):
        add_case(root, case_id)
    write_git_files(root)
    assert git(root, "init", "-q", "-b", "main").returncode == 0
    git(root, "add", "-A")
    assert git(root, "commit", "-qm", "start").returncode == 0
    return root


def test_three_clones_merge_without_a_conflict_and_stats_counts_each_reviewer(
    origin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    work = {"alice": ("c1", Decision.KEEP), "bob": ("c2", Decision.EDIT_FAILED),
            "carol": ("c3", Decision.UNSURE)}  # fmt: skip
    clones = {}
    for name, (own_case, decision) in work.items():
        clone = tmp_path / f"clone-{name}"
        assert git(tmp_path, "clone", "-q", str(origin), str(clone)).returncode == 0
        repair(clone, name, "shared")  # a preview on the shared case
        repair(clone, name, own_case, "--accept")  # an accepted repair on their own case
        review(clone, name, "shared", decision, f"{name} was here")
        review(clone, name, own_case, decision, f"{name}'s own case")
        assert ".repairs.lock" in git(clone, "status", "--porcelain", "--ignored").stdout
        git(clone, "add", "-A")
        assert ".lock" not in git(clone, "ls-files").stdout  # locks stay out of git
        assert git(clone, "commit", "-qm", f"{name}'s work").returncode == 0
        clones[name] = clone
    merged = clones["alice"]
    for name in ("bob", "carol"):
        git(merged, "remote", "add", name, str(clones[name]))
        git(merged, "fetch", "-q", name)
        result = git(merged, "merge", "--no-edit", "-q", f"{name}/main")
        assert result.returncode == 0, result.stdout + result.stderr
    assert git(merged, "status", "--porcelain").stdout == ""
    # every reviewer's history of the shared case is there, each line whole
    events = [
        json.loads(line)
        for line in (merged / "cases/shared/history.jsonl").read_text().splitlines()
    ]
    assert {e["reviewer"] for e in events if e["event"] == "repair_preview"} == set(work)
    assert len(list((merged / "cases/shared/repairs").glob("*.png"))) == 3
    # stats: exactly each reviewer's decisions
    capsys.readouterr()
    assert main(["stats", str(merged), "--json", "--reviewer", "alice"]) == 0
    stats = json.loads(capsys.readouterr().out)
    decided = {r["reviewer"]: r["decided"] for r in stats["reviewers"]}
    assert decided == {"alice": 2, "bob": 2, "carol": 2}
    assert stats["counts"]["stale"] == 0 and stats["counts"]["disputed"] == 1  # shared


def test_only_one_image_replaced_differently_stops_git_and_validate_says_how_to_settle_it(
    origin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    clones = {}
    for name, box in (("alice", "0.1,0.1,0.3,0.3"), ("bob", "0.5,0.5,0.9,0.9")):
        clone = tmp_path / f"clone-{name}"
        git(tmp_path, "clone", "-q", str(origin), str(clone))
        args = ["repair", str(clone), "shared", "--box", box, "--engine", "opencv-telea"]
        assert main([*args, "--accept", "--reviewer", name]) == 0
        review(clone, name, "c1", Decision.KEEP, "fine")
        git(clone, "add", "-A")
        git(clone, "commit", "-qm", f"{name}'s work")
        clones[name] = clone
    merged = clones["alice"]
    git(merged, "remote", "add", "bob", str(clones["bob"]))
    git(merged, "fetch", "-q", "bob")
    stopped = git(merged, "merge", "--no-edit", "bob/main")
    assert stopped.returncode != 0
    unmerged = git(merged, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert unmerged == ["cases/shared/edited.png"]  # history, reviews, previews all merged
    capsys.readouterr()
    assert main(["validate", str(merged), "--reviewer", "alice"]) == 1
    out = capsys.readouterr().out
    assert "CONFLICT cases/shared/edited.png: the edited image of case shared" in out
    assert "git checkout --ours cases/shared/edited.png" in out and "--engine file" in out
    assert main(["validate", str(clones["bob"]), "--reviewer", "bob"]) == 0  # no merge there
    # settled as validate says: ours kept, theirs a repair to decide on, the merge finished
    git(merged, "checkout", "--ours", "cases/shared/edited.png")
    other = tmp_path / "other.png"
    other.write_bytes(
        subprocess.run(
            ["git", "show", "MERGE_HEAD:cases/shared/edited.png"],
            cwd=merged,
            capture_output=True,
            check=True,
        ).stdout
    )
    args = ["repair", str(merged), "shared", "--role", "edited", "--engine", "file"]
    assert main([*args, "--file", str(other), "--box", "0,0,1,1", "--reviewer", "alice"]) == 0
    git(merged, "add", "-A")
    assert git(merged, "commit", "-qm", "settled").returncode == 0
    capsys.readouterr()
    assert main(["validate", str(merged), "--reviewer", "alice"]) == 0
