"""`assign`, `agreement`, `time`, `team`, `stats` per reviewer and `export --min-reviews`,
as a team lead runs them on a project folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import run_cli, write_review

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main([*args, "--reviewer", "lead"])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def ten_cases(make_project: Callable, add_case: Callable) -> Path:
    root = make_project()
    for i in range(10):
        add_case(root, f"c{i:02}")
    return root


def test_assign_gives_every_case_once_a_seeded_share_twice_and_is_reproducible(
    ten_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "assign", str(ten_cases), "--reviewers", "alice,bob,carol")
    assert code == 0 and "assigned 10 cases to 3 reviewer(s)" in out and "2 cases twice" in out
    first = json.loads((ten_cases / "assignments.json").read_text())
    assert first["format"] == "sabre-desk-assignments" and first["seed"] == 42
    cases = first["cases"]
    assert sorted(cases) == [f"c{i:02}" for i in range(10)]
    assert sorted(len(names) for names in cases.values()) == [1] * 8 + [2] * 2
    load = {n: sum(n in names for names in cases.values()) for n in ("alice", "bob", "carol")}
    assert sorted(load.values()) == [4, 4, 4]  # 12 reviews, evenly
    # a second run refuses to overwrite, --replace with the same seed writes the same split
    code, _, err = run(capsys, "assign", str(ten_cases), "--reviewers", "alice,bob,carol")
    assert code == 1 and "already assigned" in err and "--replace" in err
    run(capsys, "assign", str(ten_cases), "--reviewers", "alice,bob,carol", "--replace")
    assert json.loads((ten_cases / "assignments.json").read_text())["cases"] == cases
    run(capsys, "assign", str(ten_cases), "--reviewers", "alice,bob,carol", "--replace",
        "--seed", "7")  # fmt: skip
    assert json.loads((ten_cases / "assignments.json").read_text())["cases"] != cases
    # the case list of each reviewer knows what is theirs
    project = Project.open(ten_cases, "alice")
    mine = {e.case_id for e in project.entries if e.assigned_to_me}
    assert len(mine) == 4 and all(e.assigned_to_me is not None for e in project.entries)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--reviewers", "alice,../evil"], "--reviewers: invalid reviewer name"),
        (["--reviewers", "alice,bob", "--overlap", "1.5"], "--overlap"),
        (["--reviewers", ""], "--reviewers: name at least one"),
    ],
)
def test_assign_refuses_bad_usage_with_exit_2(
    ten_cases: Path, capsys: pytest.CaptureFixture[str], args: list[str], says: str
) -> None:
    code, _, err = run(capsys, "assign", str(ten_cases), *args)
    assert code == 2 and says in err and err.count("\n") == 1
    assert not (ten_cases / "assignments.json").exists()


def test_projects_without_assignments_work_as_before_and_a_bad_file_is_reported(
    ten_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = Project.open(ten_cases, "alice")
    assert project.assignments is None and {e.assigned_to_me for e in project.entries} == {None}
    (ten_cases / "assignments.json").write_text(
        '{"reviewers": ["alice"], "cases": {"c00": ["zed"]}}'
    )
    project = Project.open(ten_cases, "alice")
    assert project.assignments is None and len(project.entries) == 10
    (problem,) = project.warnings
    assert "assignments.json" in problem.message and "zed" in problem.message
    code, out, _ = run(capsys, "stats", str(ten_cases))
    assert code == 0 and "problem:" in out and "assignments.json" in out


@pytest.fixture
def reviewed(ten_cases: Path) -> Path:
    """alice and bob both decided c00-c03 (agreeing but on c03), alice alone c04."""
    plan = {"c00": "keep", "c01": "keep", "c02": "edit_failed", "c04": "keep"}
    for case_id, decision in plan.items():
        write_review(ten_cases / "cases" / case_id, "alice", decision)
        if case_id != "c04":
            write_review(ten_cases / "cases" / case_id, "bob", decision)
    write_review(ten_cases / "cases/c03", "alice", "keep")
    write_review(ten_cases / "cases/c03", "bob", "scene_changed")
    return ten_cases


def test_agreement_reports_alpha_kappa_and_the_confusion_table(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "agreement", str(reviewed), "--json", "--bootstrap", "200")
    assert code == 0
    report = json.loads(out)
    overall = report["overall"]
    assert overall["cases"] == {
        "valid": 10,
        "decided_by_anyone": 5,
        "not_decided": 5,
        "single_rating": 1,
        "two_or_more_ratings": 4,
        "stale": 0,
        "disputed": 1,
        "adjudicated": 0,
    }
    (pair,) = overall["pairs"]
    assert pair["reviewers"] == ["alice", "bob"] and pair["n"] == 4
    assert pair["decisions"]["percent"]["value"] == 0.75
    # κ by hand: p_o = 3/4; alice keep 3 failed 1, bob keep 2 failed 1 changed 1:
    # p_e = (3·2 + 1·1) / 16 = 7/16; κ = (12/16 - 7/16) / (9/16) = 5/9
    assert pair["decisions"]["kappa"]["value"] == round(5 / 9, 4)
    assert overall["alpha"]["decisions"]["n"] == 4
    assert len(overall["alpha"]["decisions"]["ci95"]) == 2
    assert report["confusion"]["reviewers"] == ["alice", "bob"]
    assert report["confusion"]["counts"][0][0] == 2  # keep / keep
    code, text, _ = run(capsys, "agreement", str(reviewed), "--bootstrap", "0")
    assert code == 0 and "Krippendorff's α, six decisions" in text
    assert "alice × bob: n=4, agreement 75%" in text and "confusion, alice (rows)" in text
    code, _, err = run(capsys, "agreement", str(reviewed), "--pair", "alice")
    assert code == 2 and "--pair" in err


def test_export_min_reviews_leaves_out_single_reviews_and_lists_every_case(
    reviewed: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "export", str(reviewed), str(tmp_path / "rel"), "--min-reviews", "2")
    assert code == 0, out
    assert "exported 2 cases" in out  # c00 and c01: kept by both
    left = [line.strip() for line in out.splitlines() if "left out:" in line]
    assert len(left) == 8  # every other case, one line each
    joined = "\n".join(left)
    assert "c04: 1 current review(s), 2 required" in joined
    assert "c03: reviewers disagree (alice: keep; bob: scene_changed)" in joined
    assert "c02: final decision Edited replacement failed" in joined
    assert "c09: not decided" in joined
    done = run_cli(
        "export", str(reviewed), str(tmp_path / "rel2"), "--min-reviews", "0", home=tmp_path
    )
    assert done.returncode == 2 and "--min-reviews" in done.stderr


def test_stats_shows_each_reviewers_progress_against_the_assignments(
    reviewed: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "assign", str(reviewed), "--reviewers", "alice,bob", "--overlap", "0")
    _, out, _ = run(capsys, "stats", str(reviewed), "--json")
    by = {r["reviewer"]: r for r in json.loads(out)["reviewers"]}
    assert by["alice"]["decided"] == 5 and by["bob"]["decided"] == 4
    assert by["alice"]["assigned"] == by["bob"]["assigned"] == 5
    assert by["alice"]["assigned_decided"] + by["alice"]["remaining"] == 5
    _, text, _ = run(capsys, "stats", str(reviewed))
    assert "per reviewer:" in text and "alice" in text and "assigned" in text


def test_time_counts_active_minutes_and_leaves_out_breaks(
    ten_cases: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def event(case_id: str, at: str, to: str | None = "keep") -> None:
        line = {"at": at, "reviewer": "alice", "event": "decision", "data": {"to": to}}
        with (ten_cases / "cases" / case_id / "history.jsonl").open("a") as fh:
            fh.write(json.dumps(line) + "\n")

    # four decisions a minute apart (3 active minutes), a two-hour lunch, two more
    for i, minute in enumerate(["00", "01", "02", "03"]):
        event(f"c0{i}", f"2026-11-29T10:{minute}:00Z")
    event("c04", "2026-11-29T12:03:00Z")
    event("c05", "2026-11-29T12:05:00Z")
    with (ten_cases / "cases/c06/history.jsonl").open("a") as fh:
        fh.write('{"at": "2026-11-29T12:0')  # a torn last line: reported, not counted
    code, out, _ = run(capsys, "time", str(ten_cases), "--json")
    report = json.loads(out)
    (alice,) = report["reviewers"]
    assert alice["active_minutes"] == 5.0 and alice["cases_decided"] == 6
    assert alice["sittings"] == 2 and alice["minutes_per_50_cases"] == round(5 / 6 * 50, 1)
    assert code == 1 and any("torn last line" in p for p in report["problems"])
    code, text, _ = run(capsys, "time", str(ten_cases), "--idle-minutes", "180")
    assert "Table 9" in text and " 125.0 " in text  # the lunch counts when idle may be 3 h


def test_team_settings_are_written_to_the_manifest_and_old_manifests_still_open(
    ten_cases: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = ten_cases / "sabre-project.json"
    assert json.loads(manifest.read_text())["version"] == 1
    assert Project.open(ten_cases, "alice").manifest.adjudicators == []  # version 1 loads
    code, out, _ = run(capsys, "team", str(ten_cases), "--adjudicators", "carol", "--blind", "off")
    assert code == 0 and "carol" in out and "blind review  off" in out
    data = json.loads(manifest.read_text())
    assert data["version"] == 2 and data["adjudicators"] == ["carol"] and data["blind"] is False
    assert data["name"] == "proj"  # every other key kept
    run(capsys, "team", str(ten_cases), "--blind", "default")
    assert "blind" not in json.loads(manifest.read_text())
    assert Project.open(ten_cases, "carol").is_adjudicator
    done = run_cli("team", str(ten_cases), "--adjudicators", "x/y", home=tmp_path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--adjudicators" in done.stderr
