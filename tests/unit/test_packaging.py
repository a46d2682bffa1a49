"""resources/ and primers/ ship inside the wheel, so a plain `pip install .` finds them."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_wheel_carries_resources_primers_and_the_entry_point(tmp_path: Path) -> None:
    pytest.importorskip("hatchling")
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", "dist", ".venv", "sabre-desk-demo"
        ),
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("sabre_desk-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "sabre_desk/resources/icons/sabre-desk.svg" in names
    assert "sabre_desk/resources/style.qss" in names
    assert "sabre_desk/primers/context.md" in names
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "sabre-desk = sabre_desk.cli:main" in text
    assert "sabre-desk-gui = sabre_desk.gui_main:main" in text  # the windowed launcher


def test_resources_are_found_from_a_checkout() -> None:
    from sabre_desk.ground.paths import primers_dir, resource_path

    assert resource_path("icons", "sabre-desk.svg").is_file()
    assert (primers_dir() / "context.md").is_file()
