"""VLMEvalKit reading and scoring a release, reproduced step by step.

VLMEvalKit is not on PyPI, so it cannot be installed here; this test follows, in the same
order and with the same library calls, the path its code takes (open-compass/VLMEvalKit at
e8e78f05), and says where each step comes from:

- ``run.py`` ``build_dataset_from_config(cfg, name, strict=True)``: ``cls(dataset=...)``
  with only the parameters its ``__init__`` takes;
- ``vlmeval/smp/file.py`` ``load``: ``pd.read_csv(path, sep='\\t')``, from ``$LMUData``;
- ``vlmeval/dataset/image_base.py`` ``ImageBaseDataset.__init__``: an image cell of at most
  64 characters is the index of the row holding the image;
- ``vlmeval/smp/vlm.py`` ``decode_base64_to_image``;
- ``image_yorn.py`` ``evaluate`` + ``utils/yorn.py`` ``YOrN_Extraction``, ``default_rating``;
- ``image_mcq.py`` ``evaluate_heuristic`` with exact matching + ``utils/multiple_choice.py``
  ``can_infer_option`` (a lone letter);
- ``image_vqa.py`` ``evaluate_heuristic`` + ``utils/vqa_eval.py`` ``process_line``
  (``vqa_score``) and ``hit_calculate`` (the mean).
"""

from __future__ import annotations

import ast
import base64
import csv
import io
import json
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from PIL import Image

pytestmark = pytest.mark.interop
INIT_PARAMETERS = {"dataset", "skip_noimg"}  # ImageBaseDataset.__init__(self, dataset, skip_noimg)
CLASSES = {"ImageYORNDataset": "YN", "ImageMCQDataset": "MCQ", "ImageVQADataset": "OPEN"}
_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
_NUMBERS = {"none": "0", **{word: str(n) for n, word in enumerate(_WORDS)}}
_PUNCT = re.compile(r"[;/\[\]\"{}()=+\\_\-><@`,?!*#%^&$:.']")


def _process_answer(text: str) -> str:
    """vqa_eval.process_answer for short answers: punctuation, number words, articles."""
    words = _PUNCT.sub("", text.replace("\n", " ").replace("\t", " ").strip()).lower().split()
    return " ".join(_NUMBERS.get(w, w) for w in words if w not in ("a", "an", "the"))


def _yorn(prediction: str) -> str:
    """yorn.YOrN_Extraction."""
    words = _PUNCT.sub(" ", prediction.lower()).split()
    if "yes" in words and "no" not in words:
        return "Yes"
    if "no" in words and "yes" not in words:
        return "No"
    return "Unknown"


def _load(lmu: Path, dataset: str) -> pd.DataFrame:
    """smp.load + ImageBaseDataset.__init__'s image map."""
    data = pd.read_csv(lmu / f"{dataset}.tsv", sep="\t")
    data["index"] = [str(x) for x in data["index"]]
    image_map = dict(zip(data["index"], [str(x) for x in data["image"]], strict=True))
    for key, value in image_map.items():
        if len(value) <= 64:
            assert value in image_map and len(image_map[value]) > 64
            image_map[key] = image_map[value]
    data["image"] = [image_map[k] for k in data["index"]]
    return data


def _evaluate(kind: str, data: pd.DataFrame, predictions: list[str]) -> float:
    """Overall score (%) of VLMEvalKit's evaluate for the dataset's class."""
    if kind == "YN":
        hits = [answer == _yorn(p) for answer, p in zip(data["answer"], predictions, strict=True)]
    elif kind == "MCQ":
        hits = [p.strip() == answer for answer, p in zip(data["answer"], predictions, strict=True)]
    else:
        hits = []
        for answer, prediction in zip(data["answer"], predictions, strict=True):
            answers = ast.literal_eval(answer) if str(answer).startswith("[") else [str(answer)]
            gt = [_process_answer(str(a)) for a in answers]
            pred = _process_answer(prediction)
            match = [
                min(1.0, sum(g == pred for j, g in enumerate(gt) if j != i) / 3)
                for i in range(len(gt))
            ]
            hits.append(float(np.mean(match)))
    return float(np.mean(hits) * 100)


