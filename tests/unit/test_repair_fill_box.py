"""The "fill the whole box" choice: the patch-based engine fills only what stands out in a box
by default; asked to, it fills every pixel of it, as the other offline engines do."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sabre_desk.cli import main

CASE = "ctx03_wrench_banana"
BOX = "0.345,0.595,0.41,0.69"


def test_repair_fill_box_fills_every_pixel_of_the_box_on_the_command_line(
    demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """By default the patch-based engine keeps the photo's own pixels in the box round what
    stands out; ``--fill-box`` replaces the whole box, as the other offline engines do."""
    folder = demo_project / "cases" / CASE
    before = np.asarray(Image.open(folder / "edited.png").convert("RGB")).astype(int)
    base = ["repair", str(demo_project), CASE, "--reviewer", "alice", "--box", BOX]
    for extra in ([], ["--fill-box"]):
        assert main([*base, "--engine", "patchmatch", *extra]) == 0, capsys.readouterr().err
    records = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    h, w = before.shape[:2]
    x0, y0, x1, y1 = (float(v) for v in BOX.split(","))
    box = (slice(int(y0 * h) + 3, int(y1 * h) - 3), slice(int(x0 * w) + 3, int(x1 * w) - 3))
    kept = []
    for record in records:
        after = np.asarray(Image.open(folder / record["preview"]).convert("RGB")).astype(int)
        kept.append(float((np.abs(after[box] - before[box]).max(axis=2) == 0).mean()))
    only_what_stands_out, whole_box = kept
    assert only_what_stands_out > 0.2, kept  # the photo's own pixels left in the box
    assert whole_box < 0.05, kept  # every pixel of it filled
