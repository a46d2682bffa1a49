"""Another start for the coarsest level: the lines that run into the hole grown in first.

The completion starts its coarsest level from a smooth fill, which keeps the broad layout
best on average. But every fill made from it shares that layout: where a launch tower's
lattice crosses the box, the smooth fill blurs it into the sky, the search then matches
the blur with the flattest sources, and the tower stops at the box's edge in every fill
the artist asks for. So the fills after the first take turns (``CompletionParams.
lines_first``): every other one starts from this.

Criminisi, Pérez and Toyama's exemplar fill ("Region filling and object removal by
exemplar-based image inpainting", 2004) at the coarsest level: the patch on the hole's edge
filled next is the one where an edge runs into the hole most strongly (its data term, the
isophote against the edge's normal) among those with the most known pixels (its
confidence, here weighed less than in the paper, ``CONFIDENCE_POWER``, so a line reaches
across before the flat parts round it close over it), and its unknown pixels are copied
from the known patch that best matches its known ones. Only what was grown while an edge
ran into the hole, and stays near the smooth fill's colours when blurred, is kept
(``STRUCTURE``, ``AGREE``); the rest of the hole keeps the smooth start, whose layout the
copies of flat parts would only scatter. Then the completion goes on as
ever: its iterations at every level clean what the copies left ragged.

Measured on the textured objects of ``benchmarks/textured_objects.py`` (docs/performance.md,
"Another fill"): about as good on average as the smooth start, better where a structure
crosses the box, worse on some others (a joint of mortar laid across a brick), which is why
it is an alternative and not the first fill.
"""

from __future__ import annotations

import cv2
import numpy as np

from sabre_desk.imaging.patch_field import grow_square
from sabre_desk.imaging.patch_level import LevelSettings, source_centres

#: a patch's priority is confidence ** CONFIDENCE_POWER × (edge strength + FLAT): where no
#: edge runs into the hole the most confident patch goes first, the fill peeling inward
CONFIDENCE_POWER = 0.3
FLAT = 0.01
#: pixels grown while the edge strength was at least this keep their copies, the others the
#: smooth start (0.02: the isophotes, averaged over the patch, 5 grey levels a pixel square
#: to the hole's edge; a sky's noise is a tenth of that)
STRUCTURE = 0.02
#: ...and whose mean over a window of this side is within this many levels (of 0–255, in
#: every channel) of the smooth fill's: a fill of this start alone laid a launch light's
#: star in a sky and a dark blob like an eye's corner in a cat's fur; a tower's lattice,
#: thin lines on the sky, stays well within it
AGREE = 30.0
AGREE_WINDOW = 7


def lines_first(
    img: np.ndarray,
    hole: np.ndarray,
    smooth: np.ndarray,
    params: LevelSettings,
    most_pixels: int,
) -> np.ndarray | None:
    """The colours (float32 H×W×3) of ``img`` with the hole grown in patch by patch from
    the known patches near it (the completion's own sources, ``source_centres``), in
    priority order, where lines ran into it, and ``smooth`` elsewhere in it; None when the
    hole has more than ``most_pixels`` (each step fills at most a patch and looks at every
    source: the caller bounds the time) or no patch near it lies wholly outside it."""
    hole = hole.astype(bool)
    ys, xs = np.nonzero(hole)
    if ys.size == 0 or ys.size > most_pixels:
        return None
    # the hole's box grown by its longer side every way: the sources, and every step's
    # work, are bounded by the hole rather than by the image
    radius = params.patch_radius
    reach = max(int(ys.max() - ys.min()), int(xs.max() - xs.min())) + 1 + radius
    h, w = hole.shape
    y0, y1 = max(0, int(ys.min()) - reach), min(h, int(ys.max()) + 1 + reach)
    x0, x1 = max(0, int(xs.min()) - reach), min(w, int(xs.max()) + 1 + reach)
    window = (slice(y0, y1), slice(x0, x1))
    colours = np.ascontiguousarray(img[..., :3], np.float32).copy()
    grown = _grow(colours[window], hole[window], np.asarray(smooth, np.float32)[window], params)
    if grown is None:
        return None
    colours[window] = grown
    return colours


