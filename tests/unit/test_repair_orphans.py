"""Temp files of repair accepts killed mid-write (a half-copied image, a half-written backup,
the lock's owner record) are removed by the next operation on that case, never left to pile
up; the reviews' own files are never touched."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import repairs
from sabre_desk.engines.opencv import FsrEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.ground.storage import TEMP_SUFFIX

CASE = "ctx03_wrench_banana"

#: Accepts the case's preview and is killed as it finishes writing the named file: the temp
#: file is complete on disk, its rename or link never happens.
KILLER = """
import os, signal, sys
root, case_id, target, call = sys.argv[1:5]
real = getattr(os, call)
def killing(src, dst, *args, **kwargs):
    if os.path.basename(str(dst)).startswith(target):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
setattr(os, call, killing)
from sabre_desk.core.case.project import Project
from sabre_desk.core.repair import repairs
project = Project.open(root, "alice")
case = project.load_case(case_id)
repairs.accept(project, case, case.review.repairs[-1].id)
"""


def temps(folder: Path) -> list[Path]:
    return [p for p in folder.rglob(f"*{TEMP_SUFFIX}") if p.is_file()]


def preview(project: Project) -> None:
    case = project.load_case(CASE)
    order = RepairOrder((0.345, 0.595, 0.41, 0.69), "remove", "remove the jaw")
    record, _ = repairs.compute_preview(case, ImageRole.EDITED, order, FsrEngine())
    repairs.add_preview(project, case, record)


@pytest.mark.parametrize(
    ("target", "call"),
    [("edited.", "replace"), (".repairs.lock.json", "replace"), ("edited__", "link")],
    ids=["image", "lock-owner", "backup"],
)
def test_the_next_accept_removes_what_a_killed_accept_left(
    demo_project: Path, target: str, call: str
) -> None:
    folder = demo_project / "cases" / CASE
    preview(Project.open(demo_project, "alice"))
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(demo_project), CASE, target, call],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = temps(folder)
    assert left, "the kill left no temp file to clean"
    review_temp = folder / f".review.json.keep{TEMP_SUFFIX}"  # another writer's, under way
    review_temp.write_bytes(b"{}")

    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    if repairs.needs_recovery(case):
        repairs.recover(project, case)
    preview(project)
    case = project.load_case(CASE)
    repairs.accept(project, case, case.review.repairs[-1].id)

    assert temps(folder) == [review_temp]


TARGETS = [("edited.", "replace"), (".repairs.lock.json", "replace"), ("edited__", "link")]


def kill_accept(root: Path, target: str, call: str) -> None:
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(root), CASE, target, call],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr


def kills_in_a_row(root: Path, kills: int) -> int:
    """*kills* accepts killed one after another (each on a fresh preview, the interrupted
    one recovered first, as the window does); returns the most temps seen at once."""
    folder = root / "cases" / CASE
    most = 0
    for n in range(kills):
        project = Project.open(root, "alice")
        case = project.load_case(CASE)
        if repairs.needs_recovery(case):
            repairs.recover(project, case)
        preview(project)
        kill_accept(root, *TARGETS[n % len(TARGETS)])
        most = max(most, len(temps(folder)))
    return most


def accept_once_more(root: Path) -> None:
    project = Project.open(root, "alice")
    case = project.load_case(CASE)
    if repairs.needs_recovery(case):
        repairs.recover(project, case)
    preview(project)
    case = project.load_case(CASE)
    repairs.accept(project, case, case.review.repairs[-1].id)


@pytest.mark.parametrize(
    "kills", [3, pytest.param(30, marks=pytest.mark.stress)], ids=["3-kills", "30-kills"]
)
def test_repair_kills_in_a_row_leave_no_orphan_after_the_next_accept(
    demo_project: Path, kills: int
) -> None:
    folder = demo_project / "cases" / CASE
    assert kills_in_a_row(demo_project, kills) > 0  # each kill did leave something
    accept_once_more(demo_project)
    assert temps(folder) == []
    images = {p.name for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")}
    assert not any(TEMP_SUFFIX in name for name in images)


def test_validate_fix_removes_and_lists_what_killed_accepts_left(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sabre_desk.cli import main

    folder = demo_project / "cases" / CASE
    kills_in_a_row(demo_project, 2)
    left = sorted(str(p.relative_to(demo_project)) for p in temps(folder))
    assert left
    review_temp = folder / f".review.json.keep{TEMP_SUFFIX}"  # another writer's, under way
    review_temp.write_bytes(b"{}")
    main(["validate", str(demo_project), "--fix", "--reviewer", "alice"])
    out = capsys.readouterr().out
    listed = sorted(line.split()[1].rstrip(":") for line in out.splitlines() if "REMOVED" in line)
    assert listed == left
    assert temps(folder) == [review_temp]
    main(["validate", str(demo_project), "--fix", "--reviewer", "alice"])
    assert "nothing left by killed writes" in capsys.readouterr().out
