"""What the command line says about the folder it is given, a dry run with no key, output
piped into `head`, and tables that line up: each as a user meets it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, serving
from fakes.oracle import Oracle

from sabre_desk.cli import main
from sabre_desk.cli import release as cli_release
from sabre_desk.core.case.project import Project
from sabre_desk.core.screening import screen_batch
from sabre_desk.core.screening.prompts import shipped_prompts
from sabre_desk.core.screening.request_cache import RequestCache
from sabre_desk.core.screening.screen_run import plan_screening
from sabre_desk.engines.gemini_batch import GeminiBatchClient
from sabre_desk.engines.gemini_qa import GeminiAnswerer
from sabre_desk.ground.paths import primers_dir

KEY = "inputs-key-" + "k" * 25

#: Every command that takes a project or a release, with what else it needs to get that far.
NAMING_A_FOLDER = [
    ["open", "{p}"],
    ["validate", "{p}"],
    ["stats", "{p}"],
    ["stats", "{p}", "--json"],
    ["repair", "{p}", "c1", "--box", "0.1,0.1,0.2,0.2"],
    ["diff", "{p}", "c1"],
    ["export", "{p}", "out"],
    ["verify", "{p}"],
    ["score", "{p}", "predictions.jsonl"],
    ["score", "{p}", "predictions.jsonl", "--table", "md"],
    ["predict", "{p}"],
    ["screen", "{p}"],
    ["screen", "{p}", "--dry-run"],
    ["cost", "{p}"],
    ["import", "{p}", "source.jsonl"],
    ["generate", "specs", "{p}", "--primer", "texture", "--n", "1"],
    ["generate", "images", "{p}"],
    ["study", "new", "{p}", "s1", "--case", "c1"],
    ["study", "take", "{p}", "s1", "--participant", "p1"],
    ["study", "report", "{p}", "s1"],
    ["agreement", "{p}"],
    ["assign", "{p}", "--reviewers", "alice,bob"],
    ["time", "{p}"],
    ["team", "{p}"],
    ["cache", "info", "{p}"],
    ["cache", "clear", "{p}"],
    ["primer", "list", "--project", "{p}"],
    ["primer", "show", "texture", "--project", "{p}"],
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv]) if argv[0] not in NO_REVIEWER else main(argv)
    out, err = capsys.readouterr()
    return code, out, err


NO_REVIEWER = {"verify", "score", "predict", "primer"}


@pytest.mark.parametrize("argv", NAMING_A_FOLDER, ids=" ".join)
def test_a_folder_that_does_not_exist_is_called_missing(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "no-such-folder"
    code, out, err = run(capsys, *(a.format(p=missing) for a in argv))
    assert code == 2, err
    assert "no-such-folder: does not exist" in err and "not a folder" not in out + err
    assert len(err.strip().splitlines()) == 1 and not missing.exists()


@pytest.mark.parametrize("command", ["validate", "verify"])
def test_a_file_given_for_a_folder_is_called_a_file(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("x")
    code, _, err = run(capsys, command, str(notes))
    assert code == 2 and f"{notes}: is a file, not a folder" in err


@pytest.mark.parametrize(
    "argv",
    [["verify", "{p}"], ["score", "{p}", "predictions.jsonl"], ["predict", "{p}"]],
    ids=" ".join,
)
def test_a_project_given_for_a_release_is_named_as_one(
    argv: list[str],
    demo_project: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    code, out, err = run(capsys, *(a.format(p=demo_project) for a in argv))
    assert code == 2  # as a folder that is not a project is, for the project commands
    assert f"sabre-desk: error: {demo_project}: this is a project, not a release" in err
    assert "sabre-desk export" in err and out == ""


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    """A fake Gemini that would count any request, and no API key in the environment."""
    with serving(monkeypatch, KEY) as server:
        server.answer = Oracle().rule
        monkeypatch.delenv("GEMINI_API_KEY")
        yield server


def test_a_dry_run_needs_no_key_and_asks_nothing(
    demo_project: Path, no_key: FakeGemini, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "screen", str(demo_project), "--dry-run")
    assert code == 0, err
    assert "13 cases, 31 probes" in err
    assert "count01_apples: 1 probe\n" in out and "tex01_mug_brick: 4 probes" in out
    assert not no_key.requests and "GEMINI_API_KEY" not in err
    code, _, err = run(capsys, "screen", str(demo_project))  # a real run still needs one
    assert code == 2 and "set GEMINI_API_KEY" in err and not no_key.requests


def test_a_batch_dry_run_needs_no_key_and_leaves_earlier_jobs_at_the_service(
    demo_project: Path,
    no_key: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", KEY)
    project = Project.open(demo_project, "alice")
    engine = GeminiAnswerer()
    plan = plan_screening(project, engine, shipped_prompts(), ["count01_apples"])
    client = GeminiBatchClient(engine.model, initial_delay_s=0.01)
    cache = RequestCache.of_project(project.root)
    job = screen_batch.submit(project, plan, client, cache, threading.Event())
    assert job is not None
    monkeypatch.delenv("GEMINI_API_KEY")
    asked = len(no_key.requests)
    code, out, err = run(capsys, "screen", str(demo_project), "--batch", "--dry-run")
    assert code == 0, err
    assert f"job {job.name}: not collected yet" in out and "would go in a batch job" in out
    assert len(no_key.requests) == asked  # not even a poll of the earlier job
    assert len(screen_batch.pending_jobs(Project.open(demo_project, "alice"))) == 1


def test_a_dry_run_never_prints_the_key(
    demo_project: Path,
    no_key: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", KEY)
    code, out, err = run(capsys, "screen", str(demo_project), "--dry-run")
    assert code == 0 and KEY not in out + err and not no_key.requests


def _closed_early(*argv: str) -> tuple[int, bytes]:
    """Run sabre-desk with its output going into a pipe whose reader has already gone
    (`| head` that has read its line); (exit status, everything it said on stderr)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "sabre_desk", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    err = process.stderr.read()
    return process.wait(timeout=120), err


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "{p}", "--json", "--reviewer", "alice"],
        ["validate", "{p}", "--reviewer", "alice"],
        ["primer", "list"],
    ],
    ids=" ".join,
)
def test_output_into_a_closed_pipe_ends_quietly(argv: list[str], demo_project: Path) -> None:
    code, err = _closed_early(*(a.format(p=demo_project) for a in argv))
    assert err == b""  # no traceback, no "Exception ignored", no error line
    assert code == 141  # as a shell reports a Unix tool stopped by the closed pipe


