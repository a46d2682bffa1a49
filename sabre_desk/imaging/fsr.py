"""OpenCV's frequency-selective reconstruction (FSR), guarded against its edge glitch.

``cv2.xphoto.inpaint`` with ``INPAINT_FSR_FAST`` works in blocks of 16 pixels, and where the
image's width or height is not a whole number of blocks it may leave a column or row of the
hole with values that have nothing to do with the picture (measured: a green line 70 levels
off along a box's right edge in a 63-pixel-wide patch of sky; on random boxes in random
small images a fifth to two fifths of the fills had such a line). Filling the image grown
to whole blocks on the right and at the bottom (reflected) gave no such line in 700 random
trials, for about 6% more time; growing it on every side works too but costs up to 7 times
as much on the small images the patch-based fill starts from.

Needs the contrib build of OpenCV (``cv2.xphoto``); callers check for it.
"""

from __future__ import annotations

import numpy as np

#: FSR's block side (pixels)
BLOCK = 16


def fsr_inpaint(image: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """``image`` (uint8, H×W×3) with the pixels where ``hole`` is true (or non-zero)
    filled by FSR; every other pixel unchanged."""
    import cv2  # OpenCV loads with the first repair, not with the window

    h, w = hole.shape
    known = np.where(hole, 0, 255).astype(np.uint8)  # xphoto's mask: 0 marks the fill
    bottom, right = -h % BLOCK, -w % BLOCK
    grown = cv2.copyMakeBorder(image, 0, bottom, 0, right, cv2.BORDER_REFLECT)
    grown_known = cv2.copyMakeBorder(known, 0, bottom, 0, right, cv2.BORDER_REFLECT)
    out = np.zeros_like(grown)
    cv2.xphoto.inpaint(grown, grown_known, out, cv2.xphoto.INPAINT_FSR_FAST)
    filled = out[:h, :w]
    return np.where(hole.astype(bool)[..., None], filled, image)
