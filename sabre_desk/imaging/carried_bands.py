"""A band of structure carried across the hole: a launch tower's lattice, a rocket's body.

A launch tower crossing a box in an evening sky is a band: a stretch of structure (its legs
and the lattice between them) with plain sky either side, entering the hole on one side and
leaving it on the other. The completion copies patches of sky into most of the hole and
the lattice is cut off at the box; ``carried_edges`` finds the legs' edges, but the sky's
colour either side of a leg changes along it, and its look at the one end is not its look at
the other. The band itself is continued instead, as Sun et al.'s structure propagation does
with patches along a curve: straightened between its two mouths, it is copied into the hole
from further along itself, a whole number of its periods away, from both ends.

1. **Structure.** Pixels whose colour gradient (over 5×5) is well above the plain level of
   the ring round the hole (its median) are structure; closed by a few pixels, a lattice
   is one region. Most of the ring must be plain: round gravel, grass or fur everything is
   structure and nothing here applies.
2. **Mouths.** Exactly two regions of structure may touch the hole; they are one band when
   they are as wide as a band (narrower is a line, ``carried_edges``'s) and alike in
   width, the structure runs on from each away from the hole along the line joining them,
   filling the band, on one ground either side of it (not an edge between two), and the
   band is narrower than the hole it crosses.
3. **Copy.** Past each end the band's look is matched with itself shifted along it: the
   shortest shift that matches nearly as well as the best is its period (``_period``).
   An end is copied from where the band runs on as far as that; each hole pixel of the
   band from the nearest known whole pixel a whole number of periods out, moved across by
   the fraction of a pixel per period that copies the band just outside the hole onto
   itself best (``_step_across``). The two ends' copies are cut across the band where they
   agree most, round a place that gives the end more like itself the more of it (``_cut``).

The copy is laid over the completion's fill as a seamless clone
(``laid_over``). Measured with ``benchmarks/carried_bands.py`` and on textured
objects (``benchmarks/textured_objects.py``, docs/performance.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from sabre_desk.imaging.gradient_fill import membrane
from sabre_desk.imaging.patch_field import grow_round, grow_square


@dataclass(frozen=True)
class BandParams:
    #: the ring whose median gradient is the plain level: this many pixels outside the hole
    ring_px: int = 6
    #: structure: a gradient above this many times the plain level, and this far above it
    structure_times: float = 4.0
    structure_above: float = 3.0
    #: the structure is closed by a disk of this radius (a lattice's gaps)
    close_px: int = 4
    #: at most this share of the ring is structure (else textured ground: no band)
    most_structure: float = 0.45
    #: a mouth touches the hole with at least this many pixels of structure
    least_mouth: int = 5
    #: the band's edges are measured on its structure this far outside the hole
    edge_reach: int = 14
    #: a band is at least this wide (pixels, as its structure measures it: a line's edges
    #: blur it wider), narrower is a line and ``carried_edges``'s: a brick wall's joint of
    #: mortar at twice its size, 15–16 pixels so, came back from its copies with steps of a
    #: pixel or two where they met; the launch tower's lattice is 21–34...
    least_width: float = 18.0
    #: ...its ends' widths agree within this ratio...
    width_ratio: float = 1.8
    #: ...and it is at most this share of the hole's extent across it
    most_width_share: float = 0.7
    #: the structure runs on from each mouth over this stretch (pixels), filling at least
    #: ``runs_on`` of the band and at most ``beside`` of the ground either side
    run_from: int = 3
    run_to: int = 20
    runs_on: float = 0.55
    beside: float = 0.3
    #: and so it does over each stretch this long as far as the band is copied from
    run_stretch: int = 8
    #: and the ground's colours either side of it at most this far apart (levels): a band
    #: stands on one ground (a tower in the sky); a step between two is an edge
    ground_apart: float = 20.0
    #: each end's look is matched over this many pixels along the band with itself
    #: shifted by ``least_period`` to ``most_period`` pixels: the band's period
    match_len: int = 16
    least_period: int = 6
    most_period: int = 48
    #: the shortest shift that matches within this factor of the best is the period
    period_slack: float = 1.1
    #: a hole pixel is copied from at most this many periods away
    most_periods: int = 40
    #: the band is straightened with this many samples across it, 10 % either side of it
    across: int = 24
    #: each end's copies are lined up with the band just outside the hole (``near_px``
    #: pixels of it) by moving them up to ``align_px`` pixels across it a period
    near_px: float = 2.0
    align_px: int = 2
    #: the copies of the two ends meet with a soft step this wide (pixels)
    cut_soft: float = 1.5
    #: pixels either side of the band's edges copied with it (its ground), over which it
    #: fades into the fill round it
    margin: float = 3.0
    fade_px: float = 3.0

    @property
    def reach_px(self) -> int:
        """How far past the hole a band is looked at: as far as its longest period is
        matched past its mouth, and it is followed there."""
        return self.most_period + self.match_len + self.run_to


@dataclass(frozen=True)
class _Frame:
    """The band straightened: ``t`` along the line from one mouth to the other (0 at the
    first, ``length`` at the second), its edges across it lines in ``t``."""

    origin: np.ndarray
    along: np.ndarray
    across: np.ndarray
    length: float
    #: (t, left, right) where each end's edges were measured
    ends: tuple[tuple[float, float, float], tuple[float, float, float]]

    def edges(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        (ta, la, ra), (tb, lb, rb) = self.ends
        k = (t - ta) / (tb - ta)
        return la + (lb - la) * k, ra + (rb - ra) * k

    def coords(self, xs: np.ndarray, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(t, s) of pixels: s is 0 on the band's left edge, 1 on its right."""
        dx, dy = xs - self.origin[0], ys - self.origin[1]
        t = dx * self.along[0] + dy * self.along[1]
        v = dx * self.across[0] + dy * self.across[1]
        left, right = self.edges(t)
        return t, (v - left) / np.maximum(right - left, 1e-6)

    def place(self, t: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(x, y) of band coordinates."""
        left, right = self.edges(t)
        v = left + s * (right - left)
        x = self.origin[0] + t * self.along[0] + v * self.across[0]
        y = self.origin[1] + t * self.along[1] + v * self.across[1]
        return x, y

    def width_at(self, t: float) -> float:
        left, right = self.edges(np.array([t]))
        return float(right[0] - left[0])


def structure(image: np.ndarray) -> np.ndarray:
    """Each pixel's colour gradient, averaged over 5×5 (float32)."""
    smooth = cv2.GaussianBlur(np.asarray(image, np.float32), (0, 0), 0.7)
    gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3) / 8
    magnitude = np.sqrt((gx * gx + gy * gy).sum(axis=2))
    return np.asarray(cv2.boxFilter(magnitude, -1, (5, 5)), np.float32)


