"""The command line, run as a user runs it: a real subprocess, real folders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sabre_desk import __version__
from sabre_desk.core.case.preview_cache import CACHE_ENV


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sabre_desk", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"sabre-desk {__version__}"


@pytest.mark.parametrize("command", ["open", "demo", "validate", "stats"])
def test_every_command_has_help(command: str) -> None:
    result = run(command, "--help")
    assert result.returncode == 0
    assert f"usage: sabre-desk {command}" in result.stdout


def test_the_command_list_reads_as_words() -> None:
    """Every command's one-line help is text, never argparse's own record of it (a bare %
    in a help string once printed a dict)."""
    result = run("--help")
    assert result.returncode == 0
    assert "option_strings" not in result.stdout
    assert "Cohen's κ, % agreement" in " ".join(result.stdout.split())
    assert "generate" in result.stdout


def test_demo_without_opening_writes_a_valid_project(tmp_path: Path) -> None:
    result = run("demo", str(tmp_path / "d"), "--no-open")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "d" / "sabre-project.json").is_file()
    validated = run("validate", str(tmp_path / "d"))
    assert validated.returncode == 0, validated.stdout
    assert "13 cases, all valid" in validated.stdout
    again = run("demo", str(tmp_path / "d"), "--no-open")  # an existing demo is reused
    assert again.returncode == 0 and "already" in again.stdout


def test_demo_refuses_a_folder_with_other_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("x")
    result = run("demo", str(tmp_path), "--no-open")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not empty" in result.stderr
    assert (tmp_path / "notes.txt").read_text() == "x"


def test_not_a_project_exits_2_with_one_line_on_stderr(tmp_path: Path) -> None:
    for command in ("validate", "stats"):
        result = run(command, str(tmp_path))
        assert result.returncode == 2
        assert result.stdout == ""
        assert result.stderr.startswith("sabre-desk: error: ") and result.stderr.count("\n") == 1
        assert str(tmp_path) in result.stderr and "sabre-project.json" in result.stderr


def test_stats_counts_subsets_and_decisions(demo_project: Path) -> None:
    review = demo_project / "cases" / "ctx01_tape_bagel" / "reviews" / "alice.json"
    review.parent.mkdir()
    review.write_text(
        json.dumps({"case_id": "ctx01_tape_bagel", "reviewer": "alice", "decision": "keep"})
    )
    result = run("stats", str(demo_project), "--json", "--reviewer", "alice")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    counts = stats["counts"]
    assert counts["cases"] == 13 and counts["valid"] == 13 and counts["decided_by_me"] == 1
    assert counts["decided_by_anyone"] == 1 and counts["final_keep"] == 1
    assert counts["left_out"] == {"not_decided": 12}
    assert "reviewed" not in stats  # one name per count: no word that means two things
    assert stats["by_subset"]["context_prior"] == 3
    assert stats["my_decisions"] == {"keep": 1, "not decided": 12}
    text = run("stats", str(demo_project), "--reviewer", "alice").stdout
    assert "decided by me 1, decided by anyone 1" in text and "final Keep 1" in text


def test_a_bad_reviewer_name_is_refused(demo_project: Path) -> None:
    result = run("stats", str(demo_project), "--reviewer", "../evil")
    assert result.returncode == 2 and "--reviewer" in result.stderr


def test_open_on_a_wrong_path_fails_in_the_terminal(tmp_path: Path) -> None:
    result = run("open", str(tmp_path / "nope"))
    assert result.returncode == 2 and "nope: does not exist" in result.stderr


def test_diff_reports_regions_and_writes_the_overlay(demo_project: Path, tmp_path: Path) -> None:
    out = tmp_path / "overlay.png"
    result = run("diff", str(demo_project), "ctx02_apple_tennis_ball", "--json", "--png", str(out))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert len(report["regions"]) == 2 and report["possibly_scene_changed"]
    assert sum(r["outside"] for r in report["regions"]) == 1
    assert out.is_file() and out.stat().st_size > 10_000
    text = run("diff", str(demo_project), "ctx02_apple_tennis_ball").stdout
    assert "OUTSIDE the edit" in text and "Scene changed" in text
    single = run("diff", str(demo_project), "count01_apples")
    assert single.returncode == 1 and "nothing to compare" in single.stderr


def test_a_mistyped_command_is_named_with_a_suggestion(tmp_path: Path) -> None:
    result = run("valdate", "demo", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "sabre-desk: error: unknown command 'valdate'; did you mean 'validate'?"
    )


def test_without_a_screen_the_window_says_what_is_missing(tmp_path: Path) -> None:
    """Instead of Qt aborting the process (exit 134) over a missing plugin."""
    import os

    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
    }
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "demo", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "SABRE_DESK_CONFIG_DIR": str(tmp_path / "config")},
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert "DISPLAY" in line and "--screenshot" in line
    assert (tmp_path / "d" / "sabre-project.json").is_file()  # the demo itself was written


def test_repair_names_the_role_a_single_image_case_has(tmp_path: Path) -> None:
    run("demo", str(tmp_path / "d"), "--no-open")
    result = run(
        "repair",
        str(tmp_path / "d"),
        "count01_apples",
        "--role",
        "edited",
        "--box",
        "0.1,0.1,0.2,0.2",
    )
    assert result.returncode == 1
    assert "count01_apples is a single-image case; use --role image" in result.stderr
    result = run(
        "repair",
        str(tmp_path / "d"),
        "ctx03_wrench_banana",
        "--engine",
        "file",
        "--box",
        "0.1,0.1,0.2,0.2",
    )
    assert result.returncode == 1 and "--file IMAGE" in result.stderr


def test_commands_about_releases_take_no_reviewer(tmp_path: Path) -> None:
    result = run("verify", str(tmp_path), "--reviewer", "bob")
    assert result.returncode == 2 and "unrecognized arguments: --reviewer" in result.stderr


def test_a_missing_x11_library_is_named_instead_of_an_abort(tmp_path: Path) -> None:
    """Qt blames xcb-cursor whatever is missing, then aborts the process (exit 134)."""
    import os

    from sabre_desk.cli.window import _missing_x11_library

    missing = _missing_x11_library()
    if missing is None:
        pytest.skip("every library of Qt's X11 plugin is installed here")
    env = {k: v for k, v in os.environ.items() if k not in ("WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "demo", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "DISPLAY": ":99", "SABRE_DESK_CONFIG_DIR": str(tmp_path / "config")},
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert missing in line and "apt install" in line


def test_the_bundle_opens_a_window_where_the_system_lacks_xcb_cursor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The standalone bundle carries libxcb-cursor; a machine without it installed must not be
    told to install it (what the loader finds through the plugin is what counts)."""
    import ctypes.util

    from sabre_desk.cli.window import _missing_x11_library

    if _missing_x11_library() is not None:
        pytest.skip("a library of Qt's X11 plugin is missing here")
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)  # no system copy
    assert _missing_x11_library() == "libxcb-cursor"  # a pip install needs the system's
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # as in the bundle
    assert _missing_x11_library() is None


def test_sigterm_closes_the_window_like_its_close_button(tmp_path: Path) -> None:
    """A logout or `kill` saves and quits; it does not print tracebacks from Qt callbacks."""
    import os
    import signal
    import time

    run("demo", str(tmp_path / "d"), "--no-open")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "SABRE_DESK_CONFIG_DIR": str(tmp_path)}
    env[CACHE_ENV] = str(tmp_path / "cache")
    window = subprocess.Popen(
        [sys.executable, "-m", "sabre_desk", "open", str(tmp_path / "d"), "--reviewer", "eve"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    # the window is up once it has claimed the project for eve (however loaded the machine)
    deadline = time.monotonic() + 120
    while not list((tmp_path / "cache").rglob("eve.json")) and time.monotonic() < deadline:
        assert window.poll() is None, window.communicate()[1]
        time.sleep(0.1)
    time.sleep(2)  # index, show the first case
    window.send_signal(signal.SIGTERM)
    try:
        _, err = window.communicate(timeout=20)
    finally:
        window.kill()
    assert window.returncode == 0, err
    assert "Traceback" not in err
    assert (tmp_path / "settings.json").is_file()  # closed as by its button: settings saved
