"""Texture features: what tells a textured patch from a smooth one of the same colour.

A completion that compares patches by colour alone drifts towards smooth fills: where the
patches voted over a pixel disagree, their mean is smoother than any of them, the next
search then prefers the smoothest sources (the flat face of a stone, a blurred stretch of
grass) and, level after level, gravel was filled with a grey smear. Newson et al. ("Video
inpainting of complex scenes", 2014) add to each pixel the mean absolute gradient round it,
along x and along y, as two more channels of the patch distance: a smooth patch then no
longer matches a textured one, and the hole keeps the grain of what surrounds it. In the
hole the features are never guessed from its edge (an edge beside the hole would make a
textured guess run into a plain sky); they come with the patches copied there, as the
colours do (``completion._features_from_sources``).
"""

from __future__ import annotations

import cv2
import numpy as np

#: the features' weight against the colours in the patch distance (squared, as the
#: distance is): on textured objects pasted on real photos any of 25–400 brought the
#: texture distance from 0.48× Telea's to 0.32–0.35×, the error in the box rising with the
#: weight (0.69× → 0.76×); 50 gave the least texture distance on both sets of scenes
WEIGHT = 50.0
#: the side of the square over which the gradients are averaged (pixels)
WINDOW = 5


def texture_features(image: np.ndarray, hole: np.ndarray, window: int = WINDOW) -> np.ndarray:
    """(H, W, 2) float32: the mean absolute difference of grey levels between horizontal
    and between vertical neighbours, over ``window`` × ``window`` round each pixel, of the
    pairs lying wholly on known pixels (0 where there are none: deep in the hole)."""
    grey = cv2.cvtColor(np.ascontiguousarray(image, np.float32), cv2.COLOR_RGB2GRAY)
    known = (~hole).astype(np.float32)
    features = []
    size = (window, window)
    for axis in (1, 0):
        step = np.abs(np.diff(grey, axis=axis))
        # the pairs whose two pixels are both known
        both = known[:, 1:] * known[:, :-1] if axis == 1 else known[1:] * known[:-1]
        pad = ((0, 0), (0, 1)) if axis == 1 else ((0, 1), (0, 0))
        step, both = np.pad(step * both, pad), np.pad(both, pad)
        counted = cv2.blur(both, size)
        mean = cv2.blur(step, size) / np.maximum(counted, 1e-6)
        features.append(np.where(counted > 0.5 / window**2, mean, 0.0))
    return np.dstack(features).astype(np.float32)


def with_texture_features(
    image: np.ndarray, hole: np.ndarray, weight: float = WEIGHT, window: int = WINDOW
) -> np.ndarray:
    """(H, W, 5) float32: the colours, then the texture features scaled so that their
    squared differences count ``weight`` times a colour's in a patch distance."""
    features = texture_features(image, hole, window) * np.float32(weight**0.5)
    return np.dstack([image.astype(np.float32), features])
