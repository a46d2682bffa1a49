"""I/O errors are one line naming the file and the reason; a full disk leaves nothing torn."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import fill_disk, read_only, small_disk, tree_snapshot

from sabre_desk.cli import EXIT_INTERNAL, EXIT_PROBLEMS, main
from sabre_desk.cli import validate as cli_validate
from sabre_desk.core.case.project import Project
from sabre_desk.ground.errors import StorageError
from sabre_desk.ground.storage import append_history, read_history


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("sabre-desk: error: ")
    return lines[0]


def test_repair_on_a_read_only_project_is_one_line_and_writes_nothing(
    demo_project: Path, capsys: pytest.CaptureFixture
) -> None:
    before = tree_snapshot(demo_project)
    with read_only(demo_project):
        code = main(
            ["repair", str(demo_project), "ctx03_wrench_banana", "--box", "0.3,0.5,0.4,0.7"]
        )
    line = _one_error_line(capsys.readouterr().err)
    assert code == EXIT_PROBLEMS
    assert "read-only" in line and str(demo_project) in line
    assert tree_snapshot(demo_project) == before


def test_diff_png_into_an_unwritable_folder_is_one_line(
    demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    with read_only(locked):
        code = main(
            ["diff", str(demo_project), "ctx02_apple_tennis_ball", "--png", str(locked / "o.png")]
        )
    line = _one_error_line(capsys.readouterr().err)
    assert code == EXIT_PROBLEMS and "o.png" in line and "cannot write the overlay" in line


def test_a_history_append_on_a_full_disk_leaves_no_partial_line(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        path = disk / "history.jsonl"
        append_history(path, {"event": "decision", "data": {"to": "keep"}})
        before = path.read_bytes()
        fill_disk(disk, leave=2048)
        with pytest.raises(StorageError) as info:
            append_history(path, {"event": "notes", "data": {"to": "x" * 20_000}})
        assert "No space left" in info.value.reason and info.value.path == path
        assert path.read_bytes() == before
        assert read_history(path).problems == []


def test_a_review_save_on_a_full_disk_keeps_the_previous_review(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    with small_disk(tmp_path / "disk", size_kb=512) as disk:
        root = make_project("p")
        project_root = disk / "p"
        shutil.copytree(root, project_root)
        add_case(project_root, "c1")
        project = Project.open(project_root, "alice")
        case = project.load_case("c1")
        case.review.notes = "first"
        project.save_review(case)
        fill_disk(disk)
        case.review.notes = "second " * 2000
        with pytest.raises(StorageError) as info:
            project.save_review(case)
        assert "previous version is unchanged" in info.value.reason
        saved = json.loads((project_root / "cases/c1/reviews/alice.json").read_text())
        assert saved["notes"] == "first"
        assert not [p for p in (project_root / "cases/c1/reviews").iterdir() if "tmp" in p.name]


def test_an_unexpected_error_is_one_line_with_a_crash_log(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, tmp_path: Path
) -> None:
    def broken(args: object) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli_validate, "cmd_validate", broken)
    assert main(["validate", str(tmp_path)]) == EXIT_INTERNAL
    line = _one_error_line(capsys.readouterr().err)
    assert "internal error (RuntimeError: a bug)" in line
    log = Path(line.rsplit("details in ", 1)[1])
    assert "Traceback" in log.read_text() and "a bug" in log.read_text()
