"""Shared fixtures: isolated settings, real project folders in tmp, the demo project."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from factories import png_bytes, yes_no_spec
from fakes.gemini_server import FakeGemini
from fakes.pipeline import PipelineModels, serving_pipeline

#: the API key the fake pipeline models are served with
PIPELINE_KEY = "pipeline-key-" + "p" * 24


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--headed", action="store_true", help="show GUI tests on a real screen")


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("--headed"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


@pytest.fixture(autouse=True)
def _isolated_settings(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Tests never read or write the real user's settings file or cache folder."""
    folder = tmp_path_factory.mktemp("config")
    monkeypatch.setenv("SABRE_DESK_CONFIG_DIR", str(folder))
    monkeypatch.setenv("SABRE_DESK_CACHE_DIR", str(tmp_path_factory.mktemp("user-cache")))
    return folder


@pytest.fixture(scope="session")
def demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from sabre_desk.demo.writer import write_demo_project

    return write_demo_project(tmp_path_factory.mktemp("demo-master") / "demo")


@pytest.fixture
def demo_project(demo_master: Path, tmp_path: Path) -> Path:
    """A private copy of the demo project for one test to change at will."""
    return Path(shutil.copytree(demo_master, tmp_path / "demo"))


ProjectFactory = Callable[..., Path]


@pytest.fixture
def make_project(tmp_path: Path) -> ProjectFactory:
    """Create an empty project folder (manifest only)."""

    def make(name: str = "proj") -> Path:
        root = tmp_path / name
        (root / "cases").mkdir(parents=True)
        (root / "sabre-project.json").write_text(
            json.dumps({"format": "sabre-desk-project", "version": 1, "name": name})
        )
        return root

    return make


@pytest.fixture
def add_case() -> Callable[..., Path]:
    """Write a valid paired_edit case (spec + two PNGs) into a project; returns its folder."""

    def add(
        root: Path,
        case_id: str,
        spec: dict[str, Any] | None = None,
        images: dict[str, bytes] | None = None,
    ) -> Path:
        folder = root / "cases" / case_id
        folder.mkdir(parents=True)
        spec = spec if spec is not None else yes_no_spec(concept_id=case_id)
        (folder / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
        if images is None:
            images = {"base.png": png_bytes(), "edited.png": png_bytes(color=(200, 90, 40))}
        for name, data in images.items():
            (folder / name).write_bytes(data)
        return folder

    return add


@pytest.fixture
def project_with(
    make_project: ProjectFactory, add_case: Callable[..., Path]
) -> Callable[..., Path]:
    """A project of valid paired cases with the given ids; returns its root."""

    def make(*case_ids: str) -> Path:
        root = make_project()
        for case_id in case_ids:
            add_case(root, case_id)
        return root

    return make


@pytest.fixture
def pipeline_models(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[FakeGemini, PipelineModels]]:
    """The fake Gemini answering as the pipeline's three models, found through the
    environment (a child process the test starts finds it too)."""
    with serving_pipeline(monkeypatch, PIPELINE_KEY) as models:
        yield models


@pytest.fixture
def context_project(tmp_path: Path) -> Path:
    """A new project of the Context primer, as `init` or File > New Project makes it."""
    from sabre_desk.core.making.new_project import init_project

    return init_project(tmp_path / "made", "made", "context")
