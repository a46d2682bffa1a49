"""Accept, revert, discard on a real project; no image is ever lost, even under SIGKILL."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import repairs
from sabre_desk.engines.file import FileEngine
from sabre_desk.engines.opencv import FsrEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.ground.errors import RepairError

CASE = "ctx03_wrench_banana"
FRAGMENT = (0.345, 0.595, 0.41, 0.69)
EDITED = ImageRole.EDITED


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def all_hashes(folder: Path) -> set[str]:
    return {sha(p) for p in folder.rglob("*") if p.is_file() and p.suffix in (".png", ".jpg")}


def make_preview(project: Project, case_id: str = CASE) -> tuple:
    case = project.load_case(case_id)
    record, outcome = repairs.compute_preview(
        case, EDITED, RepairOrder(FRAGMENT, "remove", "remove the jaw"), FsrEngine()
    )
    repairs.add_preview(project, case, record)
    return case, record, outcome


def test_preview_accept_revert_and_accept_again(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case, record, _outcome = make_preview(project)
    folder = case.folder
    original = sha(folder / "edited.png")
    assert (folder / record.preview).is_file()
    assert sha(folder / "edited.png") == original  # a preview changes nothing
    assert project.entry(CASE).pending_repair

    repairs.accept(project, case, record.id)
    assert sha(folder / "edited.png") == sha(folder / record.preview)
    assert sha(folder / record.backup) == original
    assert case.review.decision is Decision.NEEDS_RECHECK
    assert not project.entry(CASE).pending_repair

    repairs.revert(project, case, record.id)
    assert sha(folder / "edited.png") == original
    assert (folder / record.preview).is_file()  # the repaired version is kept

    repairs.accept(project, case, record.id)  # and can be accepted again
    assert sha(folder / "edited.png") == sha(folder / record.preview)
    review = json.loads(case.review_path.read_text())
    assert review["repairs"][0]["status"] == "accepted"
    events = [json.loads(x)["event"] for x in (folder / "history.jsonl").read_text().splitlines()]
    assert events == [
        "repair_preview",
        "repair_accepted",
        "decision",
        "repair_reverted",
        "repair_accepted",
    ]


def test_discard_leaves_the_image_and_keeps_the_preview(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case, record, _ = make_preview(project)
    original = sha(case.folder / "edited.png")
    repairs.discard(project, case, record.id)
    assert sha(case.folder / "edited.png") == original
    assert (case.folder / record.preview).is_file()
    with pytest.raises(RepairError, match="only a preview can be discarded"):
        repairs.discard(project, case, record.id)
    repairs.restore_preview(project, case, record.id)
    assert case.review.repairs[0].status == "preview"


def test_a_jpeg_image_is_backed_up_as_jpeg_and_restored(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case("count01_apples")
    original = sha(case.folder / "image.jpg")
    record, _ = repairs.compute_preview(
        case,
        ImageRole.IMAGE,
        RepairOrder((0.1, 0.5, 0.2, 0.7), "remove", "remove an apple"),
        FsrEngine(),
    )
    repairs.add_preview(project, case, record)
    repairs.accept(project, case, record.id)
    assert not (case.folder / "image.jpg").exists() and (case.folder / "image.png").exists()
    assert record.backup.endswith(".jpg") and sha(case.folder / record.backup) == original
    repairs.revert(project, case, record.id)
    assert sha(case.folder / "image.jpg") == original
    assert not (case.folder / "image.png").exists()
    assert Project.open(demo_project, "alice").load_case("count01_apples").image_info[
        ImageRole.IMAGE
    ].size == (768, 512)


def test_the_file_engine_takes_a_full_image_or_a_patch(demo_project: Path, tmp_path: Path) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    full = tmp_path / "fixed.png"
    full.write_bytes((case.folder / "base.png").read_bytes())  # the artist's full image
    record, outcome = repairs.compute_preview(
        case, EDITED, RepairOrder(FRAGMENT, "clean", "x"), FileEngine(full)
    )
    assert any("cut from the full image" in n for n in outcome.notes)
    assert record.engine == "file"


KILLER = """
import os, signal, sys
from sabre_desk.core.repair import repairs
from sabre_desk.core.case.project import Project
root, case_id, action, step = sys.argv[1:5]
project = Project.open(root, "alice")
case = project.load_case(case_id)
def checkpoint(name):
    if name == step:
        os.kill(os.getpid(), signal.SIGKILL)
getattr(repairs, action)(project, case, "r1", checkpoint=checkpoint)
"""


@pytest.mark.parametrize(
    ("action", "step"),
    [
        ("accept", "journal"),
        ("accept", "backup"),
        ("accept", "replaced"),
        ("accept", "cleaned"),
        ("revert", "journal"),
        ("revert", "restored"),
        ("revert", "cleaned"),
    ],
)
def test_a_kill_between_any_two_steps_loses_no_image(
    demo_project: Path, action: str, step: str
) -> None:
    project = Project.open(demo_project, "alice")
    case, record, _ = make_preview(project)
    if action == "revert":
        repairs.accept(project, case, record.id)
    folder = case.folder
    old = (
        sha(folder / "repairs" / "backups" / Path(record.backup).name)
        if record.backup
        else sha(folder / "edited.png")
    )
    new = sha(folder / record.preview)
    before = all_hashes(folder)

    result = subprocess.run(
        [sys.executable, "-c", KILLER, str(demo_project), CASE, action, step],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert {old, new} <= all_hashes(folder)  # both images are still somewhere
    assert before <= all_hashes(folder)

    again = Project.open(demo_project, "alice")
    case = again.load_case(CASE)
    assert repairs.needs_recovery(case)
    notes = repairs.recover(again, case)
    assert notes and not repairs.needs_recovery(case)
    status = case.review.repairs[0].status
    shown = sha(folder / "edited.png")
    if status == "accepted":
        assert shown == new and sha(folder / case.review.repairs[0].backup) == old
    else:
        assert status in ("preview", "reverted") and shown == old
    assert {old, new} <= all_hashes(folder)


def test_cli_repair_writes_the_preview_and_accepts(demo_project: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sabre_desk",
            "repair",
            str(demo_project),
            CASE,
            "--role",
            "edited",
            "--box",
            ",".join(map(str, FRAGMENT)),
            "--op",
            "remove",
            "--engine",
            "opencv-telea",
            "--accept",
            "--reviewer",
            "alice",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "preview r1" in result.stdout and "accepted r1" in result.stdout
    review = json.loads((demo_project / "cases" / CASE / "reviews" / "alice.json").read_text())
    assert review["repairs"][0]["status"] == "accepted"
    assert review["repairs"][0]["engine"] == "opencv-telea"
    assert review["decision"] == "needs_recheck"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--box", "0.5,0.5,0.4,0.6"], "--box"),
        (
            ["--box", "0.1,0.1,0.2,0.2", "--op", "swap"],
            "--op swap: patchmatch cannot swap; engines that can: --engine gemini, --engine file",
        ),
        (
            ["--box", "0.1,0.1,0.2,0.2", "--role", "image"],
            "--role image: ctx03_wrench_banana is a paired case; use --role base or --role edited",
        ),
    ],
)
def test_cli_repair_refuses_bad_requests_clearly(
    demo_project: Path, args: list[str], message: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "repair", str(demo_project), CASE, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert message in result.stderr and result.stderr.count("\n") == 1
