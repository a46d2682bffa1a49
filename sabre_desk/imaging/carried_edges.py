"""Edges carried across the hole before its texture is filled.

An exemplar fill copies patches from round the hole; it has nothing to copy for the part of
a curved edge the hole hides (the bottom of a cup's rim, the curve of an eye), so it carries
each side on straight and the two meet in a corner, or it leaves a block of something else
there. Started from the true pixels it still did (tried), so the fill is not left to find
the edge: like Sun et al.'s structure propagation ("Image completion with structure
propagation", 2005), with the curve found here rather than drawn by a user, the edges are
drawn first and the texture is filled round them:

1. **Crossings.** Along a line round the hole (``gap`` pixels outside it), every local
   maximum of the gradient that is among the strongest of the ring is followed outwards,
   along the edge, for at least ``min_run`` pixels without turning sharply: a real edge,
   not a speck of texture. Its direction into the hole is a line fitted through the first
   stretch of that run, its bend the turn from the next; the strips of pixels across it
   along the run are its look (outliers left out: a strip where another edge joins it).
   The two sides of one thin line count as one crossing.
2. **Pairs.** Two crossings are one edge when their colours either side match (left of the
   one going in is right of the other coming out; where either shows a thin line beside
   it, with the other moved a few pixels across: each end of a line may be found on
   either of its two edges), both were followed far (``long_run``,
   or out of the patch: the edges of stones are short; or one out of the patch, bending
   evenly, which then vouches for the other), the way between them is one bend (not an S,
   as two joints of staggered bricks would make; not an arc or an elbow from two straight
   edges; where only one end's bend is known, the arc of its circle), the curve stays in
   the hole and no other partner of either is nearly as good.
3. **Drawing.** Each pair is joined by the cubic (Hermite) curve leaving the one and
   arriving at the other along their own directions, and the hole's pixels within
   ``half_width`` of it are drawn from the strips, the one end's fading into the other's.
   A sharp edge is drawn from where it lies in its strips (``edge_drawing``), not from the
   followed points, which snap to half a pixel. Those pixels become known: the fill
   continues round them.

Measured on textured objects (``benchmarks/textured_objects.py``, docs/performance.md); the
steps in numbers in docs/repair.md.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from sabre_desk.imaging.edge_drawing import FINE, draw_edges, drawn_from, heading, hermite, sample
from sabre_desk.imaging.patch_field import grow_round, grow_square


@dataclass(frozen=True)
class EdgeParams:
    #: the line the crossings are looked for on lies this many pixels outside the hole
    gap: int = 3
    #: pixels drawn either side of a carried edge
    half_width: int = 6
    #: an edge is followed at least this far from the hole to count (pixels), and at most
    #: ``max_run``...
    min_run: int = 10
    max_run: int = 50
    #: ...and carried only when both its ends were followed this far (or out of the
    #: patch), and at most ``reach`` times as far as the shorter was followed: the short
    #: edges of stones and blades of grass, joined, made arcs across a bed of gravel that
    #: was never there, and on a box of 500 pixels the edges of anything did. An end
    #: followed out of the patch, bending evenly all the way, vouches for the other, which
    #: then need only be a crossing, the reach counted from the vouching end (``_cost``),
    #: as long as the curve turns as that bend says (``_turns_as_bent``)
    long_run: int = 20
    reach: float = 3.0
    #: a crossing's gradient is above this percentile of the ring round the hole...
    strong_percentile: float = 80.0
    #: ...and above this (grey levels per pixel)
    min_strength: float = 4.0
    #: the colours either side of two crossings differ by at most this share of their
    #: edges' contrast (mean absolute difference, 0-255) to be one edge, and at most
    #: ``max_mismatch``
    mismatch_share: float = 0.7
    max_mismatch: float = 40.0
    #: a curve turning more than this in all is not carried (degrees)
    max_turn_deg: float = 150.0
    #: the chord between two crossings may turn opposite ways from them by this much and
    #: still be one straight edge rather than an S (degrees: what fitting a direction to a
    #: followed edge leaves of its pixel grid)
    s_slack_deg: float = 5.0
    #: the directions of two crossings may differ this much from an arc's (degrees)
    max_uneven_deg: float = 40.0
    #: how much more (degrees) the curve may turn than the edges' own bends say, and as
    #: much when both edges run out of the patch
    turn_slack_deg: float = 25.0
    unseen_turn_deg: float = 50.0
    #: at most this many crossings, those of most contrast, are paired (every pair is
    #: weighed: the time grows with the square; a box on texture has many, and none to carry)
    max_crossings: int = 48
    #: a pair is carried only when no other partner of either costs less than this times it
    unambiguous: float = 1.3
    #: ...and when at least one of its two edges looks one way along this share of its run
    #: (the rest: another edge joining it). Each edge of a check or a lattice is crossed by
    #: the pattern's other edges as often as not: 0.52–0.56 of its strips alike on the
    #: demo's gingham, at both ends of five of the six pairs found in a box over its mug.
    #: Carried, they were drawn as plain bands through the box, and the strips of hole left
    #: between them were filled with blocks shaped like the mug's bricks. Each of the 24
    #: edges of photos carried in 72 boxes of four seeds has an end at 0.81–1.0 (the other
    #: end 0.59–1.0)
    min_alike: float = 0.6

    @property
    def reach_px(self) -> int:
        """How far past the hole an edge is looked at: the line it is found on, the run it
        is followed along, and the strips across it."""
        return self.gap + self.max_run + self.half_width + 2


@dataclass
class Crossing:
    """Where an edge meets the line round the hole, and what it looks like."""

    at: np.ndarray  # (x, y)
    into: np.ndarray  # unit (x, y): the edge's direction into the hole
    #: (K, 2·half_width + 1, 3): pixels across the edge, left of `into` first
    strips: np.ndarray
    profile: np.ndarray  # their mean: what the edge looks like across it
    contrast: float  # between its two sides (mean absolute difference)
    run: int  # how far it was followed outside the hole (pixels)
    out_of_view: bool  # ...until it left the patch
    #: the share of its strips that look alike (``strips`` holds those)
    alike: float
    #: whether a thin line runs beside it, as found (``_beside_a_thin_line``)
    thin: bool
    #: what is drawn across the hole: the curve's start and direction there, and the strips
    #: (``edge_drawing.FINE`` samples a pixel), centred where the edge lies (``drawn_from``)
    start: np.ndarray
    start_into: np.ndarray
    drawn: np.ndarray
    #: how it bends on its way into the hole (radians per pixel, positive to the left);
    #: None where the run is too short to tell
    bend: float | None = None


Pair = tuple[Crossing, Crossing]


def carry_edges(
    image: np.ndarray, hole: np.ndarray, params: EdgeParams | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``image`` (RGB uint8) with the edges that cross ``hole`` drawn across it, and the
    pixels drawn (bool; none when no edge is carried)."""
    params = params or EdgeParams()
    hole = hole.astype(bool)
    if not hole.any() or hole.all():
        return image.copy(), np.zeros(hole.shape, bool)
    pairs = pair_crossings(find_crossings(image, hole, params), hole, params)
    return draw_edges(image, hole, pairs, params.half_width)


