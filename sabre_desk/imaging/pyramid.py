"""The display pyramid: an image in the screen's pixel order plus smoothly halved copies.

One definition, shared by the window (which paints from the level nearest the on-screen
size) and the preview cache (which stores the reduced levels on disk): a preview is then
the very pixels the window would have made from the full image, so swapping one for the
other never shifts or recolours what the reviewer sees. Everything here is OpenCV, which
releases the GIL while it works.
"""

from __future__ import annotations

import numpy as np

#: Reduced copies are made down to this longest side, each half the previous one.
SMALLEST_LEVEL_PX = 384

#: (scale, BGRA pixels), largest first; scale 1.0 is the full-resolution image.
Level = tuple[float, np.ndarray]


def to_bgra(rgb: np.ndarray) -> np.ndarray:
    """RGB (H, W, 3) → BGRA (H, W, 4): the byte order of Qt's native 32-bit format."""
    import cv2  # loaded with the first image, not with the window

    return cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGRA)


def reduce_levels(top: Level) -> list[Level]:
    """The levels below *top*, each half the previous one, down to SMALLEST_LEVEL_PX."""
    import cv2  # loaded with the first image, not with the window

    levels: list[Level] = []
    scale, current = top
    while max(current.shape[:2]) // 2 >= SMALLEST_LEVEL_PX:
        h, w = current.shape[:2]
        current = cv2.resize(
            current, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA
        )
        scale /= 2
        levels.append((scale, current))
    return levels


def display_levels(rgb: np.ndarray) -> list[Level]:
    """The full image (BGRA) and its reduced levels, largest first."""
    return screen_levels(to_bgra(rgb))


def screen_levels(bgra: np.ndarray) -> list[Level]:
    """*bgra* (as ``imaging.io.load_bgra`` decodes it) and its reduced levels."""
    full: Level = (1.0, bgra)
    return [full, *reduce_levels(full)]
