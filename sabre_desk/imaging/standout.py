"""What in a box stands out from the photo around it: the pixels a fill has to replace.

A reviewer boxes a defect with a margin round it, so much of a box drawn round a scratch, a
stroke or a leftover fragment is the photo itself. Filling the whole box replaces those true
pixels with a guess; filling only what stands out keeps them as they are, and gives the fill
more of the photo to continue from. (A spot-healing brush works the same way.)

A pixel of the box is the photo's own when a patch round it is found, nearly as it is, in
the known ring round the box (half as wide as the box), and its colour is one the ring has:
how nearly is learnt from the ring itself, each of its patches matched to the ring's other
patches (never to one overlapping it), and its inner half's colours to its outer half's, so
a textured photo (grass, gravel) allows more than a smooth one. A box patch is held to the
ring's patches of about its own contrast: a smooth one to the smooth cloth round it, not to
the edges of a mug or a plate, which repeat least and would let a smear pass. What is left
is the defect; box pixels nearer in colour to it than to the ring, and pixels just beside it
that stand out a little, join it; it grows by a few pixels (an object's anti-aliased edge, a
shadow), and each piece becomes its convex hull, so no part of it survives inside the fill.
Pixels just beside it of its colours and of none of the photo's near them join it last.

When nothing stands out, or only specks do, or nearly all of the box does, there is nothing
to keep: the caller fills the whole box, as the other engines do. A defect that looks like
the ring (a second wrench beside the first) is not told from the photo: that is why the
ring is no wider than it is, and why specks alone mean the whole box.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import cv2
import numpy as np

from sabre_desk.imaging.loops import compiled_loops
from sabre_desk.imaging.patch_field import NeighbourField, grow_round, grow_square, shrink


@dataclass(frozen=True)
class StandoutParams:
    #: the side of a compared patch is 2·radius + 1
    patch_radius: int = 2
    #: PatchMatch passes for the box's patches and for the ring's (4 finds the masks 6
    #: did, mean overlap 0.99 on 36 objects pasted on six photos, each object covered
    #: whole either way, in two thirds of the time)
    passes: int = 4
    #: a box patch stands out when its distance passes this quantile of the ring's own...
    ring_quantile: float = 0.98
    #: ...times this factor; each box patch against the ring's patches whose contrast (the
    #: spread of their grey levels) is within this factor of its own (a smooth patch
    #: against the smooth ones, an edge against the edges)
    factor: float = 2.0
    alike_contrast: float = 2.0
    #: and never below this mean squared difference per value (noise, JPEG, dithering)
    floor: float = 16.0
    #: a box pixel's colour stands out when its distance to the ring's nearest colour
    #: passes this quantile of the same distance from the inner ring to the outer...
    colour_quantile: float = 0.995
    #: ...times this factor, and never less than this distance (of 0-255 RGB values)
    colour_factor: float = 1.5
    colour_floor: float = 24.0
    #: what passes this quantile times this factor stands out a little: it is taken
    #: only within ``beside`` pixels of what stands out clearly
    weak_quantile: float = 0.9
    weak_factor: float = 1.5
    beside: int = 6
    #: pixels added round what stands out (an object's soft edge, its halo)
    halo: int = 4
    #: a pixel beside what stands out is compared with the photo's colours within this
    #: many pixels of it (``_left_of_defect``)
    local: int = 12
    #: past this share of the box standing out, the whole box is filled; below this
    #: one too: a defect boxed with a margin is more of its box than a few specks, and
    #: one the ring resembles (a pale stroke along a cup's white rim) may show only in
    #: specks, so a fill of the specks alone would leave it in place. (0.85 rather than
    #: 0.75: an object boxed closely with its halo is often four fifths of its box, and
    #: the strip of photo kept round it is what the fill continues from: flat objects'
    #: error 0.56× → 0.52× Telea's, the seam 0.43× → 0.33×; 0.95 gave the same)
    most: float = 0.85
    least: float = 0.12
    #: a box of more pixels is looked at in the image scaled down to this many (as the
    #: completion fills a large hole at a lower resolution), which bounds the search's time
    max_pixels: int = 350_000
    seed: int = 3


#: the colour comparisons' step, in levels of a channel (0–255 in 32 steps)
COLOUR_STEP = 8.0
#: patches' contrasts are compared in steps of this ratio (5 %)
CONTRAST_STEP = 1.05
#: fewer ring patches than this say nothing of how nearly the photo repeats itself: too
#: few in the ring, the whole box is filled; too few of a box patch's contrast, the whole
#: ring's threshold holds for it
FEWEST_PATCHES = 16
#: ...and of more than this many, every n-th is enough for the quantile (a box of 500² has
#: a ring of 200,000 patches, looked at once for each step of contrast)
QUANTILE_SAMPLE = 4096


def _best_distances(
    img: np.ndarray,
    src: np.ndarray,
    targets: np.ndarray,
    r: int,
    passes: int,
    apart: int,
    seed: int,
) -> np.ndarray:
    """Each target's distance (mean squared difference per value) to its best source patch,
    found by PatchMatch; a source is never closer than ``apart`` pixels to its target.
    Seeded here: the loops' random numbers are drawn per thread."""
    k = compiled_loops()

    k.seed_random(seed)
    h, w = targets.shape
    tys, txs = (a.astype(np.int32) for a in np.nonzero(targets))
    sys_, sxs = (a.astype(np.int32) for a in np.nonzero(src))
    field = NeighbourField.empty((h, w))
    none = NeighbourField.empty((1, 1))  # no coarser field: every source drawn at random
    k.carry_field(img, src, (tys, txs), none.arrays, (sys_, sxs), field.arrays, r, apart)
    for p in range(passes):
        k.patchmatch_pass(img, src, (tys, txs), field.arrays, r, p % 2 == 1, max(h, w), apart, 0, h)
    values = 3 * (2 * r + 1) ** 2
    return field.dist[tys, txs] / values