def test_piped_into_head_gives_the_first_line_and_ends_quietly(demo_project: Path) -> None:
    shell = subprocess.run(
        f"set -o pipefail; {sys.executable} -m sabre_desk stats {demo_project} --json "
        "--reviewer alice | head -1",
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shell.stdout == "{\n" and shell.stderr == ""
    assert shell.returncode in (0, 141)  # 141 only if head left before the rest was written


def test_a_broken_pipe_that_is_not_the_output_is_an_error_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(_: object) -> int:
        raise BrokenPipeError(32, "Broken pipe", "/tmp/some.sock")

    monkeypatch.setattr(cli_release, "run_verify", broken)
    code, _, err = run(capsys, "verify", "anything")
    assert code == 1 and err == "sabre-desk: error: /tmp/some.sock: Broken pipe\n"


def test_the_primer_list_lines_up_in_columns(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A project's own primer with a long name and a short title: every column of every
    row still starts where the column starts on the others."""
    shipped = (primers_dir() / "texture.md").read_text()
    own = demo_project / "primers"
    own.mkdir(exist_ok=True)
    (own / "long.md").write_text(
        shipped.replace('name = "texture"', 'name = "a_much_longer_name_than_any_shipped"')
        .replace('pressure_test_type = "texture_prior"', 'pressure_test_type = "tx"')
        .replace('title = "Texture: a familiar object in an unexpected material"', 'title = "T"')
    )
    code, out, err = run(capsys, "primer", "list", "--project", str(demo_project))
    assert code == 0, out + err
    rows = out.splitlines()
    assert {row.split()[0] for row in rows} >= {"a_much_longer_name_than_any_shipped", "texture"}
    starts = {tuple(_column_starts(row)) for row in rows}
    assert len(starts) == 1 and len(starts.pop()) == 4, "\n".join(rows)


def _column_starts(row: str) -> list[int]:
    """Where each cell starts: at the line's start, or after two spaces or more."""
    return [m.start() for m in re.finditer(r"(?:^|(?<=  ))\S", row)]


def test_a_mistyped_command_is_named_with_the_nearest_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word that is neither a command nor a folder is not taken for a project to open."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "verfy", "x")
    assert code == 2 and "unknown command 'verfy'; did you mean 'verify'?" in err
    code, _, err = run(capsys, "stat", "x")
    assert code == 2 and "did you mean 'stats'?" in err
    code, _, err = run(capsys, "xyzzy")
    assert code == 2 and "'xyzzy' is neither a command nor a folder here" in err
    assert "sabre-desk --help" in err
    code, _, err = run(capsys, "./xyzzy")  # a path: open says what is wrong with it
    assert code == 2 and "xyzzy: does not exist" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["stats", "{missing}", "--json"],  # a folder that is not there
        ["validate", "--json"],  # bad usage: argparse's own error
        ["verify", "{missing}", "--json"],
        ["agreement", "{missing}", "--json"],
    ],
)
def test_a_json_run_reports_its_error_as_json(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A script that asked for --json reads the failure on stdout as JSON, with the code."""
    missing = str(tmp_path / "nowhere")
    argv = [a.replace("{missing}", missing) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage error ends the process
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 2 and report["exit_code"] == code
    assert report["error"] and report["error"] in err  # the same words as the human line
