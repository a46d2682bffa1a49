"""What a release gives the tools people evaluate with, checked without those tools (the
round trips through the real readers are the `interop` step, tests/interop/)."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_release import review, reviewed, rows_of

from sabre_desk.core.case.project import Project
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import verify
from sabre_desk.ground.errors import ProjectError

csv.field_size_limit(sys.maxsize)


__all__ = ["reviewed"]  # the fixture: test_release's reviewed demo project


@pytest.fixture
def release(reviewed: Path, tmp_path: Path) -> Path:
    # a question that starts with a quote and holds a tab: TSVs must keep both
    edits = {"base_count": {"prompt": '"Red" triangles:\thow many are there?'}}
    review(reviewed, "attr01_red_triangles", "alice", decision="keep", question_edits=edits)
    out = tmp_path / "release"
    export(Project.open(reviewed, "alice"), out, name="2026")
    return out


def test_every_hf_row_has_its_own_image_file_and_the_same_columns(release: Path) -> None:
    meta = rows_of(release / "metadata.jsonl")
    canonical = rows_of(release / "benchmark.jsonl")
    assert len(meta) == len(canonical)
    columns = list(meta[0])
    assert all(list(row) == columns for row in meta)  # one schema, every column on every row
    assert not [c for c in columns if c.endswith("_file_name")]  # one image column only
    names = [row["file_name"] for row in meta]
    assert len(set(names)) == len(names)  # datasets < 3 keys rows by file: none may share
    for row, source in zip(meta, canonical, strict=True):
        assert row["question_id"] == source["question_id"]
        assert (release / row["file_name"]).read_bytes() == (release / source["image"]).read_bytes()
        assert (row["options"] is None) == (source["format"] != "multiple_choice")
    assert verify(release).ok


def test_the_card_quotes_its_name_and_declares_license_and_features(
    release: Path, reviewed: Path, tmp_path: Path
) -> None:
    card = (release / "README.md").read_text()
    header = card.split("---\n")[1]
    assert 'pretty_name: "2026"' in header  # a string, not the number 2026
    assert "license: other" in header and "license_name:" in header and "license_link:" in header
    assert "  features:\n  - name: image\n    dtype: image\n" in header
    rows = len(rows_of(release / "metadata.jsonl"))
    assert f"num_examples: {rows}\n" in header and "- hf/*" in header
    licensed = tmp_path / "licensed"
    export(Project.open(reviewed, "alice"), licensed, license_id="cc-by-4.0")
    header = (licensed / "README.md").read_text().split("---\n")[1]
    assert "license: cc-by-4.0\n" in header and "license_name" not in header
    with pytest.raises(ProjectError, match="not a license id the Hub knows"):
        export(Project.open(reviewed, "alice"), tmp_path / "x", license_id="cc-by-5.0")
    with pytest.raises(ProjectError, match="VLMEvalKit score it as its own MME"):
        export(Project.open(reviewed, "alice"), tmp_path / "y", name="MME_copy")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_tsv_cells_keep_quotes_tabs_and_open_answers_score_in_vlmevalkit(release: Path) -> None:
    with (release / "vlmevalkit" / "2026_OPEN.tsv").open(newline="", encoding="utf-8") as fh:
        rows = {r["index"]: r for r in csv.DictReader(fh, delimiter="\t")}
    canonical = {str(r["index"]): r for r in rows_of(release / "benchmark.jsonl")}
    quoted = next(r for r in rows.values() if r["question"].startswith('"Red"'))
    assert quoted["question"] == '"Red" triangles:\thow many are there?'
    for index, row in rows.items():
        # VLMEvalKit's VQA score needs several references that agree (see export_formats)
        assert eval(row["answer"]) == [canonical[index]["answer"]] * 10


def _vlmevalkit_predictions(release: Path, wrong: set[str]) -> list[Path]:
    """Prediction tables as VLMEvalKit writes them with PRED_FORMAT=tsv (all cells quoted)."""
    files = []
    for tsv in sorted((release / "vlmevalkit").glob("*.tsv")):
        with tsv.open(newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        out = tsv.parent.parent.parent / f"MODEL_{tsv.name}"
        with out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, delimiter="\t", quoting=csv.QUOTE_ALL)
            writer.writerow(["index", "question", "answer", "prediction"])
            for r in rows:
                answer = r["answer"] if r["answer"][:1] != "[" else eval(r["answer"])[0]
                prediction = "9" if r["index"] in wrong else answer
                writer.writerow([r["index"], r["question"], r["answer"], prediction])
        files.append(out)
    return files


def _score(release: Path, predictions: list[Path]) -> dict[str, Any]:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sabre_desk",
            "score",
            str(release),
            *map(str, predictions),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def test_score_reads_vlmevalkit_prediction_tables(release: Path) -> None:
    perfect = _vlmevalkit_predictions(release, set())
    assert len(perfect) == 3  # YN, MCQ and OPEN together cover the release
    report = _score(release, perfect)
    assert report["macro"] == 1.0 and report["missing_predictions"] == 0
    rows = rows_of(release / "benchmark.jsonl")
    wrong = {str(r["index"]) for r in rows if r["subset"] == "counting"}
    report = _score(release, _vlmevalkit_predictions(release, wrong))
    by = {s["subset"]: s["accuracy"] for s in report["subsets"]}
    assert by["counting"] == 0.0 and by["spatial_relations"] == 1.0


def test_the_lmms_eval_utils_run_without_sabre_desk_and_agree_with_score(
    release: Path, tmp_path: Path
) -> None:
    rows = rows_of(release / "metadata.jsonl")
    task = release / "lmms-eval"
    yaml = next(task.glob("*.yaml")).read_text()
    assert "task: sabre_2026\n" in yaml and f"dataset_path: {json.dumps(str(release))}" in yaml
    docs = tmp_path / "docs.json"
    responses = {r["question_id"]: r["answer"] for r in rows}
    responses[rows[0]["question_id"]] = "no idea"  # one wrong answer
    docs.write_text(json.dumps([{**r, "response": responses[r["question_id"]]} for r in rows]))
    # -S: no site-packages at all, so the task cannot lean on sabre-desk being installed
    script = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import utils; "
        "docs = json.load(open(sys.argv[2])); "
        "results = [utils.process_results(d, [d['response']]) for d in docs]; "
        "print(utils.aggregate_macro([r['macro'] for r in results])); "
        "print(utils.aggregate_macro_all_subsets([r['macro_all_subsets'] for r in results])); "
        "print(utils.doc_to_text(docs[-1], {'multiple_choice': ' LETTER'}))"
    )
    run = subprocess.run(
        [sys.executable, "-S", "-c", script, str(task), str(docs)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    macro, macro_all, *prompt = run.stdout.splitlines()
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(
        "\n".join(json.dumps({"question_id": q, "response": a}) for q, a in responses.items())
    )
    scored = _score(release, [predictions])
    # the same names as score --json, and the same figures to the last digit
    assert "metric: macro\n" in yaml and "metric: macro_all_subsets\n" in yaml
    assert float(macro) == scored["macro"]
    assert float(macro_all) == scored["macro_all_subsets"]
    assert float(macro_all) < 1
    last = rows[-1]
    assert prompt[0] == last["question"]
    if last["options"]:
        assert prompt[-1].endswith(" LETTER")
