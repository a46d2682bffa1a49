"""numpy RGB arrays to QImage (safe to call on a worker thread; QPixmap is not)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

from sabre_desk.imaging.io import load_image


def to_qimage(rgb: np.ndarray) -> QImage:
    rgb = np.ascontiguousarray(rgb)
    h, w = rgb.shape[:2]
    # .copy() detaches the QImage from the numpy buffer, which may be freed after return.
    return QImage(rgb.data, w, h, rgb.strides[0], QImage.Format.Format_RGB888).copy()


def decode_to_qimage(path: Path) -> QImage:
    """Decode an image file (EXIF orientation applied) into a QImage; runs off the GUI thread."""
    return to_qimage(load_image(path))
