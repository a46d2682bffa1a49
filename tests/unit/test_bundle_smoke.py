"""packaging/smoke.py, the standalone bundle's smoke test (.ci/bundle runs it on a built
bundle): it passes on programs that work and fails loudly, naming the step, on one that
does not. Here it runs this installation's own `sabre-desk` and `sabre-desk-gui`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "packaging" / "smoke.py"


def smoke(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SMOKE), str(folder)],
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
def test_the_smoke_test_passes_on_working_programs() -> None:
    programs = Path(sys.executable).parent  # the environment's own launchers
    if not (programs / "sabre-desk-gui").is_file():
        pytest.skip("sabre-desk is not installed in this environment")
    result = smoke(programs)
    assert result.returncode == 0, result.stdout + result.stderr
    for step in ("version", "demo", "opencv", "gemini", "release", "screenshot", "workers"):
        assert f"ok   {step}" in result.stdout


@pytest.mark.skipif(os.name == "nt", reason="shell-script stand-ins")
def test_the_smoke_test_fails_loudly_on_a_broken_bundle(tmp_path: Path) -> None:
    for name in ("sabre-desk", "sabre-desk-gui"):
        program = tmp_path / name
        program.write_text("#!/bin/sh\necho 'Failed to execute script __main__' >&2\nexit 1\n")
        program.chmod(0o755)
    result = smoke(tmp_path)
    assert result.returncode == 1
    assert "FAIL sabre-desk --version: exit 1" in result.stderr
    assert "Failed to execute script" in result.stderr


def test_the_smoke_test_names_a_missing_program(tmp_path: Path) -> None:
    result = smoke(tmp_path)
    assert result.returncode == 1
    assert f"FAIL {tmp_path / 'sabre-desk'} is missing" in result.stderr.replace("\\\\", "\\")
