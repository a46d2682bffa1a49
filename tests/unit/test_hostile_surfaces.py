"""The newer surfaces (assign, stats, import, generate images, study) against hostile
files: each bad thing is refused with one line naming the file and why, nothing is
overwritten without being asked, and the rest of the run goes on."""

from __future__ import annotations

import io
import json
import os
import struct
import sys
import threading
import types
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from factories import png_bytes, tree_snapshot, yes_no_spec
from fakes.gemini_server import FakeGemini, Reply
from fakes.pipeline import PipelineModels, image_body
from PIL import Image
from test_generate import _specs
from test_team_cli import run

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.making.image_maker import make_images
from sabre_desk.core.making.incoming import StagedState, staged_cases
from sabre_desk.core.making.new_project import init_project
from sabre_desk.engines.gemini_make import GeminiImageMaker

VALID_ASSIGNMENTS = {
    "format": "sabre-desk-assignments",
    "version": 1,
    "reviewers": ["alice"],
    "cases": {"c00": ["alice"]},
}


@pytest.fixture
def three_cases(make_project: Callable, add_case: Callable) -> Path:
    root = make_project()
    for i in range(3):
        add_case(root, f"c{i:02}")
    return root


# --- item: assign never replaces assignments it was not asked to replace ----------------------


def _assignments_with(**changes: object) -> str:
    return json.dumps({**VALID_ASSIGNMENTS, **changes})


UNREADABLE_ASSIGNMENTS: dict[str, Callable[[Path], None]] = {
    "version 99": lambda p: p.write_text(_assignments_with(version=99)),
    "unknown reviewer": lambda p: p.write_text(_assignments_with(cases={"c00": ["zed"]})),
    "bad id": lambda p: p.write_text(_assignments_with(cases={"../evil": ["alice"]})),
    "wrong types": lambda p: p.write_text(_assignments_with(reviewers="alice", cases=[1])),
    "deep JSON": lambda p: p.write_text("[" * 5000 + "]" * 5000),
    "not JSON": lambda p: p.write_text("{torn"),
    "a FIFO": lambda p: os.mkfifo(p),
    "a link to /dev/zero": lambda p: p.symlink_to("/dev/zero"),
    "a folder": lambda p: p.mkdir(),
    "a dangling link": lambda p: p.symlink_to(p.parent / "nowhere.json"),
}


def _snapshot(path: Path) -> tuple[bool, bool, bytes | None]:
    is_link, is_reg = path.is_symlink(), path.is_file() and not path.is_symlink()
    return is_link, is_reg, path.read_bytes() if is_reg else None


