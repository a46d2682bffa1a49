"""Round trips through the real readers of a release (``pytest -m interop``).

These tests run in throwaway environments that hold the consumer libraries (the oldest
and the newest supported ``datasets``, pandas), not sabre-desk's own: the release is
made by sabre-desk's interpreter (``SABRE_DESK_PYTHON``, else this one) in a subprocess,
exactly as a user makes it from the command line.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

SABRE_PYTHON = os.environ.get("SABRE_DESK_PYTHON", sys.executable)
if importlib.util.find_spec("datasets") is None:
    # sabre-desk's own environment has no consumer libraries: nothing here to run there
    collect_ignore_glob = ["test_*.py"]
else:
    # A fresh Hugging Face cache per run (set before any test imports datasets): datasets
    # 2.21 can reuse a cached table of an earlier release at another path, whose images
    # are gone.
    os.environ["HF_HOME"] = tempfile.mkdtemp(prefix="sabre-interop-hf-")
    atexit.register(shutil.rmtree, os.environ["HF_HOME"], True)
NAME = "2026"  # a release name YAML would read as a number unless quoted


def sabre(home: Path, *args: str) -> str:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home), "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [SABRE_PYTHON, "-m", "sabre_desk", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project, every case kept, one question edited to start with a quote."""
    root = tmp_path_factory.mktemp("interop")
    project = root / "demo"
    sabre(root, "demo", str(project), "--no-open")
    for case in sorted((project / "cases").iterdir()):
        (case / "reviews").mkdir(exist_ok=True)
        review = {"case_id": case.name, "reviewer": "alice", "decision": "keep"}
        if case.name == "attr01_red_triangles":
            edit = {"prompt": '"Red" triangles:\thow many are there?'}
            review["question_edits"] = {"base_count": edit}
        (case / "reviews" / "alice.json").write_text(json.dumps(review))
    sabre(root, "export", str(project), str(root / "release"), "--name", NAME)
    return root / "release"


@pytest.fixture(scope="session")
def rows(release: Path) -> list[dict[str, object]]:
    lines = (release / "benchmark.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


@pytest.fixture(scope="session")
def score(release: Path) -> Callable[..., dict[str, object]]:
    """``sabre-desk score --json`` on prediction files."""

    def run(*predictions: Path) -> dict[str, object]:
        out = sabre(release.parent, "score", "--json", str(release), *map(str, predictions))
        return dict(json.loads(out))

    return run
