"""Drawing an edge across the hole: the curve from one crossing to its partner, and the
pixels either side of it taken from the strips of pixels across the edge outside the hole.

``carried_edges`` finds the edges that cross the hole and pairs them; here each pair is
joined by a cubic that leaves the one and reaches the other along their directions, and
each hole pixel near it takes the colour the strips have where it lies across the curve.
A sharp edge is placed in its strips by its colour, between samples (``drawn_from``):
drawn from where its gradient peaks, a straight step between a wall and a desk came back
with a row half wall, half wood across the box.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np

if TYPE_CHECKING:
    from sabre_desk.imaging.carried_edges import Pair

#: the strips drawn from are sampled this many times a pixel across the edge: a hole pixel
#: is drawn from where it lies across the curve, and between samples a pixel apart a sharp
#: step came out blurred
FINE = 4
#: where the edge lies across each strip is averaged over this many strips either side
STEADY = 3
#: an edge that goes from one side's colour to the other's within this many pixels is
#: drawn from where it lies in its strips (``drawn_from``)
SHARP = 2.0


def sample(img: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``img`` at (x, y) ``points`` (N, 2): (N, channels)."""
    xs = np.ascontiguousarray(points[:, 0], np.float32).reshape(-1, 1)
    ys = np.ascontiguousarray(points[:, 1], np.float32).reshape(-1, 1)
    out = cv2.remap(img, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out).reshape(len(points), -1)


