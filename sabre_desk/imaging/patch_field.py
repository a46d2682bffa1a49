"""The nearest-neighbour field of patch search, shared by the completion that fills a hole
(``completion.py``) and the search for what stands out in a box (``standout.py``): for each
target patch centre, its source centre and their distance, with the square growth of a mask
by a patch's radius both need (a patch of radius r centred within r of a pixel covers it).
Also the two small steps these and the copies of a repeating pattern (``repeats.py``) share:
a patch shrunk with its mask, and where pixels moved by an offset land."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


def grow_square(mask: np.ndarray, radius: int) -> np.ndarray:
    """``mask`` grown by ``radius`` pixels on either axis (a square of side 2·radius + 1)."""
    if radius <= 0:
        return mask.copy()
    kernel = np.ones((2 * radius + 1, 2 * radius + 1), np.uint8)
    return cv2.dilate(mask.astype(np.uint8), kernel).astype(bool)


def resize(image: np.ndarray, size: tuple[int, int], interpolation: int) -> np.ndarray:
    """``cv2.resize`` for any number of channels (OpenCV's own takes at most four)."""
    if image.ndim == 2 or image.shape[2] <= 4:
        return cv2.resize(image, size, interpolation=interpolation)
    parts = [
        cv2.resize(np.ascontiguousarray(image[..., c : c + 3]), size, interpolation=interpolation)
        for c in range(0, image.shape[2], 3)
    ]
    return np.dstack(parts)


def shrink(
    image: np.ndarray, mask: np.ndarray, size: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray]:
    """``image`` and ``mask`` at ``size`` (width, height), area-averaged: a coarse pixel is in
    the mask if any of the fine pixels under it is (so nothing of a hole is lost)."""
    small = resize(image, size, cv2.INTER_AREA)
    return small, cv2.resize(mask.astype(np.float32), size, interpolation=cv2.INTER_AREA) > 0


def landing(
    known: np.ndarray, ys: np.ndarray, xs: np.ndarray, dy: np.ndarray | int, dx: np.ndarray | int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the pixels (ys, xs) moved by (dy, dx) land, clamped to the image, and whether
    each lands on a pixel where ``known`` is true (inside the image)."""
    h, w = known.shape
    sy, sx = ys + dy, xs + dx
    inside = (sy >= 0) & (sy < h) & (sx >= 0) & (sx < w)
    sy, sx = np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)
    return sy, sx, inside & known[sy, sx]


def grow_round(mask: np.ndarray, radius: int) -> np.ndarray:
    """``mask`` grown by ``radius`` pixels in every direction (a disk)."""
    if radius <= 0:
        return mask.copy()
    side = 2 * radius + 1
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    return cv2.dilate(mask.astype(np.uint8), disk).astype(bool)


@dataclass
class NeighbourField:
    """For each target centre, its source centre and distance."""

    ys: np.ndarray  # int32 (H, W), -1 where no target
    xs: np.ndarray
    dist: np.ndarray  # float32

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.ys, self.xs, self.dist

    @classmethod
    def empty(cls, shape: tuple[int, ...]) -> NeighbourField:
        return cls(
            np.full(shape, -1, np.int32),
            np.full(shape, -1, np.int32),
            np.full(shape, np.inf, np.float32),
        )
