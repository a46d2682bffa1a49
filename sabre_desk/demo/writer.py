"""Write the demo project to a folder (deterministic: the same bytes every time)."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from sabre_desk.core.case.project import CASES_DIR
from sabre_desk.core.making.new_project import init_project
from sabre_desk.demo.builders import DemoCase
from sabre_desk.demo.cases import CASE_BUILDERS, tex_mug_brick
from sabre_desk.demo.waiting import write_waiting_specs
from sabre_desk.ground.aside import built_aside
from sabre_desk.ground.storage import atomic_write_bytes, atomic_write_json

DEMO_SCREENING_MODEL = "demo-filter (synthetic)"
DEMO_NOTE = "DEMO DATA: synthetic screening answers written by `sabre-desk demo`; no model was run."
DEMO_STAMP = "2026-11-29T15:00:00Z"
SEED = 20261129


def _png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(buf, format="PNG", compress_level=6)
    return buf.getvalue()


def _rotated_jpeg(pixels: np.ndarray, orientation: int) -> bytes:
    """A JPEG whose stored pixels are rotated, with the EXIF tag that shows them upright."""
    if orientation != 6:
        raise ValueError("the demo only writes orientation 6 (a phone held upright)")
    stored = np.ascontiguousarray(np.rot90(pixels, 1))  # viewers rotate 90° clockwise back
    exif = Image.Exif()
    exif[0x0112] = orientation
    buf = io.BytesIO()
    Image.fromarray(stored, "RGB").save(buf, format="JPEG", quality=92, exif=exif.tobytes())
    return buf.getvalue()


def _first_token(text: str) -> str:
    words = {
        "zero": "0",
        "one": "1",
        "two": "2",
        "three": "3",
        "four": "4",
        "five": "5",
        "six": "6",
        "seven": "7",
        "eight": "8",
        "nine": "9",
        "ten": "10",
    }
    tokens = re.findall(r"[a-z0-9]+", text.lower())
    tokens = [t for t in tokens if t != "the"]
    return words.get(tokens[0], tokens[0]) if tokens else ""


def _screening(case: DemoCase) -> dict[str, Any]:
    results = {}
    for question in case.spec["questions"]:
        response = case.responses[question["probe_id"]]
        correct = _first_token(response) == question["answer"].lower()
        results[question["probe_id"]] = {
            "question": question["prompt"],  # what was asked and graded against, as a run
            "answer": question["answer"],  # records them (an edit then shows as stale)
            "response": response,
            "correct": correct,
        }
    return {
        "runs": [
            {"model": DEMO_SCREENING_MODEL, "at": DEMO_STAMP, "note": DEMO_NOTE, "results": results}
        ]
    }


def case_rng(build: Callable[..., DemoCase]) -> np.random.Generator:
    """The random numbers the demo draws ``build``'s case with: the same on every machine
    and run, so a test or a benchmark can build the very case the demo project holds (with
    or without its defect: ``tex_mug_brick(case_rng(tex_mug_brick), smeared=False)``)."""
    return np.random.default_rng([SEED, CASE_BUILDERS.index(build)])


#: boxes reviewers draw round tex01's smear, in pixels of its edited image (x0, y0, x1, y1):
#: close round it, a few pixels wider, and the guide's (which takes in a third of the mug)
SMEAR_BOXES: dict[str, tuple[int, int, int, int]] = {
    "close round the smear": (146, 356, 254, 434),
    "a few pixels wider": (140, 350, 262, 440),
    "the guide's": (130, 338, 269, 448),
}


def smear_and_truth() -> tuple[np.ndarray, np.ndarray]:
    """tex01's edited image (RGB) and the same without its smear, which is drawn last, so
    nothing else differs: what a repair of the smear should give back, for the tests and
    the benchmark that score one."""
    edited, truth = (
        np.ascontiguousarray(
            tex_mug_brick(case_rng(tex_mug_brick), smeared).images["edited"][..., :3]
        )
        for smeared in (True, False)
    )
    return edited, truth


def build_demo_cases() -> list[DemoCase]:
    return [build(case_rng(build)) for build in CASE_BUILDERS]


def write_demo_project(dest: Path, name: str = "sabre-desk demo") -> Path:
    """Create the demo project in *dest* (which must not exist or be empty), whole or not
    at all: it is built in a folder aside and renamed into place only when every case is
    written, so a run that fails or is killed half-way never leaves a project that a later
    ``demo`` would open as the demo (it opens whatever project is there)."""
    dest = Path(dest)
    if dest.is_dir() and not any(dest.iterdir()):
        dest.rmdir()  # an empty folder the user chose: the whole demo takes its place
    elif dest.exists() or dest.is_symlink():
        return init_project(dest, name)  # says why it cannot go there, writing nothing
    with built_aside(dest) as aside:
        _write_demo_into(aside, name)
    return dest


def _write_demo_into(folder: Path, name: str) -> None:
    dest = init_project(folder, name, created_at=DEMO_STAMP, extra={"demo": True})
    for case in build_demo_cases():
        folder = dest / CASES_DIR / case.case_id
        folder.mkdir()
        atomic_write_json(folder / "spec.json", case.spec)
        for role, pixels in case.images.items():
            orientation = case.exif_orientation.get(role)
            if orientation:
                atomic_write_bytes(folder / f"{role}.jpg", _rotated_jpeg(pixels, orientation))
            else:
                atomic_write_bytes(folder / f"{role}.png", _png(pixels))
        atomic_write_json(folder / "screening.json", _screening(case))
    write_waiting_specs(dest, DEMO_STAMP)
