"""The release loads in Hugging Face ``datasets`` (2.21 and the newest) as the card says,
and lmms-eval's way of loading its task reads the same rows and scores them by the rules."""

from __future__ import annotations

import importlib.util
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import datasets
import numpy as np
import pytest
import yaml
from conftest import NAME
from huggingface_hub import DatasetCard
from PIL import Image

pytestmark = pytest.mark.interop


def test_load_dataset_gives_every_question_with_its_own_image(
    release: Path, rows: list[dict[str, Any]]
) -> None:
    ds = datasets.load_dataset(str(release), split="test")
    assert len(ds) == len(rows) == 31  # datasets 2.21 once returned fewer: rows shared files
    assert isinstance(ds.features["image"], datasets.Image)
    assert set(ds.features["options"]) == {"A", "B", "C", "D"}
    assert not [c for c in ds.column_names if c.endswith("_file_name")]
    for loaded, row in zip(ds, rows, strict=True):
        assert loaded["index"] == row["index"] and loaded["question"] == row["question"]
        assert loaded["answer"] == row["answer"]
        assert loaded["options"] == row.get("options")  # None outside multiple choice
        with Image.open(release / row["image"]) as img:
            assert np.array_equal(np.asarray(loaded["image"]), np.asarray(img))
    assert ds[0]["question"].startswith('"Red"')


def test_the_card_is_valid_and_quotes_its_name(release: Path) -> None:
    card = DatasetCard.load(release / "README.md")
    assert card.data.pretty_name == NAME  # the string "2026", not the number
    assert card.data.license == "other"
    assert card.data.license_name and card.data.license_link
    features = card.data.to_dict()["dataset_info"]["features"]
    assert [f["name"] for f in features][:2] == ["image", "index"]


def test_a_release_loads_without_a_word_about_its_card(
    release: Path, caplog: pytest.LogCaptureFixture, recwarn: pytest.WarningsRecorder
) -> None:
    """Every load of a release is quiet: a card ``datasets`` finds malformed (a split with no
    ``num_bytes``) prints a warning that a benchmark's users read as a broken release."""
    caplog.set_level(logging.DEBUG)
    datasets.load_dataset(str(release), split="test")
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    said += [str(w.message) for w in recwarn]
    assert not [m for m in said if any(w in m.lower() for w in ("card", "malformed", "split"))]
    info = DatasetCard.load(release / "README.md").data.to_dict()["dataset_info"]
    loaded = [release / "metadata.jsonl", *(release / "hf").iterdir()]
    assert info["splits"][0]["num_bytes"] == sum(path.stat().st_size for path in loaded)


def _lmms_eval_yaml(path: Path) -> dict[str, Any]:
    """The task YAML read as lmms-eval reads it: ``!function utils.name`` is that function
    of the utils.py beside it (lmms_eval/utils.py, load_yaml_config)."""
    spec = importlib.util.spec_from_file_location("utils", path.parent / "utils.py")
    assert spec and spec.loader
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)

    class Loader(yaml.SafeLoader):
        pass

    def function(loader: yaml.Loader, node: yaml.Node) -> Callable[..., Any]:
        return getattr(utils, str(loader.construct_scalar(node)).split(".")[-1])

    Loader.add_constructor("!function", function)
    return dict(yaml.load(path.read_text(), Loader=Loader))


def test_the_lmms_eval_task_loads_the_release_and_scores_like_sabre_desk(
    release: Path, rows: list[dict[str, Any]], score: Callable[..., dict[str, Any]], tmp_path: Path
) -> None:
    config = _lmms_eval_yaml(next((release / "lmms-eval").glob("*.yaml")))
    # lmms_eval/api/task.py ConfigurableTask.download: load_dataset(path=dataset_path, …)
    dataset = datasets.load_dataset(
        path=config["dataset_path"],
        name=config.get("dataset_name"),
        download_mode=datasets.DownloadMode.REUSE_DATASET_IF_EXISTS,
        num_proc=1,
    )[config["test_split"]]
    kwargs = config["lmms_eval_specific_kwargs"]["default"]
    wrong = {r["question_id"] for r in rows if r["subset"] == "counting"}
    for responses, expected in ((set(), 1.0), (wrong, None)):
        items = []
        predictions = []
        for doc in dataset:
            assert config["doc_to_visual"](doc)[0].mode == "RGB"
            assert config["doc_to_text"](doc, kwargs).startswith(doc["question"])
            answer = "many" if doc["question_id"] in responses else doc["answer"]
            result = config["process_results"](doc, [answer])
            items += [v for k, v in result.items() if k == config["metric_list"][1]["metric"]]
            predictions.append({"question_id": doc["question_id"], "response": answer})
        assert config["metric_list"][1]["metric"] == "macro_all_subsets"
        macro = config["metric_list"][1]["aggregation"](items)
        file = tmp_path / f"p{len(responses)}.jsonl"
        file.write_text("\n".join(json.dumps(p) for p in predictions))
        assert macro == score(file)["macro_all_subsets"]
        if expected is not None:
            assert macro == expected
        else:
            assert macro < 1
