"""`study new` makes a whole study or none: a run that fails on its last case, or is killed
mid-way, leaves no ``studies/<name>/`` and the same name works at once after."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from factories import run_cli

GOOD = [
    "--case=ctx03_wrench_banana=0.345,0.595,0.41,0.69",
    "--case=tex01_mug_brick=0.17,0.66,0.35,0.875",
]


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_a_case_without_a_box_stops_before_anything_is_written(
    demo_project: Path, tmp_path: Path
) -> None:
    before = tree(demo_project)
    failed = run_cli(
        "study", "new", str(demo_project), "pilot", GOOD[0], "--case=tex01_mug_brick", home=tmp_path
    )
    assert failed.returncode != 0
    assert "give one as --case tex01_mug_brick=x0,y0,x1,y1" in failed.stderr
    assert "[1/2]" not in failed.stderr  # said before any candidate was made
    assert tree(demo_project) == before
    assert not (demo_project / "studies").exists() or not any((demo_project / "studies").iterdir())
    made = run_cli("study", "new", str(demo_project), "pilot", *GOOD, home=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (demo_project / "studies" / "pilot" / "study.json").is_file()


def test_a_bad_image_found_on_the_last_case_leaves_no_trace(
    demo_project: Path, tmp_path: Path
) -> None:
    image = demo_project / "cases" / "tex01_mug_brick" / "edited.png"
    good_image = image.read_bytes()
    image.write_bytes(good_image[: len(good_image) // 3])  # truncated: found only when read
    failed = run_cli("study", "new", str(demo_project), "pilot", *GOOD, home=tmp_path)
    assert failed.returncode != 0
    assert "[1/2] ctx03_wrench_banana" in failed.stderr  # the first case was made
    assert "edited.png" in failed.stderr
    assert not any((demo_project / "studies").iterdir())  # not even a hidden half
    image.write_bytes(good_image)
    made = run_cli("study", "new", str(demo_project), "pilot", *GOOD, home=tmp_path)
    assert made.returncode == 0, made.stderr
    report = run_cli("study", "report", str(demo_project), "pilot", home=tmp_path)
    assert report.returncode == 0, report.stderr


def test_a_killed_study_new_takes_no_name(demo_project: Path, tmp_path: Path) -> None:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    cases = [GOOD[0]] * 1 + [GOOD[1]] * 6  # long enough to be killed mid-way
    proc = subprocess.Popen(
        [sys.executable, "-m", "sabre_desk", "study", "new", str(demo_project), "pilot", *cases],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline()  # the first question's candidates are written
    assert line.startswith("[1/7]"), line
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    studies = demo_project / "studies"
    assert not (studies / "pilot").exists()
    assert [p.name for p in studies.iterdir()] != []  # the killed run's hidden half is there
    made = run_cli("study", "new", str(demo_project), "pilot", *GOOD, home=tmp_path)
    assert made.returncode == 0, made.stderr
    assert sorted(p.name for p in studies.iterdir()) == ["pilot"]  # and is cleared by the next


def test_an_instruction_past_its_limit_is_refused_before_anything_is_written(
    demo_project: Path, tmp_path: Path
) -> None:
    before = tree(demo_project)
    too_long = "i" * 20_001
    failed = run_cli(
        "study",
        "new",
        str(demo_project),
        "pilot",
        *GOOD,
        f"--instruction={too_long}",
        home=tmp_path,
    )
    assert failed.returncode != 0 and "Traceback" not in failed.stderr
    assert "A repair instruction can hold at most 20,000 characters; this has 20,001" in (
        failed.stderr
    )
    assert "[1/2]" not in failed.stderr and tree(demo_project) == before
    made = run_cli("study", "new", str(demo_project), "pilot", *GOOD, home=tmp_path)
    assert made.returncode == 0, made.stderr
