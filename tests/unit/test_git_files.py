"""`init` and `upgrade` write the .gitignore and .gitattributes that let git carry a
project: locks and caches stay out, the append-only logs merge by themselves; a project of
format 3 written before them opens unchanged and `upgrade` adds them, nothing else."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from sabre_desk.cli import main

FIXTURE = Path(__file__).parent.parent / "fixtures" / "projects" / "format3-before-git"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["--reviewer", "alice", *args])
    return code, capsys.readouterr().out


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")  # an OS lock: ignored by git
    }


@pytest.fixture
def before_git(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURE, tmp_path / "project"))


def test_init_writes_the_git_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "init", str(tmp_path / "new"))[0] == 0
    assert "history.jsonl merge=union" in (tmp_path / "new/.gitattributes").read_text()
    assert ".repairs.lock*" in (tmp_path / "new/.gitignore").read_text().splitlines()


def test_a_format_3_project_before_git_files_opens_unchanged_and_upgrade_adds_only_them(
    before_git: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = tree(before_git)
    code, _ = run(capsys, "validate", str(before_git))  # no upgrade asked for
    assert code == 0
    (before_git / ".gitignore").write_text("my-notes.txt\n")  # a line of the user's own
    original = tree(before_git)
    code, out = run(capsys, "upgrade", str(before_git), "--dry-run")
    assert code == 0 and "would write .gitignore, .gitattributes" in out
    assert tree(before_git) == original
    code, out = run(capsys, "upgrade", str(before_git))
    assert code == 0 and "wrote .gitignore, .gitattributes" in out
    after = tree(before_git)
    assert {k for k in after if after[k] != original.get(k)} == {".gitignore", ".gitattributes"}
    ignore = (before_git / ".gitignore").read_text().splitlines()
    assert ignore[0] == "my-notes.txt" and ".*.lock" in ignore
    code, out = run(capsys, "upgrade", str(before_git))
    assert code == 0 and out.startswith("nothing to upgrade") and tree(before_git) == after
