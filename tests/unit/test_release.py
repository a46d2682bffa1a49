"""Export the reviewed demo, read it back field by field, verify it, score it."""

from __future__ import annotations

import base64
import csv
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from sabre_desk.core.case.project import Project
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import self_hash, verify
from sabre_desk.ground.errors import ProjectError

csv.field_size_limit(sys.maxsize)
KEPT = [
    "ctx01_tape_bagel",
    "attr01_red_triangles",
    "lang01_mug_back",
    "count01_apples",
    "spatial01_desk",
]


def review(root: Path, case_id: str, reviewer: str, **fields: object) -> None:
    path = root / "cases" / case_id / "reviews" / f"{reviewer}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"case_id": case_id, "reviewer": reviewer, **fields}))


@pytest.fixture
def reviewed(demo_project: Path) -> Path:
    for case_id in KEPT:
        review(demo_project, case_id, "alice", decision="keep")
    review(
        demo_project,
        "ctx01_tape_bagel",
        "alice",
        decision="keep",
        question_edits={"base_target": {"prompt": "Is a plain bagel on the bench?"}},
    )
    review(demo_project, "ctx02_apple_tennis_ball", "alice", decision="scene_changed")
    review(demo_project, "tex01_mug_brick", "alice", decision="keep")
    review(demo_project, "tex01_mug_brick", "bob", decision="edit_failed")  # disagreement
    review(demo_project, "tex02_board_marble", "alice", decision="keep")
    review(demo_project, "tex02_board_marble", "bob", decision="unsure")
    review(demo_project, "tex02_board_marble", "carol", decision="keep", adjudicated=True)
    return demo_project


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_export_writes_every_format_field_by_field(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    summary = export(Project.open(reviewed, "alice"), out)
    assert summary.cases == 6  # 5 kept + the adjudicated one; not the disagreement
    assert any("tex01_mug_brick: reviewers disagree" in s for s in summary.skipped)
    rows = rows_of(out / "benchmark.jsonl")
    assert [r["index"] for r in rows] == list(range(len(rows)))
    assert len({r["question_id"] for r in rows}) == len(rows)
    by_id = {r["question_id"]: r for r in rows}
    edited = by_id["ctx01_tape_bagel:base_target"]
    assert edited["question"] == "Is a plain bagel on the bench?"  # the reviewer's edit
    assert edited["answer"] == "no" and edited["format"] == "yes_no"
    assert edited["group_id"] == "ctx01_tape_bagel" and edited["subset"] == "context_prior"
    assert edited["base_file_name"] == "images/ctx01_tape_bagel__base.png"
    assert edited["provenance"]["edited"] and edited["provenance"]["reviewers"] == ["alice"]
    mcq = by_id["lang01_mug_back:hidden_print"]
    assert mcq["options"]["D"] == "Cannot be determined from the image" and mcq["answer"] == "D"
    assert by_id["tex02_board_marble:edited_target"]["provenance"]["decided"] == (
        "adjudicated by carol"
    )
    # the phone photo is exported upright, as the app shows it
    photo = by_id["count01_apples:apples"]["file_name"]
    assert photo.endswith(".png")
    with Image.open(out / photo) as img:
        assert img.size == (768, 512)
    meta = rows_of(out / "metadata.jsonl")
    assert len(meta) == len(rows) and all((out / m["file_name"]).is_file() for m in meta)
    card = (out / "README.md").read_text()
    assert card.startswith("---\n") and "task_categories:" in card and "configs:" in card
    release = json.loads((out / "release.json").read_text())
    assert release["cases"] == 6 and release["questions"] == len(rows)
    assert release["root_sha256"] == summary.root_hash
    assert release["release_sha256"] == self_hash(release)  # release.json seals itself


def test_vlmevalkit_tsvs_follow_its_conventions(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out, name="SABRE_DEMO")
    folder = out / "vlmevalkit"
    config = json.loads((folder / "SABRE_DEMO.json").read_text())
    # the shape VLMEvalKit's run.py --config reads: a model, and each dataset's class and name
    assert list(config) == ["model", "data"] and len(config["model"]) == 1
    assert config["data"]["SABRE_DEMO_YN"] == {
        "class": "ImageYORNDataset",
        "dataset": "SABRE_DEMO_YN",
    }
    assert config["data"]["SABRE_DEMO_MCQ"]["class"] == "ImageMCQDataset"
    assert config["data"]["SABRE_DEMO_OPEN"]["class"] == "ImageVQADataset"
    with (folder / "SABRE_DEMO_YN.tsv").open(newline="") as fh:
        yn = list(csv.DictReader(fh, delimiter="\t"))
    assert {r["answer"] for r in yn} == {"Yes", "No"}
    Image.open(io.BytesIO(base64.b64decode(yn[0]["image"]))).verify()
    # later questions on the same image point at the row that carries it (short cell)
    carriers = {r["index"]: r for r in yn if len(r["image"]) > 64}
    references = [r for r in yn if len(r["image"]) <= 64]
    assert references and all(r["image"] in carriers for r in references)
    with (folder / "SABRE_DEMO_MCQ.tsv").open(newline="") as fh:
        mcq = list(csv.DictReader(fh, delimiter="\t"))
    assert set(mcq[0]) >= {"index", "image", "question", "A", "B", "C", "D", "answer", "category"}
    assert all(r["answer"] in "ABCD" for r in mcq)


def test_verify_agrees_with_sha256sum_and_catches_every_tampering(
    reviewed: Path, tmp_path: Path
) -> None:
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out)
    assert verify(out).ok
    if shutil.which("sha256sum"):
        check = subprocess.run(
            ["sha256sum", "-c", "--quiet", "MANIFEST.sha256"],
            cwd=out,
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout + check.stderr
    image = next((out / "images").iterdir())
    data = bytearray(image.read_bytes())
    data[len(data) // 2] ^= 0xFF
    image.write_bytes(bytes(data))
    (out / "metadata.jsonl").unlink()
    (out / "images" / "stray.png").write_bytes(b"x")
    result = verify(out)
    # the image, and the per-question files in hf/ that are hard links to it
    assert result.changed[-1] == f"images/{image.name}"
    assert all(c.startswith("hf/") and image.stem in c for c in result.changed[:-1])
    assert result.missing == ["metadata.jsonl"]
    assert result.extra == ["images/stray.png"]
    cli = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "verify", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert cli.returncode == 1
    assert "CHANGED  images/" in cli.stdout and "MISSING  metadata.jsonl" in cli.stdout
    assert "EXTRA    images/stray.png" in cli.stdout


def test_an_interrupted_export_leaves_nothing(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"

    def explode(done: int, total: int, case_id: str) -> None:
        if done == 5:
            raise RuntimeError("power cut")

    with pytest.raises(RuntimeError):
        export(Project.open(reviewed, "alice"), out, progress=explode)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [tmp_path / "demo"]  # no partial folder either
    export(Project.open(reviewed, "alice"), out)
    with pytest.raises(ProjectError, match="already exists"):
        export(Project.open(reviewed, "alice"), out)


def test_score_by_hand_on_the_export(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out)
    rows = rows_of(out / "benchmark.jsonl")
    # a model that gets everything right except the counting case, and skips one question
    preds = []
    for row in rows:
        response = row["answer"]
        if row["subset"] == "counting":
            response = "six"
        if row["question_id"] == "spatial01_desk:right_of_lamp":
            continue
        preds.append({"question_id": row["question_id"], "response": f"{response}."})
    path = tmp_path / "preds.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in preds))
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "score", str(out), str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    by = {s["subset"]: s for s in report["subsets"]}
    assert by["counting"]["accuracy"] == 0.0
    assert by["spatial_relations"]["accuracy"] == 0.5  # one of two questions missing
    assert by["context_prior"]["accuracy"] == 1.0 and by["context_prior"]["metric"] == "All4"
    assert by["texture_prior"]["edit2"] == 1.0
    assert report["missing_predictions"] == 1
    subsets = [s["accuracy"] for s in report["subsets"]]
    assert report["macro_all_subsets"] == pytest.approx(sum(subsets) / len(subsets), abs=1e-4)
    prior = [s["accuracy"] for s in report["subsets"] if s["subset"] in report["macro_subsets"]]
    assert report["macro_subsets"] == ["context_prior", "language_elicitation", "texture_prior"]
    release = json.loads((out / "release.json").read_text())
    assert (report["release"], report["root_sha256"]) == (release["name"], release["root_sha256"])
    assert report["macro"] == pytest.approx(sum(prior) / len(prior), abs=1e-4)
    table = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "score", str(out), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert "macro (paper, Prior)" in table and "average, all subsets" in table
    assert "1 without a prediction" in table


def test_three_models_side_by_side_in_the_layout_of_table_7(reviewed: Path, tmp_path: Path) -> None:
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out)
    rows = rows_of(out / "benchmark.jsonl")
    files = []
    for name, wrong in (("perfect", set()), ("no_counts", {"counting"}), ("all_no", None)):
        path = tmp_path / f"{name}.jsonl"
        lines = []
        for row in rows:
            right = wrong is not None and row["subset"] not in wrong
            lines.append(
                {"question_id": row["question_id"], "response": row["answer"] if right else "no"}
            )
        path.write_text("\n".join(json.dumps(line) for line in lines))
        files.append(str(path))
    done = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "score", str(out), *files, "--table", "md"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    table = done.stdout.splitlines()
    assert table[0] == "| Subset | Metric | perfect | no_counts | all_no |"
    by_row = {tuple(c.strip() for c in line.strip("|").split("|")[:2]): line for line in table[2:]}
    assert ("context_prior", "All4 (P)") in by_row and ("context_prior", "Edit2") in by_row
    assert ("context_prior", "Q1 base_source") in by_row
    assert ("counting", "accuracy") in by_row  # a pilot: no (P)
    assert by_row[("Overall", "Macro Avg. (P)")].split("|")[3].strip() == "100.0"
    assert by_row[("counting", "accuracy")].split("|")[4].strip() == "0.0"
    assert "root sha256" in done.stderr
    tex = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "score", str(out), *files, "--table", "tex"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tex.stdout.startswith("\\begin{tabular}{llrrr}") and "context\\_prior" in tex.stdout


def test_every_question_says_where_its_case_came_from_and_the_card_the_funnel(
    reviewed: Path, tmp_path: Path
) -> None:
    """Primer (and its file's hash), generation record, the filter's latest run and answer,
    the reviewers' boxes and accepted repairs; release.json and the card give the funnel."""
    from sabre_desk.ground.hashing import sha256_file

    review(
        reviewed,
        "ctx01_tape_bagel",
        "alice",
        decision="keep",
        boxes=[{"image_role": "edited", "label": "target", "box": [0.4, 0.5, 0.6, 0.7]}],
    )
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out)
    row = next(r for r in rows_of(out / "benchmark.jsonl") if r["case_id"] == "ctx01_tape_bagel")
    origin = row["provenance"]
    primer = Path(__file__).parents[2] / "primers" / "context.md"
    assert origin["primer"]["name"] == "context"
    if primer.is_file():  # the checkout's primer is the one shipped
        assert origin["primer"]["sha256"] == sha256_file(primer)
    assert origin["generation"]["demo"] is True
    assert origin["screening"]["model"] and origin["filter_answer"]["correct"] in (True, False)
    assert origin["boxes"]["alice"][0]["box"] == [0.4, 0.5, 0.6, 0.7]
    release = json.loads((out / "release.json").read_text())
    funnel = release["funnel"]
    assert funnel["cases"] == funnel["valid"] == 13
    assert funnel["exported"] == release["cases"] > 0
    assert funnel["with_final"] >= funnel["exported"]
    assert sum(funnel["left_out"].values()) == 13 - funnel["exported"]
    assert "From 13 cases in the project (13 valid)" in (out / "README.md").read_text()


def test_score_reads_predictions_from_standard_input(reviewed: Path, tmp_path: Path) -> None:
    """`… | sabre-desk score REL -`: the same figures as from the file; a bad line is named
    as a line of standard input."""
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out)
    rows = rows_of(out / "benchmark.jsonl")
    lines = "\n".join(json.dumps({"question_id": r["question_id"], "response": "no"}) for r in rows)
    path = tmp_path / "preds.jsonl"
    path.write_text(lines)

    def score(*argv: str, given: str = "") -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "sabre_desk", "score", str(out), *argv, "--json"]
        return subprocess.run(command, input=given, capture_output=True, text=True, timeout=120)

    from_file, from_stdin = score(str(path)), score("-", given=lines)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert json.loads(from_stdin.stdout) == json.loads(from_file.stdout)
    report = json.loads(from_stdin.stdout)
    assert report["questions"] == len(rows) and report["missing_predictions"] == 0
    bad = score("-", given=lines + "\n{not json")
    assert bad.returncode == 1
    assert "standard input: line" in bad.stderr and "is not JSON" in bad.stderr
    assert "line" in json.loads(bad.stdout)["error"]  # --json: the error as JSON too
