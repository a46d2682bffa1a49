"""The pipeline's three models behind one fake Gemini: shipped in the package
(``sabre_desk.demo.fake_servers.pipeline``, what `sabre-desk fake-server pipeline` runs);
the tests add ``serving_pipeline``. Run as a script, it is that command:

    python tests/fakes/pipeline.py --port 8765
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pytest

from fakes.gemini_server import FakeGemini, serving
from sabre_desk.demo.fake_servers.pipeline import (
    SCENES,
    SIZES,
    PipelineModels,
    context_spec,
    edited_png,
    image_body,
    scene_png,
)

__all__ = [
    "SCENES",
    "SIZES",
    "PipelineModels",
    "context_spec",
    "edited_png",
    "image_body",
    "scene_png",
    "serving_pipeline",
]


@contextmanager
def serving_pipeline(
    monkeypatch: pytest.MonkeyPatch, key: str
) -> Iterator[tuple[FakeGemini, PipelineModels]]:
    """``serving``, the server answering as the pipeline's three models."""
    with serving(monkeypatch, key) as server:
        answer = PipelineModels()
        server.answer = answer
        yield server, answer


def main() -> None:
    import argparse

    from sabre_desk.cli import main as sabre_desk

    parser = argparse.ArgumentParser(description="fake pipeline models on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    sys.exit(sabre_desk(["fake-server", "pipeline", "--port", str(args.port)]))


if __name__ == "__main__":
    main()
