"""Decoded images ready for the screen, prepared on a worker thread.

Everything expensive happens off the GUI thread: decoding, conversion to the pixel format
QPixmap uses natively (so ``QPixmap.fromImage`` is a copy, not a conversion), and a small
pyramid of smoothly reduced copies, so painting a 2048×2048 image at fit-to-window zoom
scales a 512-pixel level instead of 4 million pixels on every repaint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from PySide6.QtGui import QImage

from sabre_desk.imaging.io import load_image

#: Reduced copies are made down to this longest side, each half the previous one.
SMALLEST_LEVEL_PX = 384


@dataclass
class DisplayImage:
    """A full-resolution image plus reduced levels as (scale, image), largest first.

    The QImages share memory with the numpy buffers kept in ``_buffers``; QPixmap makes
    its own copy when the image is shown.
    """

    full: QImage
    levels: list[tuple[float, QImage]] = field(default_factory=list)
    _buffers: list[np.ndarray] = field(default_factory=list, repr=False)

    @property
    def width(self) -> int:
        return self.full.width()

    @property
    def height(self) -> int:
        return self.full.height()

    def size_in_bytes(self) -> int:
        return self.full.sizeInBytes() + sum(img.sizeInBytes() for _, img in self.levels)


def _wrap_bgra(bgra: np.ndarray) -> QImage:
    h, w = bgra.shape[:2]
    return QImage(bgra.data, w, h, bgra.strides[0], QImage.Format.Format_RGB32)


def build_display_image(rgb: np.ndarray) -> DisplayImage:
    """The image and its pyramid, all made by OpenCV, which releases the GIL (QImage's own
    conversions hold it and would stall the GUI thread)."""
    bgra = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2BGRA)
    buffers = [bgra]
    levels: list[tuple[float, QImage]] = []
    current, scale = bgra, 1.0
    while max(current.shape[:2]) // 2 >= SMALLEST_LEVEL_PX:
        h, w = current.shape[:2]
        current = cv2.resize(
            current, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA
        )
        scale /= 2
        buffers.append(current)
        levels.append((scale, _wrap_bgra(current)))
    return DisplayImage(_wrap_bgra(bgra), levels, buffers)


def decode_for_display(path: Path) -> DisplayImage:
    """Decode (EXIF orientation applied) and prepare for painting; runs on a worker."""
    return build_display_image(load_image(path))
