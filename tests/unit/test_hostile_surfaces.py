"""The newer surfaces (assign, stats, import, generate images, study) against hostile
files: each bad thing is refused with one line naming the file and why, nothing is
overwritten without being asked, and the rest of the run goes on."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from test_team_cli import run

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