@dataclass
class _Gradient:
    """What following an edge reads at every step, in one array so that one bilinear
    lookup gives all of it (a lookup each was most of the time of a box)."""

    fields: np.ndarray  # (H, W, 4) float32: the gradient's magnitude, x, y; the distance
    pixels: np.ndarray  # the image, float32

    MAGNITUDE, GX, GY, AWAY = 0, 1, 2, 3

    @classmethod
    def of(cls, image: np.ndarray, hole: np.ndarray) -> _Gradient:
        grey = cv2.GaussianBlur(
            cv2.cvtColor(image, cv2.COLOR_RGB2GRAY).astype(np.float32), (0, 0), 1.0
        )
        gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0) / 8
        gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1) / 8
        away = cv2.distanceTransform((~hole).astype(np.uint8), cv2.DIST_L2, 3)
        fields = np.ascontiguousarray(np.dstack([np.hypot(gx, gy), gx, gy, away]), np.float32)
        return cls(fields, image.astype(np.float32))

    @property
    def magnitude(self) -> np.ndarray:
        return self.fields[..., self.MAGNITUDE]

    @property
    def away(self) -> np.ndarray:
        """Each pixel's distance from the hole (0 in it)."""
        return self.fields[..., self.AWAY]

    @staticmethod
    def tangent(sampled: np.ndarray) -> np.ndarray:
        """The unit direction along the edge, from a sample of ``fields``."""
        gx, gy = float(sampled[_Gradient.GX]), float(sampled[_Gradient.GY])
        return np.array([-gy, gx]) / (float(np.hypot(gx, gy)) + 1e-6)


