"""Soft mask, blend and paste: the repaired patch fades into the original.

Patch + soft blend is what the SABRE platform uses and what its blind study preferred
(93.5 % of 400 votes): the repaired content is taken fully inside the (slightly grown) box,
falls off smoothly outside it, and is exactly the original on the patch border, so there is
no visible seam and every pixel outside the patch rectangle is untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from sabre_desk.imaging.patch import PixelRect


@dataclass(frozen=True)
class BlendParams:
    """How a repair is cut out and blended. None means "scaled to the box"."""

    margin_fraction: float = 0.5  # context around the box, as a share of its size
    min_margin_px: int = 16
    grow_px: int | None = None  # the mask is 1 on the box grown by this much
    feather_px: int | None = None  # … and falls to 0 over this distance

    def resolved(self, box: PixelRect) -> tuple[int, int]:
        side = min(box.width, box.height)
        grow = self.grow_px if self.grow_px is not None else max(2, round(0.04 * side))
        feather = self.feather_px if self.feather_px is not None else max(4, round(0.15 * side))
        return max(0, grow), max(1, feather)


@dataclass(frozen=True)
class OpenSides:
    """Which sides of the patch lie on the image's own edge (no seam is possible there)."""

    left: bool = False
    top: bool = False
    right: bool = False
    bottom: bool = False

    @classmethod
    def of(cls, rect: PixelRect, width: int, height: int) -> OpenSides:
        return cls(rect.x0 == 0, rect.y0 == 0, rect.x1 == width, rect.y1 == height)


NO_OPEN_SIDES = OpenSides()


def soft_mask(
    shape: tuple[int, int],
    box: PixelRect,
    grow_px: int,
    feather_px: int,
    open_sides: OpenSides = NO_OPEN_SIDES,
) -> np.ndarray:
    """Float32 mask in [0, 1]: 1 on the grown box, a smooth fall-off, 0 on the patch border.

    Borders that are the image's own edge are left alone, so a box touching the image edge
    is repaired right up to it.
    """
    import cv2  # OpenCV loads with the first repair, not with the window

    h, w = shape
    core = np.ones((h, w), np.uint8)
    gx0, gy0 = max(0, box.x0 - grow_px), max(0, box.y0 - grow_px)
    gx1, gy1 = min(w, box.x1 + grow_px), min(h, box.y1 + grow_px)
    core[gy0:gy1, gx0:gx1] = 0
    t: np.ndarray = cv2.distanceTransform(core, cv2.DIST_L2, 3).astype(np.float32, copy=False)
    t *= -1.0 / float(feather_px)
    t += 1.0
    np.clip(t, 0.0, 1.0, out=t)
    mask: np.ndarray = t * t
    mask *= 3.0 - 2.0 * t  # smoothstep: no visible kink where the fall-off starts
    sides: tuple[tuple[bool, int, _Slicer, _Slicer, tuple[int, int]], ...] = (
        (open_sides.left, gx0, lambda band: mask[:, :band], np.arange, (1, -1)),
        (open_sides.right, w - gx1, lambda band: mask[:, w - band :], _desc, (1, -1)),
        (open_sides.top, gy0, lambda band: mask[:band, :], np.arange, (-1, 1)),
        (open_sides.bottom, h - gy1, lambda band: mask[h - band :, :], _desc, (-1, 1)),
    )
    for is_open, gap, region, order, layout in sides:
        if is_open:
            continue
        band = int(max(1, min(feather_px // 2, gap)))
        ramp = (order(band).astype(np.float32) / float(band)).reshape(layout)
        region(band)[...] *= ramp  # only the band next to the border is touched
    return mask


_Slicer = Callable[[int], np.ndarray]


def _desc(n: int) -> np.ndarray:
    return np.arange(n)[::-1]


def fit_to(patch: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize an engine's reply to the patch size (engines pick their own aspect ratios)."""
    import cv2  # OpenCV loads with the first repair, not with the window

    if patch.shape[:2] == (height, width):
        return patch
    shrinking = patch.shape[0] * patch.shape[1] > height * width
    interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_CUBIC
    return cv2.resize(patch, (width, height), interpolation=interpolation)


def blend(original: np.ndarray, repaired: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """A ⊙ repaired + (1 − A) ⊙ original, computed in float and rounded back to uint8.

    OpenCV's blendLinear does it in one multithreaded pass (~2 ms for 1024², against ~35 ms
    for the same arithmetic in numpy); where A is 0 or 1 the result is exactly the original
    or the reply.
    """
    import cv2  # OpenCV loads with the first repair, not with the window

    mask = np.ascontiguousarray(mask, dtype=np.float32)
    return cv2.blendLinear(
        np.ascontiguousarray(repaired), np.ascontiguousarray(original), mask, 1.0 - mask
    )


def paste(image: np.ndarray, patch: np.ndarray, rect: PixelRect) -> np.ndarray:
    """A copy of *image* with *patch* at *rect*; every other pixel is bit-identical."""
    out = image.copy()
    out[rect.slices] = patch
    return out


def hard_paste_mask(shape: tuple[int, int], box: PixelRect) -> np.ndarray:
    """The naive alternative (for comparison): the reply pasted on the box, no transition."""
    mask = np.zeros(shape, np.float32)
    mask[box.y0 : box.y1, box.x0 : box.x1] = 1.0
    return mask


def seam_score(original: np.ndarray, result: np.ndarray, mask: np.ndarray) -> float:
    """Gradient energy in the mask's transition band of the result, relative to the original.

    A visible seam is a step in brightness where repaired content meets the old; 1.0 means
    the band carries no more edge energy than the original had there. The band is where the
    mask is neither 0 nor 1, widened by a few pixels (for a hard paste: the box outline).
    """
    import cv2  # OpenCV loads with the first repair, not with the window

    kernel = np.ones((7, 7), np.uint8)
    touched = cv2.dilate((mask > 0.02).astype(np.uint8), kernel)
    solid = cv2.erode((mask > 0.98).astype(np.uint8), kernel)
    band = (touched > 0) & (solid == 0)
    if not band.any():
        return 1.0

    def gradient(img: np.ndarray) -> np.ndarray:
        gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY).astype(np.float32)
        return cv2.magnitude(
            cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
        )

    base = float(gradient(original)[band].mean()) + 1e-6
    return float(gradient(result)[band].mean()) / base
