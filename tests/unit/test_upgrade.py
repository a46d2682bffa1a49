"""Projects written by earlier sabre-desks: they open unchanged or say, in one line, that
`sabre-desk upgrade` is needed; the upgrade migrates them in place, atomically, with
backups, touching no review or image, and a second run changes nothing.

The fixtures under tests/fixtures/projects/ were written by earlier sabre-desks (see the
README there): format 1 and format 2 projects whose attribute_count and spatial cases were
made with the earlier primers, and a format 2 project made with today's primers.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from factories import read_only, run_cli

from sabre_desk.cli import main
from sabre_desk.cli.common import upgrade_plan_of
from sabre_desk.core.case.answer_rules import CASE_SCORED
from sabre_desk.core.case.binding import image_hashes, is_stale
from sabre_desk.core.case.manifest import PROJECT_VERSION
from sabre_desk.core.case.primer_changes import PRIMER_CHANGES, recorded_primers
from sabre_desk.core.case.primers import PrimerLibrary, check_case, load_primer
from sabre_desk.core.case.project import Project
from sabre_desk.core.team.final import all_reviews, settle
from sabre_desk.core.upgrade.upgrade import REPORT_NAME, UpgradeError, upgrade_project
from sabre_desk.core.upgrade.upgrade_plan import plan_upgrade
from sabre_desk.ground.hashing import sha256_file

FIXTURES = Path(__file__).parent.parent / "fixtures"
EARLIER = ("format1-earlier-primers", "format2-earlier-primers")
CURRENT = "format2-current-primers"
MOVED = {
    "attr01_red_triangles": ("attribute_count", "attribute_two_property"),
    "attr02_blue_circles": ("attribute_count", "attribute_two_property"),
    "spatial01_desk": ("spatial", "spatial_relations"),
    "spatial02_above_red": ("spatial", "spatial_relations"),
}


def copy_fixture(name: str, tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / "projects" / name, tmp_path / name))


@pytest.fixture(params=EARLIER)
def earlier(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return copy_fixture(request.param, tmp_path)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def files(root: Path, pattern: str = "**/*") -> dict[str, bytes]:
    """Every file under *root* matching *pattern* (backups and locks aside), by path."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.glob(pattern))
        if p.is_file() and ".sabre-desk" not in p.parts and not p.name.endswith(".lock")
    }


def untouched(root: Path) -> dict[str, bytes]:
    """What an upgrade must never change: reviews, images, screening, history."""
    kept = {}
    for pattern in ("cases/*/reviews/*.json", "cases/*/*.png", "cases/*/screening.json"):
        kept.update(files(root, pattern))
    kept.update(files(root, "cases/*/history.jsonl"))
    return kept


# --- before: one line --------------------------------------------------------------------