def standout_mask(
    image: np.ndarray, box: np.ndarray, params: StandoutParams | None = None
) -> np.ndarray | None:
    """The pixels of ``box`` (bool, the area a fill would replace) that stand out from the
    photo round it, as a bool mask inside the box; None when the whole box should be filled
    (nothing stands out, nearly everything does, or there is no ring to compare with)."""
    params = params or StandoutParams()

    box = box.astype(bool)
    h, w = box.shape
    count = int(np.count_nonzero(box))
    if count == 0:
        return None
    if count > params.max_pixels:
        return _at_lower_resolution(image, box, params, (params.max_pixels / count) ** 0.5)
    r = params.patch_radius
    ys, xs = np.nonzero(box)
    depth = max(int(ys.max() - ys.min()) + 1, int(xs.max() - xs.min()) + 1)
    ring_px = max(4 * r, depth // 2)
    inner = np.zeros((h, w), bool)
    inner[r : h - r, r : w - r] = True  # centres of patches wholly inside the image
    outside = ~grow_square(box, r)  # centres of patches that touch no pixel of the box
    src = outside & grow_square(box, r + ring_px) & inner
    # the ring's own patches, to learn how nearly the photo repeats itself here
    ring = src & ~grow_square(box, r + max(2, ring_px // 2))
    near = src & ~ring
    if np.count_nonzero(near) < FEWEST_PATCHES or np.count_nonzero(ring) < FEWEST_PATCHES:
        return None
    img = np.ascontiguousarray(image, np.float32)
    # colours: a pixel of a colour the ring has nowhere (a purple blob on grass)
    colour_limit = max(
        float(np.quantile(_colour_gaps(img[near], img[ring]), params.colour_quantile))
        * params.colour_factor,
        params.colour_floor,
    )
    ring_gap = _colour_gaps(img[box], img[src])
    standing = np.zeros((h, w), bool)
    standing[box] = ring_gap > colour_limit
    # patches: a patch the ring has nowhere (a grey stroke across gravel); the ring's own
    # search and the box's at once, on two cores (the loops let go of the interpreter)
    box_d = np.zeros((h, w), np.float32)
    with ThreadPoolExecutor(1) as pool:
        ring_search = pool.submit(
            _best_distances, img, src, ring, r, params.passes, 2 * r + 1, params.seed
        )
        box_d[box] = _best_distances(img, src, box, r, params.passes, 0, params.seed + 1)
        ring_d = ring_search.result()
    # a ring patch with no partner far enough from it (a ring a few pixels wide) has no
    # distance: it says nothing of how nearly the photo repeats itself
    matched = np.isfinite(ring_d)
    if np.count_nonzero(matched) < FEWEST_PATCHES:
        return None
    ring = ring.copy()
    ring[ring] = matched
    ring_d = ring_d[matched]
    threshold = max(float(np.quantile(ring_d, params.ring_quantile)) * params.factor, params.floor)
    unmatched = np.zeros((h, w), bool)
    unmatched[box] = box_d[box] > _thresholds(img, ring, ring_d, box, threshold, params)
    standing |= _core(box, unmatched, r)
    standing = cv2.morphologyEx(
        standing.astype(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)
    ).astype(bool)  # lone pixels of noise
    if not standing.any():
        return None
    # the rest of the defect: box pixels nearer in colour to what stood out than to
    # anything in the ring (a stroke's end lying across an edge the ring has too)
    defect_gap = _colour_gaps(img[box], img[standing])
    standing[box] |= (defect_gap < ring_gap) & (ring_gap > params.colour_floor / 2)
    mask: np.ndarray = _convex_pieces(grow_round(standing, params.halo), params.halo) & box
    # what stands out a little just beside it is of the same defect (a thin line of the
    # photo's own colour drawn on a fragment's edge)
    weak = max(float(np.quantile(ring_d, params.weak_quantile)) * params.weak_factor, params.floor)
    beside = _core(box, box_d > weak, r) & grow_round(mask, params.beside)
    if (beside & ~mask).any():
        mask = _convex_pieces(grow_round(mask | beside, 1), params.halo) & box
    # and what is left of the defect just beside that, by the colours of the photo near it
    mask |= grow_round(_left_of_defect(img, box, mask, standing, src, params), 2) & box
    share = np.count_nonzero(mask) / np.count_nonzero(box)
    if not params.least <= share <= params.most:
        return None
    return mask


def _left_of_defect(
    img: np.ndarray,
    box: np.ndarray,
    mask: np.ndarray,
    standing: np.ndarray,
    src: np.ndarray,
    params: StandoutParams,
) -> np.ndarray:
    """The box pixels beside the defect (within ``beside``) that are of its colours (within
    half ``colour_floor``) and of none of the photo's near them (``local`` pixels round:
    the ring's and the box's kept pixels; 1.5 ``colour_floor`` off): what the tests above
    let pass because the ring has that colour somewhere else. A grey horse cut from gravel
    on a cat's fur left the tip of a hoof at the box's edge, which the grey rim of the eye
    across the box matched in colour and the box's patches over it, mostly fur, in patch;
    the fill left it as a grey speck. Only those pixels join the mask (not its hull taken
    again): the hole changes by a few pixels, not by a band round it."""
    beside = grow_round(mask, params.beside)
    near = beside & box & ~mask
    if not near.any():
        return np.zeros(box.shape, bool)
    photo = src | (box & ~beside)
    local = params.local
    defect_gap = _colour_gaps(img[near], img[standing])
    ys, xs = np.nonzero(near)
    photo_gap = np.full(len(ys), np.inf, np.float32)
    h, w = box.shape
    # by tiles of ``local`` pixels, each against the photo in the tiles round it
    tiles, which = np.unique((ys // local) * w + xs // local, return_inverse=True)
    order = np.argsort(which.ravel(), kind="stable")
    starts = np.searchsorted(which.ravel()[order], np.arange(len(tiles) + 1))
    for index, tile in enumerate(tiles):
        ty, tx = divmod(int(tile), w)
        here = order[starts[index] : starts[index + 1]]
        window = (
            slice(max(0, (ty - 1) * local), min(h, (ty + 2) * local)),
            slice(max(0, (tx - 1) * local), min(w, (tx + 2) * local)),
        )
        palette = img[window][photo[window]]
        if len(palette) >= FEWEST_PATCHES:
            photo_gap[here] = _colour_gaps(img[ys[here], xs[here]], palette)
    left = np.zeros(box.shape, bool)
    left[ys, xs] = (
        (defect_gap <= params.colour_floor / 2)
        & (photo_gap >= 1.5 * params.colour_floor)
        & np.isfinite(photo_gap)
    )
    return left


def _thresholds(
    img: np.ndarray,
    ring: np.ndarray,
    ring_d: np.ndarray,
    box: np.ndarray,
    threshold: float,
    params: StandoutParams,
) -> np.ndarray:
    """For each box patch, the distance past which it stands out: learnt from the ring's
    patches of about its own contrast (``alike_contrast``), never above ``threshold`` (the
    ring's as a whole). A ring's unique patches are its edges and corners (a mug's rim, a
    plate's), and their distances set the whole ring's threshold; a smooth patch was held to
    it too, so a smear a few dozen levels off the smooth cloth round it passed as the
    cloth's own, and half of the demo's smear was left in place."""
    r = params.patch_radius
    grey = img.mean(axis=2)
    side = (2 * r + 1, 2 * r + 1)
    mean = cv2.blur(grey, side)
    # the spread of a patch's grey levels, plus a level so that a flat patch has a log
    contrast = np.sqrt(np.maximum(cv2.blur(grey * grey, side) - mean * mean, 0)) + 1.0
    order = np.argsort(contrast[ring])
    ring_contrast, ring_sorted = contrast[ring][order], ring_d[order]
    # the box's contrasts in steps of 5 %: one quantile per step, not per pixel
    step = np.log(CONTRAST_STEP)
    keys = np.rint(np.log(contrast[box]) / step).astype(np.int64)
    unique, index = np.unique(keys, return_inverse=True)
    limits = np.full(len(unique), threshold, np.float32)
    for i, key in enumerate(unique):
        level = float(np.exp(key * step))
        lo, hi = np.searchsorted(
            ring_contrast, [level / params.alike_contrast, level * params.alike_contrast]
        )
        if hi - lo >= FEWEST_PATCHES:
            alike_d = ring_sorted[lo : hi : max(1, (hi - lo) // QUANTILE_SAMPLE)]
            alike = float(np.quantile(alike_d, params.ring_quantile)) * params.factor
            limits[i] = min(max(alike, params.floor), threshold)
    result: np.ndarray = limits[index.ravel()]
    return result


def _at_lower_resolution(
    image: np.ndarray, box: np.ndarray, params: StandoutParams, scale: float
) -> np.ndarray | None:
    """What stands out, looked for in the image scaled by ``scale`` (a large box: the search
    then takes no longer than at ``max_pixels``), scaled back and grown by a coarse pixel."""
    h, w = box.shape
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small, small_box = shrink(image, box, size)
    found = standout_mask(small, small_box, replace(params, max_pixels=small_box.size))
    if found is None:
        return None
    up = cv2.resize(found.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0
    grown: np.ndarray = grow_round(up, math.ceil(1 / scale)) & box
    return grown


def _core(box: np.ndarray, unmatched: np.ndarray, r: int) -> np.ndarray:
    """The box pixels no matched patch covers: a pixel is the photo's when any patch over
    it was found in the ring."""
    core: np.ndarray = ~grow_square(box & ~unmatched, r) & box
    return core


def _colour_bins(values: np.ndarray) -> np.ndarray:
    """Colours (N, 3) taken to steps of 8 levels a channel, each as one integer: sorting
    integers, not rows of floats, is what makes the distinct colours quick to find."""
    q = np.clip(np.floor(values / COLOUR_STEP), 0, 31).astype(np.int32)
    keys: np.ndarray = (q[:, 0] << 10) | (q[:, 1] << 5) | q[:, 2]
    return keys


def _bin_colours(keys: np.ndarray) -> np.ndarray:
    return np.stack([keys >> 10, (keys >> 5) & 31, keys & 31], 1).astype(np.float32)


def _colour_gaps(pixels: np.ndarray, palette: np.ndarray) -> np.ndarray:
    """For each of ``pixels`` (N, 3), the distance to the nearest colour of ``palette``
    (M, 3), both taken to steps of 8 levels a channel first (at most 32³ distinct colours,
    a few thousand in a photo's box, so the nearest is found by brute force in blocks)."""
    p_keys, p_index = np.unique(_colour_bins(pixels), return_inverse=True)
    p_bins, q_bins = _bin_colours(p_keys), _bin_colours(np.unique(_colour_bins(palette)))
    gaps = np.empty(len(p_bins), np.float32)
    for at in range(0, len(p_bins), 256):
        part = p_bins[at : at + 256, None, :] - q_bins[None, :, :]
        gaps[at : at + 256] = np.sqrt((part * part).sum(-1).min(1))
    result: np.ndarray = gaps[p_index.ravel()] * COLOUR_STEP
    return result


def _convex_pieces(mask: np.ndarray, join: int) -> np.ndarray:
    """Each piece of ``mask`` (pieces less than ``join`` pixels apart taken as one)
    replaced by its convex hull: holes and bays inside a defect are filled with it, never
    kept as islands of the defect's own pixels."""
    count, labels, stats, _ = cv2.connectedComponentsWithStats(
        grow_round(mask, join).astype(np.uint8), connectivity=8
    )
    out = np.zeros(mask.shape, np.uint8)
    for label in range(1, count):
        x, y, w, h = (int(v) for v in stats[label, :4])  # each piece looked at in its bounds
        ys, xs = np.nonzero((labels[y : y + h, x : x + w] == label) & mask[y : y + h, x : x + w])
        if ys.size == 0:
            continue
        points = np.stack([xs + x, ys + y], 1).astype(np.int32)
        cv2.fillConvexPoly(out, cv2.convexHull(points), 1)
    return out.astype(bool)
