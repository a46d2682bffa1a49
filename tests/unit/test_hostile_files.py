"""Hostile files end every command quickly with one clear line, and the rest keeps working.

Each command runs in its own process with a time limit, so a regression that blocks (a
FIFO opened for reading) fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import run_cli, yes_no_spec

LIMIT_S = 60


def _deep_json(depth: int) -> str:
    return '{"concept_id": "deep", "x": ' + "[" * depth + "]" * depth + "}"


@pytest.fixture
def hostile(make_project: Callable, add_case: Callable) -> Callable[[str, str], Path]:
    """A project with one good case and one case whose *name* file is made hostile."""

    def make(name: str, kind: str) -> Path:
        root = make_project()
        add_case(root, "good")
        folder = add_case(root, "bad", spec=yes_no_spec(concept_id="bad"))
        (folder / "reviews").mkdir()
        (folder / "reviews" / "alice.json").write_text(
            json.dumps({"case_id": "bad", "reviewer": "alice"})
        )
        path = folder / name
        if path.exists():
            path.unlink()
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "dev-zero":
            path.symlink_to("/dev/zero")
        elif kind == "deep":
            path.write_text(_deep_json(100_000))
        return root

    return make


FILES = ["spec.json", "base.png", "reviews/alice.json", "screening.json"]


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
@pytest.mark.parametrize("name", FILES)
def test_a_special_file_in_a_case_is_named_and_skipped(
    hostile: Callable, tmp_path: Path, name: str, kind: str
) -> None:
    root = hostile(name, kind)
    done = run_cli("validate", str(root), "--reviewer", "alice", home=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    # A link to a device is refused as a device, or (for images) as a link leaving the project.
    expected = ("FIFO",) if kind == "fifo" else ("character device", "outside the project")
    lines = [line for line in done.stdout.splitlines() if any(e in line for e in expected)]
    assert lines and name.split("/")[-1] in lines[0]
    assert "1 invalid" in done.stdout  # the good case is still fine


@pytest.mark.parametrize("name", FILES)
def test_every_command_finishes_on_a_fifo(hostile: Callable, tmp_path: Path, name: str) -> None:
    root = hostile(name, "fifo")
    commands = [
        ["stats", str(root)],
        ["diff", str(root), "bad"],
        ["repair", str(root), "bad", "--box", "0.1,0.1,0.5,0.5"],
        ["export", str(root), str(tmp_path / "release")],
        ["open", str(root), "--case", "bad", "--screenshot", str(tmp_path / "shot.png")],
    ]
    for command in commands:
        done = run_cli(*command, "--reviewer", "alice", home=tmp_path)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        assert done.returncode in (0, 1), (command, done.returncode, done.stderr)
        if done.returncode == 1:
            assert done.stderr.count("\n") == 1, (command, done.stderr)  # one line


@pytest.mark.parametrize("name", ["spec.json", "reviews/alice.json", "screening.json"])
def test_json_nested_100000_deep_is_refused_with_its_file(
    hostile: Callable, tmp_path: Path, name: str
) -> None:
    root = hostile(name, "deep")
    done = run_cli("validate", str(root), "--reviewer", "alice", home=tmp_path)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert any(
        name.split("/")[-1] in line and "nested" in line for line in done.stdout.splitlines()
    )


def test_a_huge_question_is_refused_before_any_window_lays_it_out(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    spec = yes_no_spec(concept_id="long")
    spec["questions"][0]["prompt"] = "Is tape visible? " * 6_000  # 100,000 characters
    add_case(root, "long", spec=spec)
    spec = yes_no_spec(concept_id="huge")
    spec["questions"][0]["prompt"] = "x" * 5_000_000
    add_case(root, "huge", spec=spec)
    done = run_cli("validate", str(root), home=tmp_path)
    assert done.returncode == 1
    assert "at most 2000 characters" in done.stdout
    assert "file is too large (4.8 MB; the limit is 1.0 MB)" in done.stdout


def _garbage_history(path: Path, megabytes: int) -> None:
    line = b'{"event": "decision", "data": {"to": "keep"' + b"x" * 40 + b"\n"
    garbage = b"\x00\xff not json at all \x01\x02" * 3 + b"\n"
    block = (line + garbage * 20) * ((1 << 20) // (len(line) + 20 * len(garbage)) + 1)
    with path.open("wb") as fh:
        for _ in range(megabytes):
            fh.write(block[: 1 << 20])


# The child's own peak (VmHWM starts afresh at exec; getrusage's maxrss would carry the
# pytest parent's peak over the fork).
PEAK = (
    "import sys\n"
    "from sabre_desk.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = open('/proc/self/status').read()\n"
    "peak = status.split('VmHWM:')[1].split()[0]\n"
    "print(f'peak-rss-kb {peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _validate_bounded(root: Path, home: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", PEAK, "validate", str(root)],
        capture_output=True,
        text=True,
        timeout=LIMIT_S * 5,
        env=env,
    )
    peak_kb = int(done.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0])
    return done, peak_kb / 1024


@pytest.mark.parametrize("megabytes", [64, pytest.param(1024, marks=pytest.mark.stress)])
def test_a_huge_garbage_history_is_skimmed_in_bounded_memory_and_output(
    make_project: Callable, add_case: Callable, tmp_path: Path, megabytes: int
) -> None:
    root = make_project()
    folder = add_case(root, "c1")
    _garbage_history(folder / "history.jsonl", megabytes)
    done, peak_mb = _validate_bounded(root, tmp_path)
    assert done.returncode == 0, done.stderr  # history problems are warnings
    history_lines = [line for line in done.stdout.splitlines() if "history.jsonl" in line]
    assert 1 <= len(history_lines) <= 21
    assert "more bad lines" in history_lines[-1]
    assert peak_mb < 400, f"validate peaked at {peak_mb:.0f} MB"