def find_crossings(image: np.ndarray, hole: np.ndarray, params: EdgeParams) -> list[Crossing]:
    """The strong edges that reach the line round the hole (step 1 of the module's)."""
    grad = _Gradient.of(image, hole)
    ring = (grad.away > params.gap) & (grad.away < params.gap + 3 * params.half_width + 8)
    strong = params.min_strength
    if ring.any():
        strong = max(strong, float(np.percentile(grad.magnitude[ring], params.strong_percentile)))
    line = grow_round(hole, params.gap).astype(np.uint8)
    contours, _ = cv2.findContours(line, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    starts: list[tuple[float, np.ndarray]] = []
    for contour in contours:
        points = contour[:, 0, :].astype(np.float32)
        n = len(points)
        if n < 8:
            continue
        along = grad.magnitude[points[:, 1].astype(int), points[:, 0].astype(int)]
        for k in np.flatnonzero(along >= strong):
            near = along[[(k + o) % n for o in range(-3, 4)]]
            # a local maximum (the first of equal ones)
            if along[k] >= near.max() and not (near[:3] == along[k]).any():
                starts.append((float(along[k]), points[k]))
    # following is the costly part: the strongest few times as many as can be paired
    starts.sort(key=lambda start: -start[0])
    found = []
    for strength, point in starts[: 2 * params.max_crossings]:
        crossing = _follow(grad, point, strength, params)
        if crossing is not None:
            found.append(crossing)
    return _one_per_line(found, params)


def _one_per_line(found: list[Crossing], params: EdgeParams) -> list[Crossing]:
    """The crossings less than a strip's half width apart that run alike are the two
    sides of one thin line (a joint of mortar, a wire): the one of more contrast stands
    for it, its strips covering both. Kept as two, each side of one line could be paired
    with either side of the other, and no pair would be unambiguous."""
    kept: list[Crossing] = []
    for crossing in sorted(found, key=lambda c: -c.contrast):
        if len(kept) == params.max_crossings:
            break
        if not any(
            float(np.linalg.norm(crossing.at - other.at)) <= params.half_width
            and float(np.dot(crossing.into, other.into)) > 0.9
            for other in kept
        ):
            kept.append(crossing)
    return kept


def _follow(
    grad: _Gradient, start: np.ndarray, strength: float, params: EdgeParams
) -> Crossing | None:
    """The edge through ``start`` followed away from the hole; None unless it runs on for
    ``min_run`` pixels, keeping its strength and direction."""
    h, w = grad.away.shape
    t = grad.tangent(sample(grad.fields, start[None])[0])
    ahead = np.clip(np.rint(start + 3 * t), 0, [w - 1, h - 1]).astype(int)
    if grad.away[ahead[1], ahead[0]] < grad.away[int(start[1]), int(start[0])]:
        t = -t  # away from the hole
    run = [start.copy()]
    point = start.copy()
    across = np.arange(-1.5, 1.51, 0.5)
    out_of_view = False
    for _ in range(params.max_run):
        step = point + t
        normal = np.array([-t[1], t[0]])
        candidates = step[None, :] + across[:, None] * normal[None, :]
        if (candidates < 1).any() or (candidates[:, 0] >= w - 2).any():
            out_of_view = True
            break
        if (candidates[:, 1] >= h - 2).any():
            out_of_view = True
            break
        sampled = sample(grad.fields, candidates)
        best = int(np.argmax(sampled[:, grad.MAGNITUDE]))
        here = sampled[best]
        if here[grad.MAGNITUDE] < 0.5 * strength or here[grad.AWAY] < params.gap:
            break
        turned = grad.tangent(here)
        if np.dot(turned, t) < 0:
            turned = -turned
        if np.dot(turned, t) < 0.8:  # a corner, or texture
            break
        t = 0.7 * t + 0.3 * turned
        t /= np.linalg.norm(t)
        point = candidates[best]
        run.append(point)
    if len(run) < params.min_run:
        return None
    chain = np.array(run)
    k = params.min_run
    into = heading(chain[: k + 1])
    crossing = _crossing(grad, chain, into, out_of_view, params)
    if crossing is not None:
        crossing.bend = _bend(chain, into, k)
        if crossing.bend is not None:  # the line through the first stretch is the
            # edge's direction at its middle, k/2 pixels out: turned on to the crossing
            crossing.into = _turned(into, crossing.bend * k / 2)
            crossing.start_into = _turned(crossing.start_into, crossing.bend * k / 2)
    return crossing


def _turned(direction: np.ndarray, angle: float) -> np.ndarray:
    """``direction`` turned by ``angle`` radians, the way ``_cross`` counts positive."""
    c, s = np.cos(angle), np.sin(angle)
    return np.array([c * direction[0] - s * direction[1], s * direction[0] + c * direction[1]])


#: a bend is told from the headings of this many stretches of ``min_run`` pixels
BEND_STRETCHES = 3


def _long_enough_to_bend(run: int, k: int) -> bool:
    """Whether an edge followed ``run`` pixels has the stretches of ``k`` a bend is told
    from (``_bend``), so that no bend means it was measured and found uneven."""
    return run > BEND_STRETCHES * k


def _bend(chain: np.ndarray, into: np.ndarray, k: int) -> float | None:
    """How the followed edge bends on its way in (radians per pixel), from the headings of
    three stretches of ``k`` pixels; None unless it is long enough and both turns agree,
    as along an arc (a turn in one stretch only is a corner, or the grid's wobble)."""
    if not _long_enough_to_bend(len(chain), k):
        return None
    headings = [into] + [heading(chain[i * k : (i + 1) * k + 1]) for i in (1, 2)]
    turns = [
        float(np.arctan2(_cross(outer, inner), float(np.dot(outer, inner)))) / k
        for inner, outer in itertools.pairwise(headings)
    ]
    small, large = min(abs(t) for t in turns), max(abs(t) for t in turns)
    if min(turns) * max(turns) <= 0 or large > 2 * small + 0.002:
        return None
    return float(np.mean(turns))


def _crossing(
    grad: _Gradient, chain: np.ndarray, into: np.ndarray, out_of_view: bool, params: EdgeParams
) -> Crossing | None:
    """The crossing's strips: the pixels across the edge along its run, where all are
    known; those unlike the rest (another edge joining it) left out."""
    hw = params.half_width
    normal = np.array([-into[1], into[0]])  # left of `into`
    offsets = np.arange(-hw, hw + 1)[:, None] * normal[None, :]
    across = (chain[1:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    side = 2 * hw + 1
    known: np.ndarray = np.asarray(
        (sample(grad.away, across)[:, 0] >= 1).reshape(-1, side).all(axis=1)
    )
    strips = sample(grad.pixels, across).reshape(-1, side, 3)[known]
    if len(strips) < 4:
        return None
    found = np.asarray(strips, np.float32)
    off = np.abs(found - np.median(found, 0)).mean((1, 2))
    alike: np.ndarray = np.asarray(off <= max(2 * float(np.median(off)), 4.0))
    found = found[alike]
    profile = found.mean(0)
    left, right = profile[: hw - 1].mean(0), profile[hw + 2 :].mean(0)
    contrast = float(np.abs(left - right).mean())
    share = float(alike.mean())
    thin = _beside_a_thin_line(profile)
    start, start_into, drawn = drawn_from(
        grad.pixels, chain, into, known, alike, profile, params.half_width, params.min_run, thin
    )
    return Crossing(
        at=chain[0],
        into=into,
        strips=found,
        profile=profile,
        contrast=contrast,
        run=len(chain),
        out_of_view=out_of_view,
        alike=share,
        thin=thin,
        start=start,
        start_into=start_into,
        drawn=drawn,
    )


def _cross(u: np.ndarray, v: np.ndarray) -> float:
    return float(u[0] * v[1] - u[1] * v[0])


def _cost(
    a: Crossing, b: Crossing, hole_near: np.ndarray, params: EdgeParams
) -> tuple[float, Crossing] | None:
    """What joining ``a`` to ``b`` costs (lower is likelier), and ``b`` as joined (moved
    across onto the side of a thin line ``a`` was found on, where the two ends were found
    on its two sides: ``_matched``); None when they are not one edge (step 2 of the
    module's)."""
    matched = _matched(a, b, params)
    if matched is None:
        return None
    b, mismatch = matched
    contrast = min(a.contrast, b.contrast)
    length = float(np.linalg.norm(b.at - a.at))
    # an end followed out of the patch, bending evenly all the way (its bend measured),
    # vouches for the pair: the other end need only have been followed at all, and the
    # curve may reach as far from the vouching one; it must then turn as that bend says
    # (``_turns_as_bent``). A stone's edge bends evenly for 30 pixels too, and joined to
    # another stone's 11 pixels long it drew an arc across gravel: only an edge longer
    # than the patch shows is something larger than a stone
    vouching = [c.run for c in (a, b) if c.bend is not None and c.out_of_view]
    followed = max(vouching) if vouching else min(a.run, b.run)
    if length < 4 or length > params.reach * followed:
        return None
    if not vouching and any(c.run < params.long_run and not c.out_of_view for c in (a, b)):
        return None
    if max(a.alike, b.alike) < params.min_alike:
        return None  # a pattern's other edges cross both ends of it: a check, a lattice
    if not _one_bend(a, b, params):
        return None
    points, tangents = hermite(a.at, a.into, b.at, -b.into, 64)
    h, w = hole_near.shape
    xs = np.clip(np.rint(points[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.rint(points[:, 1]).astype(int), 0, h - 1)
    if hole_near[ys, xs].mean() < 0.9:
        return None  # it would run outside the hole
    angles = np.unwrap(np.arctan2(tangents[:, 1], tangents[:, 0]))
    turn = float(np.abs(np.diff(angles)).sum())
    if turn > np.radians(params.max_turn_deg):
        return None
    if not _turns_as_bent(a, b, float(angles[-1] - angles[0]), length, params):
        return None
    return mismatch / max(contrast, 1.0) + 0.2 * turn, b


#: the other edge of a thin line is looked for this many pixels across (``_matched``)
LINE_SIDES = 4


def _matched(a: Crossing, b: Crossing, params: EdgeParams) -> tuple[Crossing, float] | None:
    """``b`` and how far its colours either side are from ``a``'s (mean absolute
    difference), when they look like one edge: as found, else moved up to ``LINE_SIDES``
    pixels across. A thin line (a seam between a desk's planks, a wire) has two edges a
    few pixels apart, and each end of it may be found on either (the one of more
    contrast there): found on its top at one end and its bottom at the other, the seam
    across the demo's desk was never joined, and the fill broke it in the box."""

    def mismatch(other: Crossing) -> float | None:
        found = float(np.abs(a.profile - other.profile[::-1]).mean())
        contrast = min(a.contrast, other.contrast)
        if found > params.mismatch_share * contrast or found > params.max_mismatch:
            return None
        return found

    found = mismatch(b)
    if found is not None:
        return b, found
    if not (a.thin or b.thin):
        return None
    best: tuple[Crossing, float] | None = None
    for shift in (*range(1, LINE_SIDES + 1), *range(-1, -LINE_SIDES - 1, -1)):
        moved = _across(b, shift)
        found = mismatch(moved)
        if found is not None and (best is None or found < best[1]):
            best = moved, found
    return best


def _beside_a_thin_line(profile: np.ndarray) -> bool:
    """Whether the crossing's ``profile`` shows a thin line beside it (one to
    ``LINE_SIDES`` - 1 samples, touching the middle one or the next): a band whose colour
    is at least 20 levels off the colour either side of it, those two alike (within a
    third of that). Only where one end shows one is the other moved across to match:
    moved to match anything, the edges of a cat's fur were joined across boxes where
    nothing runs (5 more edges carried in 147 boxes of photos, 3 of them far off)."""
    grey = profile.mean(axis=1)
    middle = len(grey) // 2
    for first in range(middle - LINE_SIDES, middle + 2):
        for last in range(first, first + LINE_SIDES - 1):
            if (
                first - 2 < 0
                or last + 2 >= len(grey)
                or not (first <= middle + 1 and last >= middle - 1)
            ):
                continue
            band = float(grey[first : last + 1].mean())
            before, after = (
                float(grey[first - 2 : first].mean()),
                float(grey[last + 1 : last + 3].mean()),
            )
            depth = min(abs(band - before), abs(band - after))
            if (
                depth >= 20
                and abs(before - after) <= depth / 3
                and (band - before) * (band - after) > 0
            ):
                return True
    return False


def _across(c: Crossing, shift: int) -> Crossing:
    """``c`` moved ``shift`` pixels across its edge (to the left of ``into``): where it
    meets the line round the hole and where it is drawn from, its strips' samples moved
    with it (those moved past a strip's end repeat its last). Its contrast is the line's
    as found: measured again from either side of the moved strips, it is the line's
    own side against the line."""
    normal = np.array([-c.into[1], c.into[0]])
    start_normal = np.array([-c.start_into[1], c.start_into[0]])
    return replace(
        c,
        at=c.at + shift * normal,
        start=c.start + shift * start_normal,
        strips=_rolled(c.strips, shift, 1),
        drawn=_rolled(c.drawn, shift * FINE, 1),
        profile=_rolled(c.profile, shift, 0),
    )


def _rolled(samples: np.ndarray, shift: int, axis: int) -> np.ndarray:
    """``samples`` along ``axis`` read ``shift`` further on: the sample at i is the one
    that was at i + ``shift`` (the last one repeated past the end)."""
    count = samples.shape[axis]
    index = np.clip(np.arange(count) + shift, 0, count - 1)
    return np.take(samples, index, axis=axis)


def _one_bend(a: Crossing, b: Crossing, params: EdgeParams) -> bool:
    """Whether the way from ``a`` to ``b`` is one bend: not backwards, not an S (the chord
    turns the same way from both edges; an S is two edges that only happen to meet, as on a
    wall of staggered bricks), and about as much at both ends, as an arc does."""
    u = (b.at - a.at) / float(np.linalg.norm(b.at - a.at))
    out_of_b = -b.into
    if np.dot(a.into, u) < -0.2 or np.dot(out_of_b, u) < -0.2:
        return False
    turn_a, turn_b = _cross(a.into, u), _cross(u, out_of_b)
    if turn_a * turn_b < 0 and min(abs(turn_a), abs(turn_b)) > np.sin(
        np.radians(params.s_slack_deg)
    ):
        return False
    uneven = abs(np.arcsin(np.clip(turn_a, -1, 1)) - np.arcsin(np.clip(turn_b, -1, 1)))
    return bool(uneven <= np.radians(params.max_uneven_deg))


def _turns_as_bent(
    a: Crossing, b: Crossing, turned: float, length: float, params: EdgeParams
) -> bool:
    """Whether a curve turning ``turned`` radians over ``length`` pixels turns about as the
    edges bend on their way in: as an arc seen from both ends, when both bend the same way
    along it (``b``'s bend, measured the other way, reversed); as the arc of one end's
    bend, when the other was followed too short a way to tell how it bends and that arc
    can reach it (a saucer's lip whose highlight fades 18 pixels past the box, the lower
    outline of an eye); else as a straight edge. Two straight edges are not joined by an
    arc, nor by an elbow: a joint of mortar followed round a corner into another one,
    carried over a 200-pixel box, made an elbow nearly a third over brick. So one end's
    bend is believed only where the other end could not be measured (one measured and
    found uneven, as round a corner, is not), and only as the arc of that bend's circle:
    taken as turning by the bend times the length, with the slack that two ends get, a
    joint's slight bend made elbows of 75–85° in boxes of 300 and 500 pixels on a real
    wall, a stone's an arc across gravel, and a strut's tight one a loop off the side of
    a box on a launch tower's lattice. Two edges that both run out of the patch may turn
    more (``unseen_turn_deg``): a rim whose visible parts are nearly straight bends where
    the hole hides it (44° on a cup's), though still no corner."""
    slack = float(
        np.radians(
            params.unseen_turn_deg if a.out_of_view and b.out_of_view else params.turn_slack_deg
        )
    )
    if a.bend is not None and b.bend is not None:
        expected = (a.bend - b.bend) / 2 * length if a.bend * -b.bend > 0 else 0.0
        return abs(turned - expected) <= slack + 0.5 * abs(expected)
    bend = _one_sided_bend(a, b, params)
    if bend is None:
        return abs(turned) <= slack
    # the circle of that bend through both ends: none when the two are farther apart than
    # its diameter; else its arc between them turns by the angle the chord subtends
    half_chord = abs(bend) * length / 2
    if half_chord >= 1:
        return False
    expected = math.copysign(2 * math.asin(half_chord), bend)
    return abs(turned - expected) <= max(slack, 0.5 * abs(expected))


def _one_sided_bend(a: Crossing, b: Crossing, params: EdgeParams) -> float | None:
    """The bend (radians per pixel, along the way from ``a`` to ``b``) of the one end
    whose bend was measured, when the other was followed too short a way for its bend to
    be measured (``_bend`` needs three stretches), rather than measured and found not to
    bend evenly; None otherwise."""
    if a.bend is not None and not _long_enough_to_bend(b.run, params.min_run):
        return a.bend
    if b.bend is not None and not _long_enough_to_bend(a.run, params.min_run):
        return -b.bend  # measured on its own way in, the other way along the curve
    return None


def pair_crossings(crossings: list[Crossing], hole: np.ndarray, params: EdgeParams) -> list[Pair]:
    """The crossings that are one edge, each in one pair at most, the likeliest first."""
    near = grow_square(hole, 3 * params.gap // 2)
    costs: dict[tuple[int, int], float] = {}
    joined: dict[tuple[int, int], Crossing] = {}
    for i, a in enumerate(crossings):
        for j in range(i + 1, len(crossings)):
            found = _cost(a, crossings[j], near, params)
            if found is not None:
                costs[i, j], joined[i, j] = found
    pairs, used = [], set()
    for (i, j), cost in sorted(costs.items(), key=lambda item: item[1]):
        if i in used or j in used:
            continue
        rivals = [c for key, c in costs.items() if key != (i, j) and {i, j} & set(key)]
        if rivals and min(rivals) < params.unambiguous * cost:
            continue  # another partner nearly as likely: leave both to the fill
        used |= {i, j}
        pairs.append((crossings[i], joined[i, j]))
    return pairs
