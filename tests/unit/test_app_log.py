"""Every sabre-desk process logs to a rotating file in the user's log folder, and a
crash of the interpreter itself still leaves the stacks of every thread there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from factories import run_cli

from sabre_desk.app_log import BACKUPS, MAX_BYTES


def run_python(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )


def test_a_command_logs_to_the_log_folder(demo_master: Path, tmp_path: Path) -> None:
    result = run_cli("validate", str(demo_master), home=tmp_path)
    assert result.returncode in (0, 1), result.stderr
    text = (tmp_path / "logs" / "sabre-desk.log").read_text()
    assert "sabre-desk " in text and "validate" in text


def test_library_messages_are_kept_and_the_file_rotates(tmp_path: Path) -> None:
    code = (
        "import logging; from sabre_desk.app_log import configure_logging; configure_logging(); "
        "logging.getLogger('google_genai._api_client').info('Retrying request in 2 s'); "
        f"[logging.getLogger('x').info('%s', 'y' * 1000) for _ in range({2 * MAX_BYTES // 1000})]"
    )
    assert run_python(code, tmp_path).returncode == 0
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["faults.log", "sabre-desk.log", "sabre-desk.log.1", "sabre-desk.log.2"]
    assert len(logs) - 2 <= BACKUPS
    first = (tmp_path / "logs" / "sabre-desk.log.2").read_text()
    assert "google_genai._api_client: Retrying request in 2 s" in first
    assert all((tmp_path / "logs" / n).stat().st_size <= MAX_BYTES + 2000 for n in logs)


def test_a_fatal_crash_leaves_every_thread_s_stack(tmp_path: Path) -> None:
    code = (
        "import faulthandler; from sabre_desk.app_log import configure_logging; "
        "configure_logging(); faulthandler._sigsegv()"
    )
    assert run_python(code, tmp_path).returncode != 0
    faults = (tmp_path / "logs" / "faults.log").read_text()
    assert "Fatal Python error: Segmentation fault" in faults and "<string>" in faults


def test_an_unwritable_log_folder_does_not_stop_the_app(tmp_path: Path) -> None:
    (tmp_path / "logs").write_text("a file where the folder should be")
    result = run_python(
        "from sabre_desk.app_log import configure_logging; print(configure_logging())", tmp_path
    )
    assert result.returncode == 0 and result.stdout.strip() == "None"
    assert "no log file in" in result.stderr