def carry_band(
    image: np.ndarray, hole: np.ndarray, params: BandParams | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``image`` (RGB uint8) with a band of structure that crosses ``hole`` copied across
    it, and the pixels copied (bool; none when no band crosses it)."""
    params = params or BandParams()
    hole = hole.astype(bool)
    nothing = (image.copy(), np.zeros(hole.shape, bool))
    if not hole.any() or hole.all():
        return nothing
    pixels = image.astype(np.float32)
    found = _band(pixels, hole, params)
    if found is None:
        return nothing
    copied = _copy(pixels, hole, *found, params)
    if copied is None:
        return nothing
    out = image.copy()
    out[copied] = np.clip(pixels[copied] + 0.5, 0, 255).astype(np.uint8)
    return out, copied


def laid_over(
    filled: np.ndarray,
    copied: np.ndarray,
    hole: np.ndarray,
    band: np.ndarray,
    params: BandParams | None = None,
) -> np.ndarray:
    """The band's copy laid over the fill as a seamless clone (Pérez et al., 2003): its
    colours shifted by the smoothest surface that meets the fill along its sides and nothing
    where it meets the known band, then faded into the fill over its last pixels. Laid as
    copied, the sky between a tower's bars (from further along the band) was darker than
    the fill's sky beside it, a shadow along the tower."""
    params = params or BandParams()
    beside = hole & ~band
    sides = band & grow_square(beside, 1)
    step = np.where(sides[..., None], filled.astype(np.float32) - copied, 0).astype(np.float32)
    shifted = copied + membrane(step, band & ~sides)
    distance = cv2.distanceTransform((~beside).astype(np.uint8), cv2.DIST_L2, 3)
    weight = np.clip(distance / params.fade_px, 0, 1)[..., None]
    laid = weight * shifted + (1 - weight) * filled.astype(np.float32)
    return np.where(band[..., None], np.clip(laid + 0.5, 0, 255).astype(np.uint8), filled)


def _band(
    pixels: np.ndarray, hole: np.ndarray, params: BandParams
) -> tuple[_Frame, np.ndarray] | None:
    """The band that crosses the hole, straightened, and the structure round it (closed);
    None when the ring is textured, or anything but one band's two mouths meets the hole
    (a brick wall's joints are lines that meet, ``carried_edges``'s)."""
    gradient = structure(pixels)
    ring = grow_round(hole, params.ring_px) & ~grow_round(hole, 1)
    if not ring.any():
        return None
    plain = float(np.median(gradient[ring]))
    level = max(params.structure_times * plain, plain + params.structure_above)
    found = (gradient > level) & ~hole
    disk = cv2.getStructuringElement(
        cv2.MORPH_ELLIPSE, (2 * params.close_px + 1, 2 * params.close_px + 1)
    )
    closed = cv2.morphologyEx(found.astype(np.uint8), cv2.MORPH_CLOSE, disk).astype(bool) & ~hole
    if float(closed[ring].mean()) > params.most_structure:
        return None
    count, labels = cv2.connectedComponents(closed.astype(np.uint8), connectivity=8)
    # each region's pixels within 3 of the hole: how many, and their middle
    ys, xs = np.nonzero(grow_round(hole, 3) & ~hole)
    touching = labels[ys, xs]
    pixels_of = np.bincount(touching, minlength=count)
    pixels_of[0] = 0  # no structure
    mouths = np.flatnonzero(pixels_of >= params.least_mouth)
    if len(mouths) != 2:
        return None
    la, lb = (int(label) for label in mouths)
    middles = [
        np.array([xs[touching == label].mean(), ys[touching == label].mean()]) for label in (la, lb)
    ]
    ma, mb = middles
    outside = cv2.distanceTransform((~hole).astype(np.uint8), cv2.DIST_L2, 3)
    frame = _frame(ma, mb, found & (labels == la), found & (labels == lb), outside, params)
    if frame is None or not _one_band(pixels, frame, closed, hole, params):
        return None
    return frame, closed


def _frame(
    a: np.ndarray,
    b: np.ndarray,
    at_a: np.ndarray,
    at_b: np.ndarray,
    outside: np.ndarray,
    params: BandParams,
) -> _Frame | None:
    """The band between mouths ``a`` and ``b`` (their centres), its edges measured on each
    end's structure near the hole; None when the two are not one band's widths."""
    length = float(np.hypot(*(b - a)))
    if length < 2:
        return None
    along = (b - a) / length
    across = np.array([-along[1], along[0]])
    ends = []
    for at in (at_a, at_b):
        ys, xs = np.nonzero(at & (outside <= params.edge_reach))
        if len(xs) < params.least_mouth:
            return None
        t = (xs - a[0]) * along[0] + (ys - a[1]) * along[1]
        v = (xs - a[0]) * across[0] + (ys - a[1]) * across[1]
        ends.append((float(t.mean()), float(np.percentile(v, 2)), float(np.percentile(v, 98))))
    if abs(ends[1][0] - ends[0][0]) < 2:
        return None
    widths = [right - left for _, left, right in ends]
    if min(widths) < params.least_width or max(widths) > params.width_ratio * min(widths):
        return None
    return _Frame(a, along, across, length, (ends[0], ends[1]))


def _one_band(
    pixels: np.ndarray, frame: _Frame, closed: np.ndarray, hole: np.ndarray, params: BandParams
) -> bool:
    """Whether the two mouths are one band: the structure runs on from both along the line
    between them (``_runs_on``), the ground either side is one, and the band is narrower
    than the hole."""
    ys, xs = np.nonzero(hole)
    across = (xs - frame.origin[0]) * frame.across[0] + (ys - frame.origin[1]) * frame.across[1]
    if frame.width_at(frame.length / 2) > params.most_width_share * float(np.ptp(across) + 1):
        return False
    steps = np.arange(params.run_from, params.run_to + 1, dtype=np.float64)
    for t in (-steps, frame.length + steps):
        if not _runs_on(closed, frame, t, params):
            return False
        apart = _ground_alike(pixels, frame, t)
        if apart is None or apart > params.ground_apart:
            return False
    return True


def _runs_on(closed: np.ndarray, frame: _Frame, t: np.ndarray, params: BandParams) -> bool:
    """Whether at ``t`` the structure fills the band (``runs_on`` of it) and not the ground
    either side (``beside``)."""
    on = _share(closed, frame, t, np.linspace(0.0, 1.0, 12))
    either_side = np.concatenate([np.linspace(-0.6, -0.15, 6), np.linspace(1.15, 1.6, 6)])
    off = _share(closed, frame, t, either_side)
    return on is not None and off is not None and on >= params.runs_on and off <= params.beside


def _ground_alike(pixels: np.ndarray, frame: _Frame, t: np.ndarray) -> float | None:
    """How far apart (grey levels) the ground's mean colours on the band's two sides are
    at ``t``; None when either side lies out of the image."""
    means = []
    for s in (np.linspace(-0.6, -0.15, 6), np.linspace(1.15, 1.6, 6)):
        tt, ss = np.meshgrid(t, s, indexing="ij")
        x, y = frame.place(tt, ss)
        h, w = pixels.shape[:2]
        if x.min() < 0 or y.min() < 0 or x.max() > w - 1 or y.max() > h - 1:
            return None
        means.append(_sample(pixels, x, y).reshape(-1, 3).mean(axis=0))
    return float(np.abs(means[0] - means[1]).max())


def _share(closed: np.ndarray, frame: _Frame, t: np.ndarray, s: np.ndarray) -> float | None:
    """The share of the band's samples at ``t`` × ``s`` that are structure; None when
    fewer than half lie in the image."""
    tt, ss = np.meshgrid(t, s, indexing="ij")
    x, y = frame.place(tt, ss)
    xi, yi = np.rint(x).astype(int), np.rint(y).astype(int)
    h, w = closed.shape
    within = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    if within.mean() < 0.5:
        return None
    return float(closed[yi[within], xi[within]].mean())


def _copy(
    pixels: np.ndarray, hole: np.ndarray, frame: _Frame, closed: np.ndarray, params: BandParams
) -> np.ndarray | None:
    """The band's hole pixels copied from further along it (see the module's docstring)
    into ``pixels`` (float32); which they are, or None when neither end's look can be
    followed."""
    h, w = hole.shape
    outside = cv2.distanceTransform((~hole).astype(np.uint8), cv2.DIST_L2, 3)
    known = outside > 1.5  # not the hole's edge, half covered in a soft-edged paste
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    t_all, s_all = frame.coords(xx, yy)
    pad = params.margin / max(frame.width_at(frame.length / 2), 1.0)
    target = hole & (s_all >= -pad) & (s_all <= 1 + pad)
    if not target.any():
        return None
    t, s = t_all[target], s_all[target]
    # the band just outside the hole, each end's to line its copies up with
    beyond = ~hole & (outside <= params.near_px) & (s_all >= 0) & (s_all <= 1)
    copies: dict[int, _EndCopy] = {}
    for end in (0, 1):
        side = beyond & ((t_all < frame.length / 2) if end == 0 else (t_all >= frame.length / 2))
        mouth = _Mouth(end, t_all[side], s_all[side], pixels[side])
        copy = _end_copy(pixels, known, closed, frame, t, s, mouth, params)
        if copy is not None:
            copies[end] = copy
    if not copies:
        return None
    if len(copies) == 1:
        alone = next(iter(copies.values()))
        if not alone.landed.all():
            return None  # one end alone must reach across the whole band
        values = alone.values
    else:
        values = _cut(copies[0], copies[1], t, params)
    pixels[target] = values
    return target


@dataclass(frozen=True)
class _Mouth:
    """One end of the band: which (0 at ``t`` = 0, 1 at the far one), and the band's
    pixels just outside the hole there (their band coordinates and colours)."""

    end: int
    t: np.ndarray
    s: np.ndarray
    colours: np.ndarray

    @property
    def outward(self) -> float:
        """The way out of the hole along ``t`` past this end."""
        return -1.0 if self.end == 0 else 1.0


@dataclass(frozen=True)
class _EndCopy:
    """The band's hole pixels copied from past one end, which of them found a known pixel
    to copy, and how unlike itself the band is a period out there (``_period``)."""

    values: np.ndarray
    landed: np.ndarray
    unlike: float


def _end_copy(
    pixels: np.ndarray,
    known: np.ndarray,
    closed: np.ndarray,
    frame: _Frame,
    t: np.ndarray,
    s: np.ndarray,
    mouth: _Mouth,
    params: BandParams,
) -> _EndCopy | None:
    """The band's hole pixels (at ``t``, ``s``) copied from past one end: each from the
    nearest known place a whole number of the band's periods outwards; and whether it
    found one. None when the band's look past the end cannot be measured, or the band does
    not run on, stretch by stretch, as far as it is copied from (a rocket's nose, the top
    of a pole)."""
    outward = mouth.outward
    start = 0.0 if mouth.end == 0 else frame.length
    strip = _straightened(pixels, known, frame, start, outward, params)
    found = _period(strip, params)
    if found is None:
        return None
    period, unlike = found
    for near in range(params.run_from, period + params.match_len, params.run_stretch):
        stretch = np.arange(near, near + params.run_stretch, dtype=np.float64)
        if not _runs_on(closed, frame, start + outward * stretch, params):
            return None
    step = _step_across(pixels, known, frame, mouth, period, params)
    values = np.zeros((len(t), 3), np.float32)
    landed = np.zeros(len(t), bool)
    for n in range(1, params.most_periods + 1):
        todo = ~landed
        if not todo.any():
            break
        xi, yi, on = _sources(known, frame, t[todo], s[todo], outward * n * period, n * step)
        idx = np.flatnonzero(todo)[on]
        values[idx] = pixels[yi[on], xi[on]]
        landed[idx] = True
    return _EndCopy(values, landed, unlike)


def _sources(
    known: np.ndarray, frame: _Frame, t: np.ndarray, s: np.ndarray, along: float, across: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The whole pixels the band's pixels at (``t``, ``s``) are copied from, ``along`` it
    and ``across`` it away (its width scaled as the band narrows), and which of them are
    known. Whole pixels, not blended between four: a lattice's bar a pixel wide, copied
    from half a pixel off, came out half as dark and twice as wide."""
    x, y = frame.place(t + along, s)
    xi = np.rint(x + across * frame.across[0]).astype(int)
    yi = np.rint(y + across * frame.across[1]).astype(int)
    h, w = known.shape
    on = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    on[on] = known[yi[on], xi[on]]
    return np.clip(xi, 0, w - 1), np.clip(yi, 0, h - 1), on


def _step_across(
    pixels: np.ndarray,
    known: np.ndarray,
    frame: _Frame,
    mouth: _Mouth,
    period: int,
    params: BandParams,
) -> float:
    """How far across the band (pixels, in quarters, up to ``align_px``) each period's
    copy is moved so that the band just outside the hole is copied onto itself best, one
    and two periods away: the band's edges are measured to a pixel or so at each end, and
    a lattice's legs, a fraction of a pixel off per period, met the known ones in a step
    two periods in."""
    if len(mouth.t) == 0:
        return 0.0
    best = (np.inf, 0.0)
    for step in np.arange(-params.align_px, params.align_px + 0.125, 0.25):
        diffs = []
        for n in (1, 2):
            along = mouth.outward * n * period
            xi, yi, on = _sources(known, frame, mouth.t, mouth.s, along, n * float(step))
            if on.mean() >= 0.5:
                diffs.append(float(np.abs(pixels[yi[on], xi[on]] - mouth.colours[on]).mean()))
        if diffs and float(np.mean(diffs)) < best[0]:
            best = (float(np.mean(diffs)), float(step))
    return best[1]


def _straightened(
    pixels: np.ndarray,
    known: np.ndarray,
    frame: _Frame,
    start: float,
    outward: float,
    params: BandParams,
) -> np.ndarray:
    """The band from ``start`` outwards, one row per pixel along it, ``params.across``
    samples across it (10 % either side); NaN where a sample is not known."""
    h, w = known.shape
    rows = np.arange(0, max(h, w), dtype=np.float64)
    across = np.linspace(-0.1, 1.1, params.across)
    tt, ss = np.meshgrid(start + outward * rows, across, indexing="ij")
    x, y = frame.place(tt, ss)
    strip = _sample(pixels, x, y)
    xi, yi = np.rint(x).astype(int), np.rint(y).astype(int)
    within = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    ok = np.zeros(x.shape, bool)
    ok[within] = known[yi[within], xi[within]]
    strip[~ok] = np.nan
    return strip


def _period(strip: np.ndarray, params: BandParams) -> tuple[int, float] | None:
    """The shift along the band at which its look next to the hole repeats best (what
    changes along it: each sample across it less its mean along the stretch, so a pole's
    or a leg's steady line does not make every shift alike and the lattice between decides),
    or None when too little of the band past the hole is known to tell; and how unlike
    itself the band is a period out (the whole look's difference against its own spread:
    0 for a lattice that repeats exactly, about 1 for one that changes, as a pole on top
    of a lattice tower does)."""
    n = params.match_len
    valid = ~np.isnan(strip).any(axis=(1, 2))
    if not valid.any():
        return None
    strip = strip[int(np.argmax(valid)) :]  # from the first row wholly past the hole
    valid = ~np.isnan(strip).any(axis=(1, 2))
    known_rows = len(valid) if valid.all() else int(np.argmin(valid))
    if known_rows < n + params.least_period:
        return None
    scores = []
    for p in range(params.least_period, min(params.most_period, known_rows - n) + 1):
        near, far = strip[:n], strip[p : p + n]
        near = near - near.mean(axis=0)
        far = far - far.mean(axis=0)
        scores.append((float(np.abs(near - far).mean()), p))
    if not scores:
        return None
    # the shortest shift nearly as good as the best: twice a lattice's period (its top
    # seen in perspective) matches about as well, and copies from twice as far
    best = min(score for score, _ in scores)
    period = next(p for score, p in scores if score <= params.period_slack * best)
    near, far = strip[:n], strip[period : period + n]
    spread = float(np.abs(near - np.median(near, axis=(0, 1))).mean())
    return period, float(np.abs(near - far).mean()) / max(spread, 1e-6)


def _cut(one: _EndCopy, other: _EndCopy, t: np.ndarray, params: BandParams) -> np.ndarray:
    """The two ends' copies, each nearer its own end, cut across the band where they agree
    most within a third of the way round a place that gives the end more like itself the
    more of the band (by the squares of how unlike themselves they are: a pole on a lattice
    tower, unlike itself a period on, was carried half way down into the lattice); each
    copy's colour leans half way to the other's at the cut (the sky lighter further down),
    from none at its own end."""
    first, second = one.values, other.values
    lo, hi = float(t.min()), float(t.max())
    rows = np.floor(t).astype(int)
    diff = np.abs(first - second).mean(axis=1)
    weights = one.unlike**2, other.unlike**2
    share = weights[1] / max(weights[0] + weights[1], 1e-6)  # of the way, from the first
    middle = lo + (hi - lo) * min(max(share, 1 / 6), 5 / 6)
    cut, best = middle, np.inf
    for row in range(int(middle - (hi - lo) / 6), int(middle + (hi - lo) / 6) + 1):
        sel = rows == row
        if sel.any() and float(diff[sel].mean()) < best:
            cut, best = float(row), float(diff[sel].mean())
    there = np.abs(t - cut) <= 2
    step = np.median(second[there] - first[there], axis=0) if there.any() else np.zeros(3)
    lean_first = np.clip((t - lo) / max(cut - lo, 1e-6), 0, 1)[:, None] * 0.5
    lean_second = np.clip((hi - t) / max(hi - cut, 1e-6), 0, 1)[:, None] * 0.5
    first = first + lean_first * step
    second = second - lean_second * step
    weight = np.clip((t - cut) / (2 * params.cut_soft) + 0.5, 0, 1)[:, None]
    return np.asarray((1 - weight) * first + weight * second, np.float32)


def _sample(pixels: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``pixels`` at (x, y), any shape."""
    shape = x.shape
    mx = np.ascontiguousarray(x.reshape(-1, 1), np.float32)
    my = np.ascontiguousarray(y.reshape(-1, 1), np.float32)
    out = cv2.remap(pixels, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(*shape, pixels.shape[2])