@pytest.fixture(scope="module")
def lmu(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """LMUData set up the way the card says: the TSVs copied out, the release untouched."""
    home = tmp_path_factory.mktemp("home")
    card = (release / "README.md").read_text()
    command = next(line.strip() for line in card.splitlines() if "export LMUData=" in line)
    subprocess.run(
        ["bash", "-c", command], cwd=release, env={"HOME": str(home)}, check=True, timeout=60
    )
    return home / "LMUData"


def test_run_py_builds_each_dataset_from_the_config(release: Path, lmu: Path) -> None:
    config = json.loads(next((release / "vlmevalkit").glob("*.json")).read_text())
    assert set(config) == {"model", "data"} and config["model"]  # run.py reads cfg['model']
    assert sorted(CLASSES[entry["class"]] for entry in config["data"].values()) == [
        "MCQ",
        "OPEN",
        "YN",
    ]
    for name, entry in config["data"].items():
        assert set(entry) - {"class"} <= INIT_PARAMETERS  # strict: no unsupported parameter
        assert (lmu / f"{entry['dataset']}.tsv").is_file(), name


def test_every_row_loads_with_its_image_and_its_text(
    release: Path, lmu: Path, rows: list[dict[str, Any]]
) -> None:
    config = json.loads(next((release / "vlmevalkit").glob("*.json")).read_text())
    by_index = {str(r["index"]): r for r in rows}
    seen = 0
    for entry in config["data"].values():
        data = _load(lmu, entry["dataset"])
        for _, line in data.iterrows():
            row = by_index[line["index"]]
            assert line["question"] == row["question"]  # quotes and tabs survive
            image = Image.open(io.BytesIO(base64.b64decode(line["image"])))
            with Image.open(release / row["image"]) as original:
                assert np.array_equal(np.asarray(image), np.asarray(original))
            if entry["class"] == "ImageMCQDataset":
                assert [line[k] for k in "ABCD"] == list(row["options"].values())
            seen += 1
    assert seen == len(rows)


def _predictions(
    lmu: Path, release: Path, work: Path, wrong: Callable[[pd.Series], bool]
) -> tuple[dict[str, float], list[Path]]:
    """Each dataset's score and its prediction table as run.py dumps it (PRED_FORMAT=tsv:
    vlmeval/smp/file.py dump_tsv, every cell quoted)."""
    config = json.loads(next((release / "vlmevalkit").glob("*.json")).read_text())
    scores, files = {}, []
    for entry in config["data"].values():
        data = _load(lmu, entry["dataset"])
        kind = CLASSES[entry["class"]]
        predictions = []
        for _, line in data.iterrows():
            answer = str(line["answer"])
            if answer.startswith("["):
                answer = ast.literal_eval(answer)[0]
            predictions.append("17" if wrong(line) else answer)
        scores[kind] = _evaluate(kind, data, predictions)
        table = data.drop(columns=["image"]).assign(prediction=predictions)
        file = work / f"MODEL_{entry['dataset']}.tsv"
        table.to_csv(file, sep="\t", index=False, encoding="utf-8", quoting=csv.QUOTE_ALL)
        files.append(file)
    return scores, files


def test_perfect_predictions_score_100_in_every_part(
    release: Path, lmu: Path, tmp_path: Path, score: Callable[..., dict[str, Any]]
) -> None:
    scores, files = _predictions(lmu, release, tmp_path, lambda line: False)
    assert scores == {"YN": 100.0, "MCQ": 100.0, "OPEN": 100.0}
    report = score(*files)
    assert report["macro"] == 1.0 and report["missing_predictions"] == 0


def test_a_known_imperfect_model_scores_what_it_should(
    release: Path, lmu: Path, tmp_path: Path, rows: list[dict[str, Any]], score: Callable[..., Any]
) -> None:
    counting = {str(r["index"]) for r in rows if r["subset"] == "counting"}
    scores, files = _predictions(lmu, release, tmp_path, lambda line: line["index"] in counting)
    opened = [r for r in rows if r["format"] == "open"]
    right = sum(str(r["index"]) not in counting for r in opened)
    assert scores["YN"] == 100.0 and scores["MCQ"] == 100.0
    assert scores["OPEN"] == pytest.approx(100 * right / len(opened))
    by = {s["subset"]: s["accuracy"] for s in score(*files)["subsets"]}
    assert by["counting"] == 0.0 and by["attribute_count"] == 1.0
