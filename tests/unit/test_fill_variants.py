"""Repaired again, a box gets another fill from the patch-based engine, never the same pixels;
each fill is numbered in its record and can be made again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from sabre_desk.core.case.review import RepairRecord
from sabre_desk.core.repair import comparison
from sabre_desk.demo.writer import SMEAR_BOXES, smear_and_truth
from sabre_desk.engines.base import RepairOp
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.ground import limits
from sabre_desk.imaging.geometry import normalize

SMEAR_BOX = SMEAR_BOXES["close round the smear"]
BOX = (0.2, 0.3, 0.4, 0.5)


def record(engine: str, box: tuple[float, ...] = BOX, **extra: object) -> RepairRecord:
    return RepairRecord.model_validate(
        {
            "id": "r1",
            "image_role": "edited",
            "op": "remove",
            "engine": engine,
            "box": box,
            "preview": "repairs/x.png",
            "status": "preview",
            **extra,
        }
    )


def test_each_fill_of_the_smear_differs_and_each_can_be_made_again() -> None:
    edited, _ = smear_and_truth()
    h, w = edited.shape[:2]
    x0, y0, x1, y1 = SMEAR_BOX
    box = normalize(SMEAR_BOX, w, h)

    def fill(variant: int) -> np.ndarray:
        order = RepairOrder(box, RepairOp.REMOVE, "", variant=variant)
        return run_repair(edited, order, PatchMatchEngine()).image[y0:y1, x0:x1].astype(int)

    first, second = fill(0), fill(1)
    changed = (np.abs(second - first).max(axis=2) > 10).mean()
    assert changed > 0.05  # a fill a reviewer sees is another one (0.14 of the box here)
    assert np.array_equal(fill(1), second)  # the same fill again, pixel for pixel


def tower_on_sky(left: int, seed: int) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """A lattice tower (two legs 20 pixels apart, braced crosswise every 20 rows) standing
    in an evening sky that lightens downward, and the same with an orange disc pasted over
    its middle; the box a reviewer draws round the disc (pixels)."""
    size, gap, period = 200, 20, 20
    rng = np.random.default_rng(seed)
    shade = np.linspace(0, 1, size)[:, None, None]
    sky = np.array([60, 80, 130]) + np.array([40, 40, 30]) * shade
    img = sky + rng.normal(0, 2, (size, size, 3))
    right = left + gap
    for row in range(size):
        step = round((row % period) * gap / period)
        img[row, [left, left + 1, right, right + 1, left + step, right - step]] = (90, 70, 40)
    truth = np.clip(img, 0, 255).astype(np.uint8)
    pasted = truth.copy()
    middle = (left + right) // 2
    cv2.circle(pasted, (middle, size // 2), 22, (230, 120, 30), -1)
    return truth, pasted, (middle - 30, size // 2 - 30, middle + 30, size // 2 + 30)


@pytest.mark.parametrize(("left", "seed"), [(90, 0), (84, 1)])
def test_the_second_fill_carries_a_tower_through_the_box(left: int, seed: int) -> None:
    """Every fill started from the smooth fill shares its layout: a tower cut off by the
    first stayed cut off in every fill after it. The second grows the lines in first."""
    truth, pasted, box = tower_on_sky(left, seed)
    x0, y0, _, y1 = box
    order = RepairOrder(normalize(box, 200, 200), RepairOp.REMOVE, "", variant=1)
    second = run_repair(pasted, order, PatchMatchEngine()).image.astype(float)
    rows, legs = slice(y0 + 10, y1 - 10), [left, left + 1, left + 20, left + 21]

    def darkness(image: np.ndarray) -> float:  # of the legs against the sky beside them
        return float(image[rows, x0 : x0 + 6].mean() - image[rows][:, legs].mean())

    assert darkness(second) > 0.6 * darkness(truth.astype(float))  # 0.76, 0.92; fill 1: 0.07, 0.25


def test_the_next_fill_of_a_box_follows_its_engines_fills_of_that_box() -> None:
    first = record("patchmatch")
    third = record("patchmatch", variant=2)
    assert comparison.next_variant([], "edited", BOX, "patchmatch") == 0
    assert comparison.next_variant([first], "edited", BOX, "patchmatch") == 1
    assert comparison.next_variant([first, third], "edited", BOX, "patchmatch") == 3
    # another box, another image, or a fill still computing
    assert comparison.next_variant([first], "edited", (0.1, 0.1, 0.2, 0.2), "patchmatch") == 0
    assert comparison.next_variant([first], "base", BOX, "patchmatch") == 0
    assert comparison.next_variant([first], "edited", BOX, "patchmatch", running=[1]) == 2
    # engines whose every fill of a box is the same: always their first
    telea = record("opencv-telea")
    assert comparison.next_variant([telea, telea], "edited", BOX, "opencv-telea") == 0
    assert comparison.next_variant([first], "edited", BOX, "no-such-engine") == 0
    # never a number its own reader would not take back
    last = record("patchmatch", variant=limits.REPAIRS.most)
    made = comparison.next_variant([last], "edited", BOX, "patchmatch")
    assert made == limits.REPAIRS.most == comparison.variant_of(record("patchmatch", variant=made))


@pytest.mark.parametrize("written", ["2", -1, True, 10**9, None])
def test_a_fill_number_no_tool_writes_reads_as_the_first(written: object) -> None:
    assert comparison.variant_of(record("patchmatch", variant=written)) == 0


def test_a_fill_is_named_by_its_number_from_the_second_on() -> None:
    assert comparison.made_by(record("patchmatch")) == "patchmatch"
    assert comparison.made_by(record("patchmatch", variant=1)) == "patchmatch, fill 2"


def test_the_command_line_makes_the_next_fill_of_a_box_repaired_before(
    demo_project: Path,
) -> None:
    case = "tex01_mug_brick"
    box = ",".join(f"{v:.6f}" for v in (0.19, 0.695, 0.331, 0.848))
    command = [sys.executable, "-m", "sabre_desk", "repair", str(demo_project), case]
    command += ["--box", box, "--reviewer", "alice"]
    said = [
        subprocess.run(command, capture_output=True, text=True, timeout=300, check=True).stdout
        for _ in range(2)
    ]
    assert "preview r1 (patchmatch):" in said[0]
    assert "preview r2 (patchmatch, fill 2):" in said[1]
    folder = demo_project / "cases" / case
    records = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    assert "variant" not in records[0] and records[1]["variant"] == 1
    one, two = ((folder / r["preview"]).read_bytes() for r in records)
    assert one != two


def test_a_box_with_a_result_on_this_image_gets_no_second_stand_in() -> None:
    made_on = {comparison.IMAGE_HASH: "now"}
    result = record("patchmatch", **made_on)
    assert comparison.wants_stand_in([], "edited", BOX, "now")
    assert not comparison.wants_stand_in([result], "edited", BOX, "now")
    assert not comparison.wants_stand_in([], "edited", BOX, "now", on_its_way=True)
    # a result made on the image before, or of another box or image, shows nothing of it
    assert comparison.wants_stand_in([result], "edited", BOX, "later")
    assert comparison.wants_stand_in([result], "edited", (0.1, 0.1, 0.2, 0.2), "now")
    assert comparison.wants_stand_in([result], "base", BOX, "now")
