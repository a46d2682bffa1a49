"""A project damaged in every way the validator knows: `stats` (text and ``--json``),
`validate --json` and the index the window reads say the same, figure by figure.

Every figure of `stats`' text is read back and compared with ``--json``; the JSON is held to
its own sums (valid + invalid = cases, this reviewer's decision rows add up to the cases and
to ``decided_by_me``, a stage of the funnel never exceeds the one before); the invalid cases
and their reasons are `validate`'s; and the index, once each case's verdict is recorded
(``Project.record_verdict``, what the window calls), gives the very counts and reasons.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from damaged_projects import SCREENING, TRUNCATED, damage_every_way, validate_reason
from factories import run_cli, write_review
from PIL import Image

from sabre_desk.core.case.binding import image_hashes
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.core.team.counts import LEFT_OUT_LABELS, LeftOut
from sabre_desk.core.team.team import case_team

# --- reading `stats`' text back ----------------------------------------------------------

LEFT_OUT_KEYS = {label: reason.value for reason, label in LEFT_OUT_LABELS.items()}
PIPELINE_KEYS = {
    "specified": "specified",  # specified + failed + imaged (``Funnel.stages``)
    "imaged": "imaged",
    "valid": "valid",
    "screened": "screened",
    "kept by the filter": "kept",
    "decided by anyone": "decided_by_anyone",
    "final Keep": "final_keep",
}


def _pairs(text: str, sep: str) -> list[tuple[str, int]]:
    """'invalid 6, not decided 1' → [('invalid', 6), ('not decided', 1)]."""
    out = []
    for part in text.split(sep):
        name, _, number = part.rpartition(" ")
        out.append((name, int(number)))
    return out


def read_stats_text(text: str) -> dict[str, Any]:
    """Every figure of `stats`' text, under the names of ``--json``; a line it does not
    know fails the test (a figure the walk would miss)."""
    lines = text.rstrip("\n").split("\n")
    found: dict[str, Any] = {
        "by_subset": {},
        "my_decisions_by_subset": {},
        "my_decisions": {},
        "reviewers": {},
        "invalid_cases": [],
        "pipeline": {"stages": {}, "failures": []},
        "problems": [],
    }
    counts: dict[str, Any] = {"left_out": {}}
    found["counts"] = counts
    section = "head"
    for line in lines:
        if not line:
            continue
        if not line.startswith("  "):
            if line.startswith("problem: "):
                found["problems"].append(line.removeprefix("problem: "))
                continue
            headings = {
                "per subset (cases; my decisions):": "subsets",
                "my decisions:": "mine",
                "per reviewer:": "reviewers",
                "invalid cases (`validate` says why):": "invalid",
                "pipeline:": "pipeline",
            }
            if section == "head" and "(counts; 'me' is " in line:
                found["reviewer"] = line.rsplit("'me' is ", 1)[1].removesuffix("):")
                continue
            assert line in headings, f"a line the walk does not know: {line!r}"
            section = headings[line]
            continue
        body = line[2:]
        if section == "head":
            if m := re.fullmatch(r"cases (\d+): valid (\d+), invalid (\d+)", body):
                counts["cases"], counts["valid"], counts["invalid"] = map(int, m.groups())
            elif body.startswith("decided by me "):
                for name, n in _pairs(body, ", "):
                    counts[name.replace(" ", "_")] = n
            elif body.startswith("with final "):
                (_, with_final), (_, keep) = _pairs(body, ", ")
                counts["with_final"], counts["final_keep"] = with_final, keep
            elif body.startswith("left out: "):
                for part in body.removeprefix("left out: ").split("; "):
                    number, label = part.split(" ", 1)  # "7 not decided": the number leads
                    counts["left_out"][LEFT_OUT_KEYS[label]] = int(number)
            else:
                raise AssertionError(f"a counts line the walk does not know: {line!r}")
        elif section == "subsets":
            m = re.fullmatch(r"(.+?)\s+(\d+)   \((.*)\)", body)
            assert m, line
            subset, n, detail = m.group(1), int(m.group(2)), m.group(3)
            found["by_subset"][subset] = n
            found["my_decisions_by_subset"][subset] = dict(_pairs(detail, ", "))
        elif section == "mine":
            m = re.fullmatch(r"(.+?)\s+(\d+)", body)
            assert m, line
            found["my_decisions"][m.group(1)] = int(m.group(2))
        elif section == "reviewers":
            name, _, rest = body.partition(" ")
            row: dict[str, Any] = {"assigned": None, "assigned_decided": None}
            for part in rest.strip().split(", "):
                if m := re.fullmatch(r"decided\s+(\d+)", part):
                    row["decided"] = int(m.group(1))
                elif m := re.fullmatch(r"assigned (\d+) / (\d+) done", part):
                    row["assigned_decided"], row["assigned"] = map(int, m.groups())
                elif m := re.fullmatch(r"(\d+) stale \(decided on earlier images\)", part):
                    row["stale"] = int(m.group(1))
                elif m := re.fullmatch(r"(\d+) adjudicated", part):
                    row["adjudicated"] = int(m.group(1))
                else:
                    raise AssertionError(f"a reviewer's figure the walk does not know: {part!r}")
            found["reviewers"][name] = row
        elif section == "invalid":
            case_id, _, why = body.partition(": ")
            found["invalid_cases"].append({"case_id": case_id, "reason": why})
        elif section == "pipeline":
            pipeline = found["pipeline"]
            if m := re.fullmatch(
                r"waiting for images: (\d+), failed (\d+), specifications never valid: (\d+)",
                body,
            ):
                waiting, failed, never = map(int, m.groups())
                pipeline["waiting"], pipeline["failed"], pipeline["spec_failures"] = (
                    waiting,
                    failed,
                    never,
                )
            elif m := re.fullmatch(r"model calls: (\d+), cost so far: \$(\d+\.\d\d)", body):
                pipeline["calls"], pipeline["cost_usd"] = int(m.group(1)), float(m.group(2))
            elif body.startswith("failed "):
                what, _, reason = body.removeprefix("failed ").partition(": ")
                pipeline["failures"].append({"what": what, "reason": reason})
            elif m := re.fullmatch(r"(.+?)\s+(\d+|–)", body):
                key = PIPELINE_KEYS[m.group(1)]
                pipeline["stages"][key] = None if m.group(2) == "–" else int(m.group(2))
            else:
                raise AssertionError(f"a pipeline line the walk does not know: {line!r}")
    return found


# --- the test -----------------------------------------------------------------------------


@pytest.fixture
def damaged(demo_project: Path) -> tuple[Path, dict[str, str]]:
    return demo_project, damage_every_way(demo_project)


def test_stats_text_json_and_validate_never_contradict_one_another(
    damaged: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, expected = damaged
    home = tmp_path / "home"
    checked = run_cli("validate", str(root), "--json", "--reviewer", "alice", home=home)
    assert checked.returncode == 1, checked.stderr
    validate = json.loads(checked.stdout)
    as_json = run_cli("stats", str(root), "--json", "--reviewer", "alice", home=home)
    assert as_json.returncode == 0, as_json.stderr
    stats = json.loads(as_json.stdout)
    as_text = run_cli("stats", str(root), "--reviewer", "alice", home=home)
    assert as_text.returncode == 0, as_text.stderr
    text = read_stats_text(as_text.stdout)

    # validate: exactly the damaged cases are invalid, each for its own reason
    verdicts = {c["case_id"]: c for c in validate["cases"]}
    invalid = {c for c, report in verdicts.items() if not report["valid"]}
    assert invalid == set(expected)
    for case_id, word in expected.items():
        assert word in validate_reason(verdicts[case_id]), (case_id, verdicts[case_id])
    history = verdicts["spatial02_above_red"]
    assert history["valid"] and [p["severity"] for p in history["problems"]] == ["warning"]

    # every figure of the text is the JSON's
    counts = stats["counts"]
    assert text["reviewer"] == stats["reviewer"] == "alice"
    assert text["counts"] == counts
    assert text["by_subset"] == stats["by_subset"]
    assert text["my_decisions"] == stats["my_decisions"]
    assert text["my_decisions_by_subset"] == stats["my_decisions_by_subset"]
    assert text["reviewers"] == {
        r["reviewer"]: {
            "decided": r["decided"],
            "assigned": r["assigned"],
            "assigned_decided": r["assigned_decided"],
            **({"stale": r["stale"]} if r["stale"] else {}),
            **({"adjudicated": r["adjudicated"]} if r["adjudicated"] else {}),
        }
        for r in stats["reviewers"]
    }
    pipeline = stats["pipeline"]
    assert text["pipeline"]["stages"] == {
        "specified": pipeline["specified"] + pipeline["failed"] + pipeline["imaged"],
        **{key: pipeline[key] for key in PIPELINE_KEYS.values() if key != "specified"},
    }
    assert text["pipeline"]["waiting"] == pipeline["specified"]
    assert text["pipeline"]["failed"] == pipeline["failed"]
    assert text["pipeline"]["spec_failures"] == pipeline["spec_failures"]
    assert text["pipeline"]["calls"] == pipeline["calls"]
    assert text["pipeline"]["cost_usd"] == round(pipeline["cost_usd"], 2)
    assert text["pipeline"]["failures"] == pipeline["failures"]
    assert text["problems"] == []

    # the JSON never contradicts itself
    cases = counts["cases"]
    assert counts["valid"] + counts["invalid"] == cases
    assert counts["final_keep"] + sum(counts["left_out"].values()) == cases
    assert counts["left_out"].get(LeftOut.INVALID.value, 0) == counts["invalid"]
    assert counts["decided_by_me"] <= counts["decided_by_anyone"] <= counts["valid"]
    assert counts["final_keep"] <= counts["with_final"] <= counts["decided_by_anyone"]
    mine = stats["my_decisions"]
    decisions = {k: n for k, n in mine.items() if k not in ("invalid", "not decided", "stale")}
    assert sum(decisions.values()) == counts["decided_by_me"]  # the filed issue's contradiction
    assert sum(mine.values()) == cases
    assert mine.get("invalid", 0) == counts["invalid"]
    assert sum(stats["by_subset"].values()) == cases
    for subset, rows in stats["my_decisions_by_subset"].items():
        assert sum(rows.values()) == stats["by_subset"][subset]
    for row in mine:
        assert sum(r.get(row, 0) for r in stats["my_decisions_by_subset"].values()) == mine[row]
    me = next(r for r in stats["reviewers"] if r["reviewer"] == "alice")
    assert me["decided"] == counts["decided_by_me"]
    assert me["assigned"] == 2 and me["assigned_decided"] == 1  # the truncated one is not
    assert pipeline["imaged"] == cases and pipeline["valid"] == counts["valid"]
    assert pipeline["screened"] <= pipeline["valid"] and pipeline["kept"] <= pipeline["screened"]
    assert pipeline["decided_by_anyone"] == counts["decided_by_anyone"]
    assert pipeline["final_keep"] == counts["final_keep"]
    failed = {f["what"] for f in pipeline["failures"]}
    assert not failed & invalid  # an invalid case is listed as invalid, not as a failure

    # ... nor validate's verdicts: the same cases, the same reasons
    assert (validate["cases_total"], validate["cases_invalid"]) == (cases, counts["invalid"])
    assert text["invalid_cases"] == stats["invalid_cases"]
    assert stats["invalid_cases"] == [
        {"case_id": c["case_id"], "reason": validate_reason(c)}
        for c in sorted(validate["cases"], key=lambda c: c["case_id"])
        if not c["valid"]
    ]
    # the cases: kept, then damaged — invalid, and no decision of theirs counts
    assert mine.get("keep", 0) == counts["decided_by_me"] == 2
    assert counts == {
        "cases": 23,
        "valid": 5,
        "invalid": 18,
        "decided_by_me": 2,
        "decided_by_anyone": 3,
        "stale": 1,
        "disputed": 1,
        "with_final": 2,
        "final_keep": 2,
        "left_out": {"disputed": 1, "invalid": 18, "stale": 1, "not_decided": 1},
    }


def test_the_index_the_window_reads_says_what_validate_says(
    damaged: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """Qt-free, as the window does it: the index, its counts in the workbench, and each
    case's verdict recorded into the index (``Project.record_verdict``)."""
    root, expected = damaged
    checked = run_cli("validate", str(root), "--json", "--reviewer", "alice", home=tmp_path)
    validate = {c["case_id"]: c for c in json.loads(checked.stdout)["cases"]}
    stats = json.loads(
        run_cli("stats", str(root), "--json", "--reviewer", "alice", home=tmp_path).stdout
    )
    project = Project.open(root, "alice")
    # what the index sees at once is said in validate's words (a corrupt screening.json too)
    quick = {e.case_id: e.problem_text for e in project.entries if e.problem is not None}
    assert SCREENING in quick
    for case_id, text in quick.items():
        assert text == validate_reason(validate[case_id]), case_id
    workbench = Workbench()
    workbench.set_entries(project.entries)
    assert workbench.counts.unchecked == workbench.counts.cases - len(quick)
    validity = Validity(project)
    for entry in list(project.entries):
        recorded = project.record_verdict(validity.verdict(entry.case_id))
        assert recorded is not None
        workbench.update_entry(recorded)
    counts = workbench.counts
    expected_counts = stats["counts"]
    assert (counts.cases, counts.valid, counts.invalid, counts.decided_by_me) == (
        expected_counts["cases"],
        expected_counts["valid"],
        expected_counts["invalid"],
        expected_counts["decided_by_me"],
    )
    assert counts.unchecked == 0
    for entry in project.entries:
        report = validate[entry.case_id]
        assert entry.problem_text == (None if report["valid"] else validate_reason(report))
    # the decision kept before the image was cut: stale because the file is unreadable,
    # never "a repair"
    case = project.load_case(TRUNCATED)
    team = case_team(project, case, image_hashes(case.images), validity.check(TRUNCATED))
    assert team.own_stale
    assert "truncated" in team.own_stale_why and "repair" not in team.own_stale_why
    # a case re-read from disk keeps its verdict while its file is unchanged, and loses it
    # once the file is fixed
    fresh = project.fresh_entry(SCREENING)
    assert fresh is not None and fresh.problem_text == validate_reason(validate[SCREENING])
    (root / "cases" / SCREENING / "screening.json").unlink()
    fresh = project.fresh_entry(SCREENING)
    assert fresh is not None and fresh.problem is None and not fresh.checked
    assert expected  # every damage kind was made