def _grow(
    img: np.ndarray, hole: np.ndarray, smooth: np.ndarray, params: LevelSettings
) -> np.ndarray | None:
    """``lines_first`` within its window."""
    h, w = hole.shape
    radius = params.patch_radius
    side = 2 * radius + 1
    whole = source_centres(hole, params)  # None too where the window is under a patch
    if whole is None:
        return None
    src_ys, src_xs = np.nonzero(whole)
    colours = np.ascontiguousarray(img, np.float32).copy()
    smooth = np.ascontiguousarray(smooth, np.float32)
    offsets = np.arange(-radius, radius + 1)
    dy, dx = (a.ravel() for a in np.meshgrid(offsets, offsets, indexing="ij"))
    # every source patch's colours, one row each, and their squares: a patch's distance
    # over its known pixels is then two products with the known pixels' mask. The colours
    # are taken to whole levels: every sum is then a whole number below 2^24 (for
    # patches of up to 9×9), exact in float32 in any order, so the pick is the same on
    # every machine's BLAS
    sources = np.rint(colours[src_ys[:, None] + dy, src_xs[:, None] + dx]).reshape(len(src_ys), -1)
    squares = sources * sources
    filled = ~hole
    confidence = filled.astype(np.float32)
    grown_on_line = np.zeros((h, w), bool)
    while not filled.all():
        front_ys, front_xs = np.nonzero(grow_square(filled, 1) & ~filled)
        strength = _edge_strength(colours, filled, radius)
        patch_confidence = _mean(confidence, side)
        priority = patch_confidence[front_ys, front_xs] ** CONFIDENCE_POWER * (
            strength[front_ys, front_xs] + FLAT
        )
        at = int(np.argmax(priority))
        y, x = int(front_ys[at]), int(front_xs[at])
        ys, xs = np.clip(y + dy, 0, h - 1), np.clip(x + dx, 0, w - 1)
        known = filled[ys, xs]
        mask = np.repeat(known.astype(np.float32), 3)
        distance = squares @ mask - 2.0 * (sources @ (mask * np.rint(colours[ys, xs]).ravel()))
        pick = int(np.argmin(distance))
        ty, tx = ys[~known], xs[~known]
        colours[ty, tx] = colours[src_ys[pick] + (ty - y), src_xs[pick] + (tx - x)]
        confidence[ty, tx] = patch_confidence[y, x]
        grown_on_line[ty, tx] = strength[y, x] >= STRUCTURE
        filled[ty, tx] = True
    # a copy whose local mean strays far from the smooth fill's is something else copied
    # in (a launch light's star in a clear sky, an eye's dark corner in the fur), not a line
    # carried on: the smooth start is kept there too
    strays = np.abs(_mean(colours, AGREE_WINDOW) - _mean(smooth, AGREE_WINDOW)).max(axis=2)
    smooth_here = hole & (~grown_on_line | (strays > AGREE))
    colours[smooth_here] = smooth[smooth_here]
    return colours


def _mean(values: np.ndarray, side: int) -> np.ndarray:
    mean: np.ndarray = cv2.blur(values, (side, side), borderType=cv2.BORDER_REPLICATE)
    return mean


def _edge_strength(colours: np.ndarray, filled: np.ndarray, radius: int) -> np.ndarray:
    """How strongly an edge of the filled pixels runs into the unfilled ones at each pixel:
    the isophote (the gradient turned a right angle), averaged over the filled pixels of
    the patch round it, against the normal of the fill's front, in grey levels per pixel
    over 4·255 (Sobel's weights)."""
    grey = colours.mean(axis=2)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    # a gradient counts only where its 3×3 window is all filled, not across the front
    inside = cv2.erode(filled.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(np.float32)
    side = 2 * radius + 1
    weight = _mean(inside, side) + 1e-6
    gx_near = _mean(gx * inside, side) / weight
    gy_near = _mean(gy * inside, side) / weight
    known = filled.astype(np.float32)
    nx = cv2.Sobel(known, cv2.CV_32F, 1, 0, ksize=3)
    ny = cv2.Sobel(known, cv2.CV_32F, 0, 1, ksize=3)
    norm = np.sqrt(nx * nx + ny * ny) + 1e-6
    strength: np.ndarray = np.abs(-gy_near * nx + gx_near * ny) / norm / (4 * 255.0)
    return strength
