"""One meaning per count, one rule for validity: every report of the same project shows the
same numbers under the same names, and a case `validate` calls invalid never reaches a
release — whatever its reviews say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from factories import (
    EVERY_KIND_COUNTS,
    SOLVED_CASE,
    TRUNCATED_CASE,
    every_kind_of_case,
)

from sabre_desk.cli import main
from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.project import Project


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The command as alice runs it (a release has no reviewer)."""
    as_alice = [] if args[0] == "verify" else ["--reviewer", "alice"]
    code = main([*args, *as_alice])
    return code, capsys.readouterr().out


@pytest.fixture
def every_kind(demo_project: Path) -> Path:
    root = every_kind_of_case(demo_project)
    project = Project.open(root, "alice")
    assert project.entry(SOLVED_CASE).screening is ScreenStatus.SOLVED  # the setup holds
    return root


def test_every_report_gives_the_same_counts_under_the_same_names(
    every_kind: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = EVERY_KIND_COUNTS
    code, out = run(capsys, "stats", str(every_kind), "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["counts"] == expected
    pipeline = stats["pipeline"]
    assert (pipeline["valid"], pipeline["decided_by_anyone"], pipeline["final_keep"]) == (12, 6, 4)

    code, text = run(capsys, "stats", str(every_kind))
    assert "cases 13: valid 12, invalid 1" in text
    assert "decided by me 5, decided by anyone 6, stale 1, disputed 1" in text
    assert "with final 5, final Keep 4" in text
    assert "decided by anyone             6" in text and "final Keep                    4" in text

    code, out = run(capsys, "agreement", str(every_kind), "--json", "--bootstrap", "20")
    report = json.loads(out)
    assert report["counts"] == expected
    overall = report["overall"]["cases"]
    assert (overall["valid"], overall["decided_by_anyone"]) == (12, 6)
    assert (overall["stale"], overall["disputed"]) == (1, 1)

    code, out = run(capsys, "export", str(every_kind), str(tmp_path / "rel"), "--json")
    assert code == 0
    summary = json.loads(out)
    assert summary["cases"] == expected["final_keep"]  # export writes what stats calls final Keep
    assert summary["left_out"] == expected["left_out"]
    assert len(summary["left_out_cases"]) == expected["cases"] - expected["final_keep"]
    release = json.loads((tmp_path / "rel" / "release.json").read_text())
    funnel = release["funnel"]
    assert (funnel["cases"], funnel["valid"], funnel["exported"]) == (13, 12, 4)
    assert funnel["with_final"] == expected["with_final"]
    assert funnel["left_out"] == expected["left_out"] and funnel["solved_by_filter"] == 1
    card = (tmp_path / "rel" / "README.md").read_text()
    assert "From 13 cases in the project (12 valid)" in card and "4 exported" in card
    assert "5 not decided" in card and "1 invalid" in card


def test_a_kept_case_whose_image_is_truncated_is_left_out_and_named(
    every_kind: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "validate", str(every_kind))
    assert code == 1 and "INVALID  " + TRUNCATED_CASE in out and "truncated" in out
    code, out = run(capsys, "export", str(every_kind), str(tmp_path / "rel"))
    assert code == 0
    left = [line for line in out.splitlines() if TRUNCATED_CASE in line]
    assert left and "edited.png" in left[0] and "truncated" in left[0]
    assert "not exported: 9 cases (5 not decided; 1 disputed; 1 final decision not" in out
    rows = (tmp_path / "rel" / "benchmark.jsonl").read_text()
    assert TRUNCATED_CASE not in rows
    assert not list((tmp_path / "rel" / "images").glob(f"{TRUNCATED_CASE}*"))
    code, out = run(capsys, "verify", str(tmp_path / "rel"))
    assert code == 0 and "images decode" in out