def test_a_check_without_decoding_leaves_a_valid_case_unchecked_and_says_why_a_decision_is_stale(
    demo_project: Path,
) -> None:
    """A verdict made without decoding (``Validity(decode=False)``) cannot tell a truncated
    image: a valid one leaves the entry unchecked; a decision on an image rewritten outside
    the app is "replaced", never "a repair"."""
    from sabre_desk.core.case.validity import verdicts

    cases = demo_project / "cases"
    write_review(cases / TRUNCATED, "alice", "keep")
    image = cases / TRUNCATED / "edited.png"
    image.write_bytes(image.read_bytes()[: image.stat().st_size // 3])
    write_review(cases / "tex01_mug_brick", "alice", "keep")
    edited = cases / "tex01_mug_brick" / "edited.png"
    with Image.open(edited) as img:
        replaced = img.convert("RGB")
    replaced.putpixel((0, 0), (9, 9, 9))
    replaced.save(edited)
    project = Project.open(demo_project, "alice")
    workbench = Workbench()
    workbench.set_entries(project.entries)
    quick = verdicts(Validity(project, decode=False), [TRUNCATED, "tex01_mug_brick"])
    assert all(v.valid and not v.decoded for v in quick)
    for verdict in quick:
        workbench.update_entry(project.record_verdict(verdict))  # type: ignore[arg-type]
    assert workbench.counts.invalid == 0 and workbench.counts.unchecked == workbench.counts.cases
    validity = Validity(project)
    (cut,) = verdicts(validity, [TRUNCATED])
    assert cut.text is not None and cut.text.startswith("edited.png: ") and "truncated" in cut.text
    workbench.update_entry(project.record_verdict(cut))  # type: ignore[arg-type]
    entry = project.entry(TRUNCATED)
    assert entry is not None and entry.checked and entry.problem_text == cut.text
    assert workbench.counts.invalid == 1
    case = project.load_case("tex01_mug_brick")
    team = case_team(project, case, image_hashes(case.images), validity.check(case.case_id))
    replaced_why = "edited.png was replaced since (not by a repair made in sabre-desk)"
    assert team.own_stale_why == replaced_why