def heading(run: np.ndarray) -> np.ndarray:
    """The unit direction of a stretch of a followed edge (its points listed from the
    hole outwards), pointing towards the hole: the line fitted through all its points, as
    the step from one end to the other wanders by the half pixel each point may snap to
    (a straight joint seemed to bend by a degree a pixel, and was not carried)."""
    centred = run - run.mean(0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    if float(np.dot(axis, run[0] - run[-1])) < 0:
        axis = -axis
    heading: np.ndarray = axis / np.linalg.norm(axis)
    return heading


def hermite(
    a: np.ndarray, leaving: np.ndarray, b: np.ndarray, arriving: np.ndarray, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Points (steps, 2) and unit tangents of the cubic from ``a`` to ``b``, leaving and
    arriving along the given directions (unit vectors).

    The tangents' length is the one that makes the cubic a circular arc's closest match
    when the directions turn by θ: the chord × 2·tan(θ/4) / sin(θ/2), the chord itself for a
    straight edge. With the chord alone a cup's rim turning 120° was drawn flatter than
    the rim, a few pixels inside it all the way across the box."""
    chord = float(np.linalg.norm(b - a))
    turn = float(np.arccos(np.clip(np.dot(leaving, arriving), -1.0, 1.0)))
    scale = 2 * np.tan(turn / 4) / np.sin(turn / 2) if turn > 1e-3 else 1.0
    m0, m1 = leaving * chord * scale, arriving * chord * scale
    t = np.linspace(0, 1, steps)[:, None]
    t2, t3 = t * t, t * t * t
    points = (2 * t3 - 3 * t2 + 1) * a + (t3 - 2 * t2 + t) * m0 + (3 * t2 - 2 * t3) * b
    points += (t3 - t2) * m1
    tangents = (6 * t2 - 6 * t) * a + (3 * t2 - 4 * t + 1) * m0 + (6 * t - 6 * t2) * b
    tangents += (3 * t2 - 2 * t) * m1
    tangents /= np.linalg.norm(tangents, axis=1, keepdims=True) + 1e-9
    return points, tangents


def drawn_from(
    pixels: np.ndarray,
    chain: np.ndarray,
    into: np.ndarray,
    known: np.ndarray,
    alike: np.ndarray,
    profile: np.ndarray,
    hw: int,
    first_run: int,
    thin: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the curve across the hole starts, its direction there, and the strips it is
    drawn from (K, 2·half_width·FINE + 1, 3), each centred on the edge. The followed
    points snap to half a pixel where the gradient peaks, and along a sharp step that peak
    is flat: they wander a few tenths either side, the first of them as much, and the
    direction fitted through them tilted by 3°. A straight edge where a wall meets a desk,
    drawn across a 61-pixel box from there, bowed by two thirds of a pixel, and a row of
    the wood came out half wall (57 levels off). So the edge is placed in each strip where
    its colour is half way from the one side's to the other's (between the samples), the
    curve laid through those places steadied over a few strips, and each strip sampled
    round its own place. A line (a wire), whose colour is the same either side, has
    no such place, and a soft edge (``_sharp``) none truer than its gradient's peak: they
    are drawn from the followed points; beside a thin line (``thin``), in the direction
    fitted through the line's middle in each strip (the followed points, along one of its
    two edges, wander between both: a seam on the demo's desk came out tilted by 3°, a
    step of a pixel where it met the box). ``hw``: the strips' half width; the direction
    is fitted through the first ``first_run`` places."""
    normal = np.array([-into[1], into[0]])
    points = chain[1:][known][alike]
    steps = np.arange(-hw * FINE, hw * FINE + 1) / FINE

    def sampled(centres: np.ndarray) -> np.ndarray:
        spots = centres[:, None, :] + steps[None, :, None] * normal[None, None, :]
        out = sample(pixels, spots.reshape(-1, 2)).reshape(len(centres), len(steps), 3)
        return np.asarray(out, np.float32)

    def through(places: np.ndarray) -> np.ndarray:
        """The direction fitted through the first ``first_run`` of ``places``."""
        first = places[: max(2, min(len(places), first_run))]
        return heading(first) if len(first) > 2 else into

    strips = sampled(points)
    left, right = profile[: hw - 1].mean(0), profile[hw + 2 :].mean(0)
    towards = right - left
    place = _half_way(strips, left, towards, steps)
    if np.count_nonzero(np.isfinite(place)) < max(4, len(place) // 2) or not _sharp(
        strips, left, towards, steps
    ):
        if thin:
            middles = points + _middle_of_line(strips, left, steps)[:, None] * normal[None, :]
            return chain[0].copy(), through(middles), strips
        return chain[0].copy(), into.copy(), strips
    steady = _steadied(place)
    # the curve through the steadied places; each strip centred on its own, so that every
    # one drawn has its edge on the curve (centred on the steadied place, each strip's own
    # few hundredths off showed as blocks of lighter and darker along the edge)
    moved = points + steady[:, None] * normal[None, :]
    direction = through(moved)
    centre = moved[: max(2, min(len(moved), first_run))].mean(0)
    start = centre + float(np.dot(chain[0] - centre, direction)) * direction
    own = np.where(np.isfinite(place), place, steady)
    return start, direction, sampled(points + own[:, None] * normal[None, :])


def _half_way(
    strips: np.ndarray, left: np.ndarray, towards: np.ndarray, steps: np.ndarray
) -> np.ndarray:
    """For each strip, where across it (pixels from its centre) its colour is half way
    from ``left`` along ``towards`` (the other side's colour less the one's): the
    crossing of one half nearest the centre, within a pixel and a half; NaN where there is
    none, or the two sides are alike (a line of one colour on another)."""
    reach = float(np.dot(towards, towards))
    place = np.full(len(strips), np.nan)
    if reach < 100.0:  # the sides within 10 levels of each other
        return place
    share = ((strips - left) @ towards) / reach - 0.5  # (K, samples): 0 where half way
    middle = len(steps) // 2
    near = np.abs(steps) <= 1.5
    for i, row in enumerate(share):
        signs = np.sign(row)
        found = np.flatnonzero((signs[:-1] * signs[1:] <= 0) & near[:-1] & near[1:])
        if len(found) == 0:
            continue
        j = int(found[np.argmin(np.abs(found + 0.5 - middle))])
        a, b = float(row[j]), float(row[j + 1])
        f = a / (a - b) if a != b else 0.5
        place[i] = steps[j] + f * (steps[j + 1] - steps[j])
    return place


def _middle_of_line(strips: np.ndarray, left: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """For each strip, where across it (pixels from its centre) the thin line beside the
    crossing has its middle: the centre of the samples within a few pixels of the strip's
    centre that are farther from ``left`` (the near side's colour) than half the farthest,
    weighed by that distance."""
    near = np.abs(steps) <= 5
    far = np.abs(strips[:, near] - left).mean(axis=2)
    weight = np.where(far > 0.5 * far.max(axis=1, keepdims=True), far, 0.0)
    middle: np.ndarray = (weight * steps[near]).sum(axis=1) / np.maximum(weight.sum(axis=1), 1e-6)
    return middle


def _sharp(strips: np.ndarray, left: np.ndarray, towards: np.ndarray, steps: np.ndarray) -> bool:
    """Whether the edge goes from one side's colour to the other's within ``SHARP`` pixels
    (a fifth of the way to four fifths, on the strips' mean). A soft edge (a joint of
    mortar, a blurred outline) is drawn from the followed points: its half-way place is
    no truer than where its gradient peaks, and the joints of a real wall, moved there,
    were drawn a pixel or two off the wall's own."""
    reach = float(np.dot(towards, towards))
    if reach < 100.0:
        return False
    share = ((strips.mean(0) - left) @ towards) / reach
    middle = len(steps) // 2
    rising = share if share[-1] > share[0] else share[::-1]
    low = np.flatnonzero(rising[: middle + 1] <= 0.2)
    high = np.flatnonzero(rising[middle:] >= 0.8)
    if len(low) == 0 or len(high) == 0:
        return False
    width = (middle + int(high[0]) - int(low[-1])) / FINE
    return bool(width <= SHARP)


def _steadied(place: np.ndarray) -> np.ndarray:
    """``place`` averaged over ``STEADY`` strips either side, its gaps (NaN) left out of
    the means (and taking the mean of their neighbours)."""
    given = np.isfinite(place)
    total = np.concatenate([[0.0], np.cumsum(np.where(given, place, 0.0))])
    count = np.concatenate([[0], np.cumsum(given)])
    index = np.arange(len(place))
    low, high = np.maximum(index - STEADY, 0), np.minimum(index + STEADY + 1, len(place))
    counted = count[high] - count[low]
    mean = (total[high] - total[low]) / np.maximum(counted, 1)
    return np.where(counted > 0, mean, float(np.nanmean(place)))


def draw_edges(
    image: np.ndarray, hole: np.ndarray, pairs: list[Pair], hw: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each pair's curve drawn across the hole from its strips (``carried_edges``' step
    3), ``hw`` pixels either side: the image (uint8) and the pixels drawn."""
    img = image.astype(np.float32)
    band = np.zeros(hole.shape, bool)
    for a, b in pairs:
        chord = float(np.linalg.norm(b.at - a.at))
        points, tangents = hermite(
            a.start, a.start_into, b.start, -b.start_into, max(16, int(2 * chord))
        )
        # the hole's pixels near the curve: the curve drawn thick, then each pixel placed
        near = np.zeros(hole.shape, np.uint8)
        cv2.polylines(near, [np.rint(points).astype(np.int32)], False, 1, 2 * hw + 3)
        ys, xs = np.nonzero(near.astype(bool) & hole & ~band)
        if len(ys) == 0:
            continue
        pixels = np.stack([xs, ys], 1).astype(np.float32)
        nearest = _nearest(points, pixels)
        offset = pixels - points[nearest]
        normals = np.stack([-tangents[:, 1], tangents[:, 0]], 1)[nearest]
        side = (offset * normals).sum(1)
        along = np.abs((offset * tangents[nearest]).sum(1))
        keep = (np.abs(side) <= hw) & (along <= 0.75)  # not past the curve's ends
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(points, axis=0), axis=1))])
        from_a = arc[nearest[keep]]
        share = (from_a / max(float(arc[-1]), 1e-6))[:, None]
        at = (side[keep] + hw) * FINE  # where across the strips, in their samples
        colour = (1 - share) * _strip_colour(a.drawn, from_a, at)
        colour += share * _strip_colour(b.drawn[:, ::-1], arc[-1] - from_a, at)
        img[ys[keep], xs[keep]] = colour
        band[ys[keep], xs[keep]] = True
    return np.clip(img + 0.5, 0, 255).astype(np.uint8), band


def _nearest(points: np.ndarray, pixels: np.ndarray, stride: int = 8) -> np.ndarray:
    """For each pixel (N, 2), the index of the nearest of the curve's ``points``: among
    every ``stride``-th point first, then among those round it (a 500-pixel box took a
    second and a half measuring every pixel against every point)."""
    first = np.empty(len(pixels), int)
    coarse = points[::stride]
    for start in range(0, len(pixels), 4096):
        chunk = pixels[start : start + 4096, None, :] - coarse[None, :, :]
        first[start : start + 4096] = np.einsum("pcd,pcd->pc", chunk, chunk).argmin(1) * stride
    around = np.clip(first[:, None] + np.arange(-stride, stride + 1), 0, len(points) - 1)
    offsets = pixels[:, None, :] - points[around]
    best = np.einsum("pcd,pcd->pc", offsets, offsets).argmin(1)
    nearest: np.ndarray = around[np.arange(len(pixels)), best]
    return nearest


def _strip_colour(strips: np.ndarray, distance: np.ndarray, across: np.ndarray) -> np.ndarray:
    """The colour at ``across`` (in samples from the strip's start, fractional) of the strip taken
    ``distance`` pixels along the edge: its own strips in turn, forth and back, so the edge
    keeps its grain rather than one mean colour."""
    count = len(strips)
    period = max(2 * (count - 1), 1)
    step = np.floor(distance).astype(int) % period
    k = np.where(step < count, step, period - step).clip(0, count - 1)
    last = strips.shape[1] - 1
    low = np.floor(across).astype(int).clip(0, last)
    high = (low + 1).clip(0, last)
    f = (across - low)[:, None]
    colour: np.ndarray = strips[k, low] * (1 - f) + strips[k, high] * f
    return colour
