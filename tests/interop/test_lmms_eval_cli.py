"""The release through lmms-eval's own command line (``pytest -m lmms_eval``, in an
environment holding ``lmms-eval`` and ``filelock<4``): the same local OpenAI-compatible
server answers lmms-eval and ``sabre-desk predict``, and lmms-eval reports the paper's macro
and the all-subsets average under ``score``'s names with ``score``'s figures, digit for
digit."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import NAME, SABRE_PYTHON, sabre

pytestmark = [pytest.mark.interop, pytest.mark.lmms_eval]

LMMS_EVAL = shutil.which("lmms-eval", path=str(Path(sys.executable).parent))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """`sabre-desk fake-server openai`: every question answered "Yes"."""
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(tmp_path)}
    proc = subprocess.Popen(
        [SABRE_PYTHON, "-m", "sabre_desk", "fake-server", "openai", "--answer", "Yes"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        found = re.search(r"at (http://127\.0\.0\.1:\d+/v1)", first)
        assert found, first
        yield found.group(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.mark.skipif(LMMS_EVAL is None, reason="lmms-eval is not installed here")
def test_lmms_eval_reports_the_papers_macro_under_scores_name_and_figure(
    release: Path, server: str, score: Callable[..., dict[str, object]], tmp_path: Path
) -> None:
    assert LMMS_EVAL is not None
    out = tmp_path / "lmms-out"
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-local",
        "OPENAI_API_BASE": server,
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
    }
    run = subprocess.run(
        [
            LMMS_EVAL,
            "--model",
            "openai",
            "--model_args",
            f"model_version=qwen,base_url={server},api_key=sk-local,num_concurrent=2",
            "--tasks",
            f"sabre_{NAME}",
            "--include_path",
            str(release / "lmms-eval"),
            "--batch_size",
            "1",
            "--output_path",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    results_file = next(out.rglob("*results*.json"))
    task = json.loads(results_file.read_text())["results"][f"sabre_{NAME}"]

    predictions = tmp_path / "preds.jsonl"
    home = tmp_path / "home"
    home.mkdir()
    os.environ["SABRE_DESK_LOCAL_BASE_URL"] = server
    try:
        sabre(home, "predict", str(release), "--model", "local:qwen", "--out", str(predictions))
    finally:
        del os.environ["SABRE_DESK_LOCAL_BASE_URL"]
    scored = score(predictions)
    assert isinstance(scored["macro"], float) and scored["macro"] != scored["macro_all_subsets"]
    assert task["macro,none"] == scored["macro"]
    assert task["macro_all_subsets,none"] == scored["macro_all_subsets"]
