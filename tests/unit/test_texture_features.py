"""Texture features (``imaging/texture_features.py``) in the completion: a box on gravel is
filled with gravel's edges, not a smear; a box in a sky beside a lattice tower stays sky;
the search and vote parted into bands of rows fill a hole as one would, every time."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image

from sabre_desk.imaging.completion import CompletionParams, patchmatch_fill
from sabre_desk.imaging.patch_level import PatchLevel
from sabre_desk.imaging.texture_features import texture_features

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"


def edges(img: np.ndarray) -> np.ndarray:
    """Gradient magnitude of the grey levels (Sobel)."""
    grey = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
    return np.hypot(cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1))


def test_a_box_on_real_gravel_is_filled_with_gravel_not_a_smear() -> None:
    """Four boxes of 80–121 pixels on a real gravel photo: away from the box's edge, the
    fill has most of the gravel's edges (its mean gradient 0.85 of the photo's round it).
    Patches compared by colour alone drifted to the stones' smooth faces and filled the
    boxes with a grey smear: 0.68."""
    grey = np.asarray(Image.open(PHOTOS / "gravel.png").convert("L"))
    photo = np.ascontiguousarray(np.dstack([grey] * 3))
    kept = []
    for y0, x0, side in ((60, 60, 121), (40, 40, 90), (100, 120, 80), (30, 110, 100)):
        hole = np.zeros(grey.shape, bool)
        hole[y0 : y0 + side, x0 : x0 + side] = True
        inner = np.zeros_like(hole)
        inner[y0 + 8 : y0 + side - 8, x0 + 8 : x0 + side - 8] = True
        filled = patchmatch_fill(photo, hole)
        kept.append(edges(filled)[inner].mean() / edges(photo)[~hole].mean())
    assert np.mean(kept) > 0.8, kept


def test_a_box_in_the_sky_beside_a_lattice_tower_stays_sky() -> None:
    """A real photo: clear sky, a launch tower's lattice a few pixels right of the box.
    With the hole's texture features guessed from its edge (Telea's inpainting of them),
    the tower's ran into the box and a piece of its lattice was copied into the sky (141
    pixels more than 30 levels off the photo); taken from the patches matched by colour,
    and no lower than the ring's median, none is (3)."""
    photo = np.asarray(Image.open(PHOTOS / "rocket_sky.png").convert("RGB"))
    hole = np.zeros(photo.shape[:2], bool)
    hole[42:127, 42:125] = True
    filled = patchmatch_fill(photo, hole)
    off = np.abs(filled.astype(int) - photo).max(axis=2)
    assert np.count_nonzero(off[hole] > 30) < 20


def test_texture_features_are_the_mean_gradients_of_known_pixels() -> None:
    """Stripes along x have a gradient along x only; a pixel deep in the hole has no known
    pair round it (0), and the hole's own pixels never count."""
    img = np.zeros((40, 40, 3), np.uint8)
    img[:, ::2] = 200  # a step of 200 between every two columns
    hole = np.zeros((40, 40), bool)
    hole[10:30, 10:30] = True
    img[hole] = 0  # the object in the hole: flat, nothing like the stripes
    features = texture_features(img, hole, window=5)
    assert features[3, 3].tolist() == pytest.approx([200, 0], abs=1e-3)
    assert features[20, 20].tolist() == [0.0, 0.0]
    assert features[10, 12, 0] == pytest.approx(200, abs=1e-3)  # its known pairs alone


def test_bands_of_rows_vote_as_one_and_fill_alike_every_time() -> None:
    """The search and the vote run on two threads, each over a band of the hole's rows: a
    vote in bands gives the pixels a vote over the whole would, and a fill is the same on
    every run (neither band reads what the other writes)."""
    rng = np.random.default_rng(5)
    img = cv2.GaussianBlur(rng.uniform(0, 255, (160, 160, 3)).astype(np.float32), (0, 0), 1.5)
    hole = np.zeros((160, 160), bool)
    hole[30:130, 40:120] = True
    params = CompletionParams()
    with ThreadPoolExecutor(2) as pool:
        banded = PatchLevel.make(img, hole, params, pool)
        whole = PatchLevel.make(img, hole, params)
        assert banded is not None and whole is not None
        assert len(banded.bands()) == 2 and len(whole.bands()) == 1
        field = banded.carry(None)
        banded.search(field, 2)
        assert np.array_equal(banded.vote(field), whole.vote(field))
    photo = np.clip(img, 0, 255).astype(np.uint8)
    assert np.array_equal(patchmatch_fill(photo, hole), patchmatch_fill(photo, hole))