@pytest.mark.timeout(30)
@pytest.mark.parametrize("kind", sorted(UNREADABLE_ASSIGNMENTS))
def test_assign_refuses_to_replace_assignments_it_cannot_read_without_replace(
    three_cases: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = three_cases / "assignments.json"
    UNREADABLE_ASSIGNMENTS[kind](path)
    before = _snapshot(path)
    code, out, err = run(capsys, "assign", str(three_cases), "--reviewers", "alice,bob")
    assert code == 1, (kind, out, err)
    assert err.count("\n") == 1 and "assignments.json" in err and "--replace" in err
    assert _snapshot(path) == before  # untouched: same kind, same bytes
    if kind == "a folder":  # not a file to replace: --replace refuses too, in one line
        code, _, err = run(capsys, "assign", str(three_cases), "--reviewers", "a", "--replace")
        assert code == 1 and err.count("\n") == 1 and path.is_dir()
        return
    # asked to, it replaces the thing itself (never writes through a link) in one step
    code, out, err = run(capsys, "assign", str(three_cases), "--reviewers", "alice,bob",
                         "--replace")  # fmt: skip
    assert code == 0, err
    assert path.is_file() and not path.is_symlink()
    assert json.loads(path.read_text())["reviewers"] == ["alice", "bob"]
    assert not [p.name for p in three_cases.iterdir() if p.name.startswith(".assignments")]


@pytest.mark.stress
@pytest.mark.timeout(60)
def test_assign_refuses_a_70_mb_assignments_file_without_reading_it_whole(
    three_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = three_cases / "assignments.json"
    with path.open("wb") as handle:
        handle.write(b'{"reviewers": ["alice"], "pad": "')
        handle.write(b"x" * (70 << 20))
        handle.write(b'"}')
    size = path.stat().st_size
    code, _, err = run(capsys, "assign", str(three_cases), "--reviewers", "alice,bob")
    assert code == 1 and "too large" in err and "--replace" in err and err.count("\n") == 1
    assert path.stat().st_size == size
    code, _, _ = run(capsys, "assign", str(three_cases), "--reviewers", "alice", "--replace")
    assert code == 0 and path.stat().st_size < 10_000


# --- item: stats costs cases + reviewers, not cases × reviewers ------------------------------


def _crowded_assignments(root: Path, reviewers: int, per_case: int, cases: int) -> list[str]:
    """A valid assignments.json naming many reviewers, *per_case* of them on each case
    (taken in turn, so the first reviewers come round again once all had a case)."""
    names = [f"r{i:06}" for i in range(reviewers)]
    assigned = {
        f"c{i:02}": [names[(i * per_case + k) % reviewers] for k in range(per_case)]
        for i in range(cases)
    }
    data = {**VALID_ASSIGNMENTS, "reviewers": names, "cases": assigned}
    (root / "assignments.json").write_text(json.dumps(data))
    return names


def _stats_of_crowd(
    root: Path, capsys: pytest.CaptureFixture[str], reviewers: int, per_case: int, cases: int
) -> int:
    """Runs `stats --json` on the crowd; returns the size of its assignments.json."""
    names = _crowded_assignments(root, reviewers, per_case, cases)
    code, out, err = run(capsys, "stats", str(root), "--json")
    assert code == 0, err
    progress = {r["reviewer"]: r for r in json.loads(out)["reviewers"]}
    assert sorted(progress) == names  # everyone assigned, each once
    turns, rest = divmod(per_case * cases, reviewers)
    assert progress[names[0]]["assigned"] == turns + (rest > 0)
    assert progress[names[0]]["remaining"] == progress[names[0]]["assigned"]
    assert progress[names[-1]]["assigned"] == turns
    return (root / "assignments.json").stat().st_size


@pytest.mark.timeout(60)  # a guard against the hang, not a speed figure
def test_stats_reports_thousands_of_assigned_reviewers_each_once(
    three_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _stats_of_crowd(three_cases, capsys, reviewers=60_000, per_case=20_000, cases=4)


@pytest.mark.stress
@pytest.mark.timeout(120)
def test_stats_reads_200_000_reviewers_with_50_000_on_each_case(
    three_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    size = _stats_of_crowd(three_cases, capsys, reviewers=200_000, per_case=50_000, cases=12)
    assert size > 8 << 20


# --- item: a hostile row, reply or study file is one line; the rest goes on ------------------


def _bomb_png(width: int = 30_000, height: int = 30_000) -> bytes:
    """A small PNG whose header claims *width* × *height* pixels."""
    data = bytearray(png_bytes(8, 8))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    return bytes(data)


def _jsonl(folder: Path, rows: list[dict[str, object]]) -> Path:
    source = folder / "cases.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return source


def _pair_row(concept: str, base: str = "b.png", edited: str = "e.png", **extra: object) -> dict:
    return {**yes_no_spec(concept), "images": {"base": base, "edited": edited}, **extra}


def run_plain(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """A command that takes no --reviewer (`import`, `study take`, `study report`).

    A bad study or session must be refused before the study window opens: here one that
    opens fails the test instead of waiting for a participant."""

    def no_window(*_: object) -> int:
        raise AssertionError("the study window opened on a study or session it cannot use")

    stand_in = types.ModuleType("app")
    stand_in.run_study = no_window  # type: ignore[attr-defined]
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "sabre_desk.gui.app", stand_in)
        code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def made(tmp_path: Path) -> Path:
    """A folder of images a generation script left, next to where the project goes."""
    folder = tmp_path / "made"
    folder.mkdir()
    (folder / "b.png").write_bytes(png_bytes(64, 48, (10, 20, 30)))
    (folder / "e.png").write_bytes(png_bytes(64, 48, (30, 20, 10)))
    return folder


def test_an_import_row_with_a_number_for_case_id_or_a_nul_in_a_path_is_one_line(
    tmp_path: Path, made: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_project(tmp_path / "project")
    source = _jsonl(
        made,
        [
            _pair_row("numbered", case_id=5),
            _pair_row("nul_path", edited="e\u0000.png"),
            _pair_row("listed", case_id=["a"]),
            _pair_row("fine"),
        ],
    )
    code, out, err = run_plain(capsys, "import", str(root), str(source))
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 3 and "imported 1 cases" in out
    assert lines[0].startswith("cases.jsonl line 1: case_id") and "text" in lines[0]
    assert lines[1].startswith("cases.jsonl line 2: images") and "NUL" in lines[1]
    assert lines[2].startswith("cases.jsonl line 3: case_id")
    assert sorted(p.name for p in (root / "cases").iterdir()) == ["fine"]


def test_a_decompression_bomb_as_an_image_reply_fails_that_case_and_keeps_why(
    context_project: Path, pipeline_models: tuple[FakeGemini, PipelineModels]
) -> None:
    _, answer = pipeline_models
    _specs(context_project, 2)
    answer.image_script = [Reply(body=image_body(_bomb_png()))]
    with GeminiImageMaker() as maker:
        report = make_images(context_project, maker, threading.Event(), concurrency=1)
    [(case_id, reason)] = report.failed
    assert "too large" in reason and "900 MP" in reason and "\n" not in reason
    assert len(report.imaged) == 1 and report.imaged[0] != case_id  # the other went on
    [staged] = staged_cases(context_project)
    assert staged.case_id == case_id
    assert staged.state is StagedState.FAILED and staged.reason == reason


def _study(root: Path, methods: list[str], questions: int = 2) -> Path:
    folder = root / "studies" / "pilot"
    (folder / "sessions").mkdir(parents=True)
    question = {
        "case_id": "c00",
        "image_role": "edited",
        "box": [0.1, 0.1, 0.2, 0.2],
        "original": "01_c00.png",
        "candidates": {m: f"01_c00__{m}.png" for m in methods},
    }
    study = {
        "format": "sabre-desk-study",
        "version": 1,
        "name": "pilot",
        "created_at": "2026-01-01T00:00:00Z",
        "engine": "telea",
        "instruction": "remove it",
        "methods": methods,
        "questions": [question] * questions,
    }
    (folder / "study.json").write_text(json.dumps(study))
    return folder


def _session(folder: Path, participant: str, picks: list[tuple[object, object]]) -> None:
    data = {
        "participant": participant,
        "started_at": "2026-01-01T00:00:00Z",
        "picks": [
            {"question": q, "shown": ["soft", "hard"], "chosen": c, "at": "2026-01-01T00:01:00Z"}
            for q, c in picks
        ],
    }
    (folder / "sessions" / f"{participant}.json").write_text(json.dumps(data))


@pytest.mark.parametrize("action", [["report"], ["take", "--participant", "P01"]])
def test_a_study_with_an_unknown_method_is_one_line(
    three_cases: Path, capsys: pytest.CaptureFixture[str], action: list[str]
) -> None:
    _study(three_cases, ["soft", "evil"])
    code, out, err = run_plain(capsys, "study", action[0], str(three_cases), "pilot", *action[1:])
    assert code == 1 and err.count("\n") == 1 and out == ""
    assert "study.json" in err and "evil" in err


def test_a_session_with_wrong_types_is_one_line_for_take_and_skipped_by_report(
    three_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _study(three_cases, ["soft", "hard"])
    _session(folder, "P01", [(0, "soft"), (1, "hard")])
    _session(folder, "P02", [("first", ["soft"]), (1, 7)])
    code, out, err = run_plain(
        capsys, "study", "take", str(three_cases), "pilot", "--participant", "P02"
    )
    assert code == 1 and err.count("\n") == 1 and "P02.json" in err
    code, out, err = run_plain(capsys, "study", "report", str(three_cases), "pilot", "--json")
    assert code == 1 and err.count("\n") == 1 and "P02.json" in err
    report = json.loads(out)
    assert report["completed_sessions"] == 1 and report["selections"] == 2


# --- item: import writes only what it decoded, named by what it is ---------------------------


def _encoded(fmt: str, width: int = 64, height: int = 48, seed: int = 3) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 255, (height, width, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format=fmt)
    return buf.getvalue()


@pytest.mark.timeout(60)
def test_import_names_each_image_by_its_decoded_format_refuses_what_does_not_decode_and_reruns(
    tmp_path: Path, made: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = init_project(tmp_path / "project")
    (made / "noext").write_bytes(_encoded("PNG"))
    (made / "img.json").write_bytes(_encoded("JPEG"))
    (made / "photo.png").write_bytes(_encoded("WEBP"))
    cut = _encoded("PNG", 300, 200)
    (made / "cut.png").write_bytes(cut[: len(cut) // 2])
    (made / "anim.png").write_bytes(_encoded("GIF"))
    source = _jsonl(
        made,
        [
            _pair_row("named_by_bytes", base="noext", edited="img.json"),
            _pair_row("webp_as_png", base="photo.png", edited="noext"),
            _pair_row("truncated", edited="cut.png"),
            _pair_row("gif", base="anim.png"),
        ],
    )
    code, out, err = run_plain(capsys, "import", str(root), str(source))
    assert code == 1 and "imported 2 cases" in out
    lines = err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("cases.jsonl line 3:") and "cut.png" in lines[0]
    assert "truncated" in lines[0]
    assert lines[1].startswith("cases.jsonl line 4:") and "anim.png" in lines[1]
    assert "GIF" in lines[1] and "PNG, JPEG or WebP" in lines[1]
    cases = root / "cases"
    assert sorted(p.name for p in cases.iterdir()) == ["named_by_bytes", "webp_as_png"]
    assert sorted(p.name for p in (cases / "named_by_bytes").iterdir()) == [
        "base.png",
        "edited.jpg",
        "spec.json",
    ]
    assert (cases / "named_by_bytes" / "edited.jpg").read_bytes() == (
        made / "img.json"
    ).read_bytes()
    assert sorted(p.name for p in (cases / "webp_as_png").iterdir()) == [
        "base.webp",
        "edited.png",
        "spec.json",
    ]
    assert validate_project(Project.open(root, "alice")).valid
    # what it wrote, it knows again: a rerun finds both cases already there
    before = tree_snapshot(cases)
    code, out, err = run_plain(capsys, "import", str(root), str(source))
    assert "imported 0 cases, 2 already there, 2 failed" in out and "other content" not in err
    assert tree_snapshot(cases) == before
    # a source image swapped for a FIFO is named as such, never opened to wait on
    (made / "noext").unlink()
    os.mkfifo(made / "noext")
    code, out, err = run_plain(capsys, "import", str(root), str(source))
    assert "imported 0 cases, 0 already there, 4 failed" in out
    assert err.count("FIFO") == 2 and tree_snapshot(cases) == before


# --- item: study report counts one pick per participant and question ----------------------


def test_study_report_counts_one_pick_per_question_and_only_questions_that_exist(
    three_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _study(three_cases, ["soft", "hard"])
    _session(folder, "P01", [(0, "soft"), (1, "soft")])
    # as many picks as a session may hold (the table of limits), nearly all repeats
    stuffed = [(0, "hard"), *[(0, "hard")] * 996, (1, "soft"), (57, "hard"), (1, "evil")]
    _session(folder, "P02", stuffed)
    # one pick past that: the whole file is refused in words, never half counted
    _session(folder, "P03", [(0, "soft"), (1, "hard"), *[(0, "soft")] * 999])
    code, out, err = run_plain(capsys, "study", "report", str(three_cases), "pilot", "--json")
    report = json.loads(out)
    assert report["completed_sessions"] == 2 and report["selections"] == 4
    by = {m["key"]: m for m in report["methods"]}
    assert by["soft"]["votes"] == 3 and by["hard"]["votes"] == 1
    assert by["hard"]["preference"] == 0.25 and by["hard"]["participant_max"] == 0.5
    assert code == 1 and len(report["problems"]) == err.count("\n") == 4
    p02 = [line for line in err.splitlines() if "P02.json" in line]
    assert len(p02) == 3
    assert "996 more picks of question 1" in err and "question 58" in err and "evil" in err
    (p03,) = [line for line in err.splitlines() if "P03.json" in line]
    assert "1000" in p03 and "not counted" in p03
