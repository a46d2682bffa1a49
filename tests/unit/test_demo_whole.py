"""`demo` writes the whole demo project or none: a run killed half-way leaves no project
under the name (a later `demo` would open a half demo as the demo), and the next run
writes the whole one at once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from factories import run_cli

from sabre_desk.demo.writer import write_demo_project


def _cases_written(parent: Path) -> bool:
    """Whether some case folder of a demo being written exists (aside or in place)."""
    return any(parent.glob("*/cases/*/spec.json")) or any(parent.glob(".*/cases/*/spec.json"))


def test_a_killed_demo_takes_no_name_and_the_next_run_writes_it_whole(tmp_path: Path) -> None:
    dest = tmp_path / "work" / "demo"
    dest.parent.mkdir()
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(tmp_path), "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sabre_desk", "demo", str(dest), "--no-open"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=env,
    )
    while proc.poll() is None and not _cases_written(dest.parent):
        pass  # wait until the first case is on disk
    if proc.poll() is not None:
        pytest.skip("the demo was written before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert not dest.exists()  # no half demo under the name

    made = run_cli("demo", str(dest), "--no-open", home=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "demo project written to" in made.stdout
    whole = tmp_path / "whole"
    write_demo_project(whole)
    assert sorted(p.name for p in (dest / "cases").iterdir()) == sorted(
        p.name for p in (whole / "cases").iterdir()
    )
    assert [p.name for p in dest.parent.iterdir()] == ["demo"]  # the killed half is gone


def test_a_demo_into_an_empty_folder_fills_it_and_a_full_one_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    write_demo_project(empty)
    assert (empty / "sabre-project.json").is_file() and any((empty / "cases").iterdir())
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("kept")
    done = run_cli("demo", str(full), "--no-open", home=tmp_path)
    assert done.returncode != 0 and "folder is not empty" in done.stderr
    assert [p.name for p in full.iterdir()] == ["mine.txt"]