@pytest.mark.parametrize("command", ["validate", "stats", "export"])
def test_an_earlier_project_says_in_one_line_that_upgrade_is_needed(
    earlier: Path, command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    before = files(earlier)
    extra = [str(tmp_path / "release")] if command == "export" else []
    code, out, err = run(capsys, command, str(earlier), *extra, "--reviewer", "alice")
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"sabre-desk upgrade {earlier}" in lines[0]
    assert "attribute_count → attribute_two_property ×2" in lines[0]
    assert "spatial → spatial_relations ×2" in lines[0]
    assert "reviews and images stay as they are" in lines[0]
    assert "canonical_count" not in err and "lattice" not in err  # not the cryptic errors
    assert files(earlier) == before and not (tmp_path / "release").exists()


def test_validate_json_says_what_the_upgrade_will_change(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "validate", str(earlier), "--json", "--reviewer", "alice")
    report = json.loads(out)
    assert code == 1 and report["valid"] is False and report["upgrade"]["needed"] is True
    moved = {c["file"]: (c["from"], c["to"]) for c in report["upgrade"]["changes"] if "to" in c}
    assert moved == {f"cases/{case}/spec.json": types for case, types in MOVED.items()}
    assert len(err.strip().splitlines()) == 1
    assert report["exit_code"] == 1 and report["error"] in err  # one object, the error in it


def test_a_project_made_with_todays_primers_works_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fixture(CURRENT, tmp_path)
    for command in ("validate", "stats"):
        code, out, err = run(capsys, command, str(root), "--reviewer", "alice")
        assert code == 0 and "upgrade" not in out + err
    assert "4 cases, all valid" in run(capsys, "validate", str(root), "--reviewer", "a")[1]
    plan = plan_upgrade(root)
    assert not plan.needed and not plan.moves  # only the record is new, never a need
    assert plan.manifest is not None and plan.manifest.old_version == 2


# --- the upgrade ---------------------------------------------------------------------------


def test_upgrade_migrates_and_the_project_validates_clean(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = files(earlier)
    kept = untouched(earlier)
    code, out, _ = run(capsys, "upgrade", str(earlier))
    assert code == 0
    for case, (old, new) in MOVED.items():
        assert f"cases/{case}/spec.json: pressure_test_type {old} → {new}" in out
    version = json.loads(original["sabre-project.json"])["version"]
    assert f"sabre-project.json: version {version} → {PROJECT_VERSION}" in out
    assert "5 file(s) rewritten" in out
    code, out, err = run(capsys, "validate", str(earlier), "--reviewer", "alice")
    assert code == 0 and "5 cases, all valid" in out and err == ""
    assert untouched(earlier) == kept  # reviews, images, screening, history: byte for byte
    for case, (old, new) in MOVED.items():
        before = json.loads(original[f"cases/{case}/spec.json"])
        after = json.loads((earlier / "cases" / case / "spec.json").read_text())
        record = after.pop("upgraded")
        assert after == {**before, "pressure_test_type": new}  # nothing else in the spec
        assert [(r["from"], r["to"]) for r in record] == [(old, new)]
    context = "cases/ctx01_tape_bagel/spec.json"
    assert (earlier / context).read_bytes() == original[context]
    manifest = json.loads((earlier / "sabre-project.json").read_text())
    assert manifest["version"] == PROJECT_VERSION
    library = PrimerLibrary.for_project(earlier)
    recorded = {n: r.model_dump(mode="json") for n, r in recorded_primers(library).items()}
    assert manifest["primers"] == recorded
    assert manifest["primers"]["two_property"]["sha256"] == sha256_file(
        library.primers["two_property"].path
    )
    old_manifest = json.loads(original["sabre-project.json"])
    assert {k: manifest[k] for k in old_manifest if k != "version"} == {
        k: v for k, v in old_manifest.items() if k != "version"
    }  # every other key kept (the demo flag, the team settings)


def test_backups_hold_the_old_bytes_of_every_rewritten_file(earlier: Path) -> None:
    original = files(earlier)
    result = upgrade_project(earlier)
    assert result.backup is not None
    assert result.backup.parent == earlier / ".sabre-desk"
    assert result.backup.name.startswith("upgrade-backup-")
    expected = [*(f"cases/{c}/spec.json" for c in sorted(MOVED)), "sabre-project.json"]
    assert result.written == expected
    for rel in expected:
        assert (result.backup / rel).read_bytes() == original[rel]
        assert (earlier / rel).read_bytes() != original[rel]
    report = json.loads((result.backup / REPORT_NAME).read_text())
    assert report["finished"] is True and report["written"] == expected


def test_a_second_upgrade_changes_nothing_and_says_so(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, "upgrade", str(earlier))
    after_first = {str(p): p.stat().st_mtime_ns for p in earlier.rglob("*") if p.is_file()}
    code, out, _ = run(capsys, "upgrade", str(earlier))
    assert code == 0 and out.startswith("nothing to upgrade:") and "nothing was written" in out
    assert {str(p): p.stat().st_mtime_ns for p in earlier.rglob("*") if p.is_file()} == (
        after_first
    )
    assert len(list((earlier / ".sabre-desk").iterdir())) == 1  # no second backup folder
    code, out, _ = run(capsys, "upgrade", str(earlier), "--json")
    assert code == 0 and json.loads(out)["changed"] is False


def test_a_dry_run_says_what_would_change_and_writes_nothing(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = {str(p): p.read_bytes() for p in earlier.rglob("*") if p.is_file()}
    code, out, _ = run(capsys, "upgrade", str(earlier), "--dry-run")
    assert code == 0 and "dry run: nothing was written" in out
    assert "cases/spatial01_desk/spec.json: pressure_test_type spatial → spatial_relations" in out
    assert {str(p): p.read_bytes() for p in earlier.rglob("*") if p.is_file()} == before
    assert not (earlier / ".sabre-desk").exists()


def test_decisions_screening_and_concepts_are_the_same_after_the_upgrade(earlier: Path) -> None:
    """Decisions are bound to image hashes (format 2) or to nothing (format 1), screening
    results to the images and the questions: a spec's new type changes none of them."""

    def state(root: Path) -> dict[str, Any]:
        project = Project.open(root, "alice")
        out = {}
        for entry in project.entries:
            case = project.load_case(entry.case_id)
            hashes = image_hashes(case.images)
            reviews = all_reviews(case)
            final = settle(reviews, hashes, project.manifest.adjudicators or None)
            screen = project.screening_of(case)
            out[entry.case_id] = {
                "concept": entry.concept_id,
                "stale": {n: is_stale(r, hashes) for n, r in reviews.items()},
                "final": (final.decision, final.why),
                "screening": screen.verdict,
                "checklist": {n: dict(r.checklist) for n, r in reviews.items()},
            }
        return out

    before = state(earlier)
    upgrade_project(earlier)
    after = state(earlier)
    assert after == before
    assert not any(any(s["stale"].values()) for s in after.values())
    assert after["attr02_blue_circles"]["final"][0] == "keep"  # carol's adjudication counts
    # the ticks of the earlier primer's checklist are items of the primer the case follows now
    library = PrimerLibrary.for_project(earlier)
    project = Project.open(earlier, "alice")
    for case_id in MOVED:
        primer, _ = library.for_spec(project.load_case(case_id).spec)
        assert primer is not None
        items = {f"primer:{c.id}" for c in primer.header.checklist}
        for ticks in after[case_id]["checklist"].values():
            assert {k for k in ticks if k.startswith("primer:")} <= items


def test_an_export_after_the_upgrade_carries_the_same_decisions(
    earlier: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = Project.open(earlier, "alice")
    adjudicators = project.manifest.adjudicators or None
    expected = {}
    for entry in project.entries:
        case = project.load_case(entry.case_id)
        final = settle(all_reviews(case), image_hashes(case.images), adjudicators)
        expected[entry.case_id] = final.decision
    run(capsys, "upgrade", str(earlier))
    out = tmp_path / "release"
    code, _, err = run(capsys, "export", str(earlier), str(out), "--reviewer", "alice")
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "benchmark.jsonl").read_text().splitlines()]
    exported = {r["case_id"]: r["provenance"]["decision"] for r in rows}
    assert exported == {c: d.value for c, d in expected.items() if d == "keep"}
    assert {r["case_id"]: r["subset"] for r in rows}["attr01_red_triangles"] == (
        "attribute_two_property"
    )
    assert run(capsys, "verify", str(out))[0] == 0


# --- stopped half-way ----------------------------------------------------------------------


def old_or_new(root: Path, original: dict[str, bytes]) -> dict[str, str]:
    """Each file the upgrade rewrites: "old" (its original bytes) or "new" (a whole JSON
    document of the current version); anything else fails the test."""
    states = {}
    for rel in [*(f"cases/{c}/spec.json" for c in MOVED), "sabre-project.json"]:
        raw = (root / rel).read_bytes()
        if raw == original[rel]:
            states[rel] = "old"
            continue
        data = json.loads(raw)
        assert data.get("upgraded") or data.get("version") == PROJECT_VERSION, rel
        states[rel] = "new"
    leftovers = [p for p in root.rglob("*.sabre-tmp")]
    assert leftovers == []
    return states


@pytest.fixture
def third_spec_fails(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """os.replace fails (a full disk, a yanked drive) when the third spec would be put in
    place; ``failing["on"] = False`` lets the next run through."""
    real = os.replace
    failing: dict[str, Any] = {"on": True, "specs": 0}

    def replace(src: Any, dst: Any) -> None:
        if str(dst).endswith("spec.json") and "upgrade-backup" not in str(dst):
            failing["specs"] += 1
            if failing["on"] and failing["specs"] == 3:
                raise OSError(28, "No space left on device", str(dst))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    return failing


def test_an_upgrade_that_fails_half_way_puts_every_file_back_and_a_rerun_upgrades(
    earlier: Path, capsys: pytest.CaptureFixture[str], third_spec_fails: dict[str, Any]
) -> None:
    original = files(earlier)
    code, out, err = run(capsys, "upgrade", str(earlier))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "No space left on device" in err and "nothing was changed" in err
    assert "spec.json" in err  # the file it could not put in place
    assert set(old_or_new(earlier, original).values()) == {"old"}  # the two switched put back
    assert not (earlier / ".sabre-desk" / "upgrade-journal.json").exists()
    assert not list((earlier / ".sabre-desk").glob("upgrade-backup-*"))  # nothing left over
    # still said on every command, with everything to do
    code, _, err = run(capsys, "validate", str(earlier), "--reviewer", "alice")
    assert code == 1 and "renames the task of 4 cases" in err
    third_spec_fails["on"] = False
    code, out, err = run(capsys, "upgrade", str(earlier))
    assert code == 0, err
    assert "5 file(s) rewritten" in out
    assert set(old_or_new(earlier, original).values()) == {"new"}
    code, out, _ = run(capsys, "validate", str(earlier), "--reviewer", "alice")
    assert code == 0 and "all valid" in out


def test_a_case_folder_that_cannot_be_written_stops_the_upgrade_and_a_rerun_finishes(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    original = files(earlier)
    with read_only(earlier / "cases" / "spatial01_desk"):
        code, _, err = run(capsys, "upgrade", str(earlier))
        assert code == 1 and "spatial01_desk" in err and "nothing was changed" in err
        states = old_or_new(earlier, original)
    assert set(states.values()) == {"old"}  # the project as it was, not a mix
    code, _, err = run(capsys, "upgrade", str(earlier))
    assert code == 0, err
    assert set(old_or_new(earlier, original).values()) == {"new"}
    backups = sorted((earlier / ".sabre-desk").iterdir())
    assert [b.name.startswith("upgrade-backup-") for b in backups] == [True]  # the run's own
    first = backups[0] / "cases" / "attr01_red_triangles" / "spec.json"
    assert first.read_bytes() == original["cases/attr01_red_triangles/spec.json"]
    assert not (backups[0] / ".staged").exists()


def test_a_read_only_project_is_not_upgraded(earlier: Path) -> None:
    before = files(earlier)
    with read_only(earlier), pytest.raises(UpgradeError, match="cannot be written"):
        upgrade_project(earlier)
    assert files(earlier) == before


# --- which cases move ----------------------------------------------------------------------


def test_only_cases_of_the_earlier_task_move(tmp_path: Path) -> None:
    """A project with a case of each attribute task: only the earlier one is renamed."""
    root = copy_fixture("format2-earlier-primers", tmp_path)
    current = FIXTURES / "projects" / CURRENT / "cases" / "attr02_traffic_light"
    shutil.copytree(current, root / "cases" / "attr02_traffic_light")
    plan = plan_upgrade(root)
    assert sorted(m.case_id for m in plan.moves) == sorted(MOVED)
    upgrade_project(root)
    spec = json.loads((root / "cases" / "attr02_traffic_light" / "spec.json").read_text())
    assert spec["pressure_test_type"] == "attribute_count" and "upgraded" not in spec


def test_a_project_keeping_its_own_copy_of_an_earlier_primer_keeps_its_cases(
    tmp_path: Path,
) -> None:
    root = copy_fixture("format1-earlier-primers", tmp_path)
    (root / "primers").mkdir()
    shutil.copy(FIXTURES / "primers-earlier" / "attribute.md", root / "primers")
    plan = plan_upgrade(root)
    assert {m.old_type for m in plan.moves} == {"spatial"}  # its attribute is version 1


def test_the_earlier_primers_are_the_ones_the_fixtures_were_made_with(tmp_path: Path) -> None:
    """The earlier primers as they were shipped: their hashes are the ones recorded, the
    fixtures' cases meet their rules, and their checklists are those of the primers that
    carry the tasks now (a reviewer's ticks keep their meaning)."""
    library = PrimerLibrary.for_project(None)
    project = Project.open(FIXTURES / "projects" / "format1-earlier-primers", "alice")
    for change in PRIMER_CHANGES:
        path = FIXTURES / "primers-earlier" / f"{change.primer}.md"
        assert sha256_file(path) == change.earlier_sha256
        earlier = load_primer(path)
        assert earlier.header.version == change.earlier_version
        assert earlier.header.pressure_test_type == change.pressure_test_type
        now = library.primers[change.moved_to]
        assert [c.id for c in now.header.checklist] == [c.id for c in earlier.header.checklist]
        assert library.primers[change.primer].header.version > change.earlier_version
        # scored question by question before and after: a screening gate's verdict, even
        # one a pending batch job computes with the old name, is the same
        new_type = now.header.pressure_test_type
        assert change.pressure_test_type not in CASE_SCORED and new_type not in CASE_SCORED
        assert change.marker in library.primers[change.primer].header.rules.required_attributes
        for case_id, (old, _) in MOVED.items():
            if old == change.pressure_test_type:
                assert check_case(project.load_case(case_id).spec, earlier) == []


def test_a_default_primer_of_the_earlier_task_follows_it(
    make_project: Callable[..., Path], add_case: Callable[..., Path]
) -> None:
    root = make_project()
    manifest = json.loads((root / "sabre-project.json").read_text())
    (root / "sabre-project.json").write_text(json.dumps({**manifest, "primer": "attribute"}))
    add_case(root, "c1")  # a type no primer claims: the default primer's rules apply
    plan = plan_upgrade(root)
    assert plan.needed and plan.manifest is not None
    assert plan.manifest.default_primer == ("attribute", "two_property")
    upgrade_project(root)
    assert json.loads((root / "sabre-project.json").read_text())["primer"] == "two_property"
    assert not plan_upgrade(root).changes


def test_new_projects_record_their_primers_and_need_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "new"
    assert run(capsys, "init", str(root))[0] == 0
    manifest = json.loads((root / "sabre-project.json").read_text())
    assert manifest["version"] == PROJECT_VERSION
    assert manifest["primers"]["attribute"]["version"] == 2
    assert not plan_upgrade(root).changes
    code, out, _ = run(capsys, "upgrade", str(root))
    assert code == 0 and out.startswith("nothing to upgrade")


def test_team_settings_keep_an_upgraded_manifest_at_its_version(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    upgrade_project(earlier)
    assert run(capsys, "team", str(earlier), "--blind", "off", "--reviewer", "alice")[0] == 0
    manifest = json.loads((earlier / "sabre-project.json").read_text())
    assert manifest["version"] == PROJECT_VERSION and manifest["blind"] is False
    assert not plan_upgrade(earlier).changes


def test_a_newer_project_or_no_project_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fixture(CURRENT, tmp_path)
    manifest = json.loads((root / "sabre-project.json").read_text())
    (root / "sabre-project.json").write_text(json.dumps({**manifest, "version": 99}))
    code, _, err = run(capsys, "upgrade", str(root))
    assert code == 2 and "newer than this sabre-desk understands" in err
    code, _, err = run(capsys, "upgrade", str(tmp_path / "nothing"))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_the_command_as_a_user_runs_it_and_where_it_is_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_fixture("format1-earlier-primers", tmp_path)
    done = run_cli("upgrade", str(root), home=tmp_path / "home")
    assert done.returncode == 0 and done.stderr == ""
    assert "upgraded: 5 file(s) rewritten; the old ones are in .sabre-desk/" in done.stdout
    done = run_cli("validate", str(root), "--reviewer", "alice", home=tmp_path / "home")
    assert done.returncode == 0 and "all valid" in done.stdout
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "upgrade" in capsys.readouterr().out
    checkout = Path(__file__).parents[2]
    readme = (checkout / "README.md").read_text()
    assert "[upgrading](docs/guide/upgrading.md)" in readme
    commands = (checkout / "docs" / "commands.md").read_text()
    assert "sabre-desk upgrade PROJECT [--dry-run] [--json]" in commands
    assert (
        "sabre-desk upgrade sabre-desk-demo --dry-run"
        in (checkout / "docs" / "guide" / "upgrading.md").read_text()
    )


def test_a_case_folder_linked_from_outside_is_never_read_or_rewritten(
    earlier: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = Path(shutil.copytree(earlier / "cases" / "spatial01_desk", tmp_path / "outside"))
    before = (outside / "spec.json").read_bytes()
    (earlier / "cases" / "linked").symlink_to(outside, target_is_directory=True)
    assert "linked" not in {m.case_id for m in plan_upgrade(earlier).moves}
    project = Project.open(earlier, "alice")
    assert "linked" not in {m.case_id for m in upgrade_plan_of(project).moves}
    assert run(capsys, "upgrade", str(earlier))[0] == 0
    assert (outside / "spec.json").read_bytes() == before


def test_a_spec_that_cannot_be_read_is_left_as_it_is_and_said(
    earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = earlier / "cases" / "broken"
    broken.mkdir()
    (broken / "spec.json").write_text('{"pressure_test_type": "spatial", ')
    code, out, _ = run(capsys, "upgrade", str(earlier))
    assert code == 0 and "not read, left as it is: cases/broken/spec.json: unreadable" in out
    assert (broken / "spec.json").read_text() == '{"pressure_test_type": "spatial", '
    code, out, err = run(capsys, "validate", str(earlier), "--reviewer", "alice")
    assert code == 1 and "INVALID  broken" in out and "upgrade" not in out + err
