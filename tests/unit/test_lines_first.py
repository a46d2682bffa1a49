"""The coarsest level's other start: the lines that run into the hole grown in first, the
smooth fill everywhere else."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from sabre_desk.imaging.completion import CompletionParams
from sabre_desk.imaging.lines_first import lines_first

#: the completion's own patches (7×7) and sources
PARAMS = CompletionParams()

#: as the completion bounds it: four times the coarsest level's hole of 48 pixels square
MOST = 4 * 48 * 48


def sky(size: int = 64, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    shade = np.linspace(0, 1, size)[:, None, None]
    return (np.array([60.0, 80, 130]) + 30 * shade + rng.normal(0, 2, (size, size, 3))).astype(
        np.float32
    )


def square_hole(size: int = 64, side: int = 24) -> np.ndarray:
    hole = np.zeros((size, size), bool)
    start = (size - side) // 2
    hole[start : start + side, start : start + side] = True
    return hole


def test_where_no_line_runs_in_the_start_is_the_smooth_fill() -> None:
    img, hole = sky(), square_hole()
    smooth = np.full(img.shape, 100.0, np.float32)
    grown = lines_first(img, hole, smooth, PARAMS, MOST)
    assert grown is not None
    assert np.array_equal(grown[hole], smooth[hole])  # no flat copies scattered in
    assert np.array_equal(grown[~hole], img[~hole])  # and the known pixels as they were


def pole_across(colour: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sky with a pole two pixels wide from top to bottom, the hole across it, and
    Telea's smooth fill of the hole (which fades the pole into the sky)."""
    img, hole = sky(), square_hole()
    img[:, 30:32] = colour
    pixels = np.clip(img, 0, 255).astype(np.uint8)
    smooth = cv2.inpaint(pixels, hole.astype(np.uint8) * 255, 5, cv2.INPAINT_TELEA)
    return img, hole, smooth.astype(np.float32)


@pytest.mark.parametrize("colour", [(200, 190, 160), (40, 35, 30)])
def test_a_line_across_the_hole_is_grown_through_it(colour: tuple[int, int, int]) -> None:
    img, hole, smooth = pole_across(colour)
    grown = lines_first(img, hole, smooth, PARAMS, MOST)
    assert grown is not None
    pole = grown[hole.any(axis=1)][:, 30:32].mean(axis=(0, 1))
    assert np.abs(pole - colour).max() < 20
    faded = smooth[hole.any(axis=1)][:, 30:32].mean(axis=(0, 1))
    assert np.abs(faded - colour).max() > 40  # what the smooth start alone gives


def test_copies_that_stray_far_from_the_smooth_fill_are_left_to_it() -> None:
    """Whatever ran in, a copy whose blurred colours are far from the smooth fill's is
    something else copied in (a launch light's star in a sky), not a line carried on."""
    img, hole, _ = pole_across((200, 190, 160))
    smooth = np.full(img.shape, 100.0, np.float32)  # a smooth fill with no pole at all
    grown = lines_first(img, hole, smooth, PARAMS, MOST)
    assert grown is not None
    assert np.array_equal(grown[hole], smooth[hole])


def test_no_patch_wholly_outside_the_hole_grows_nothing() -> None:
    img = sky(16)
    hole = np.ones((16, 16), bool)
    hole[0, 0] = False
    assert lines_first(img, hole, img, PARAMS, MOST) is None
    assert lines_first(img[:5, :5], hole[:5, :5], img[:5, :5], PARAMS, MOST) is None


def test_a_hole_too_large_to_grow_keeps_the_smooth_start() -> None:
    """The coarsest level's hole is at most 48 pixels long; one far larger is most of its
    image (the pyramid stopped early), and growing it patch by patch would take minutes."""
    img = sky(160)
    hole = square_hole(160, 100)  # 10,000 pixels
    assert lines_first(img, hole, img, PARAMS, MOST) is None
    assert lines_first(img, square_hole(160, 48), img, PARAMS, MOST) is not None
