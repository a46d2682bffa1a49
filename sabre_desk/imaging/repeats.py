"""A pattern that repeats round the hole (a check, tiles, a grid), and where to copy it from.

PatchMatch completion copies small patches and averages them: through a box wider than a
repeat of a gingham cloth it lays down pieces of the check offset against one another, and
the blend of the pieces shows both (blocks of foreign structure, faded). A regular pattern
is better continued whole: each hole pixel copied from a pixel a whole number of repeats
away, as He and Sun's completion does with the offsets that recur most between similar
patches ("Statistics of patch offsets for image completion", ECCV 2012). Here:

1. **The repeat's two steps** are found in the known pixels round the hole. Each is put in
   one of six colour classes (k-means, on the patch blurred by a pixel so that grain does
   not split a colour), and for every offset at once (FFT correlations) the share of the
   pairs of known pixels that far apart that fall in different classes is measured: the
   *mismatch*. A step of a repeat is an offset where the mismatch is a local minimum, low
   (at most 0.40) and at most half what it is half a step away. The last test is what a
   repeat has and nothing else does: a plain or smoothly shaded area, or a long straight
   edge, matches itself at many offsets, but also at half of each. Counting class pairs
   rather than summing squared differences keeps a plate or a mug in the patch from
   hiding the check round it (it costs its share of pixels, not its contrast). Two steps
   that are not along one line are needed. Straight stripes have them (a step across, and
   one across and along), and are followed: exactly, where the completion bent them (a
   diagonal square-wave stripe: 8.3 levels of error against 34.7); a pattern whose
   repeat drifts (a brick wall's courses) shows no clear second step and is left to the
   completion.
   The steps are found at full size (a patch of more than 400,000 pixels at a lower scale,
   each step then measured again at full size).
2. **The copies**: every sum of up to twelve of each step that stays on the patch. Where
   fewer than two copies reach most of the hole (a box much wider than the patch round it,
   a repeat as wide as the patch), the pattern is not followed.
3. **Which copy each pixel takes** (``patchmatch_kernels.repeat_labels``), from the
   pixels of the pattern alone where they give every hole pixel a copy (``_in_pattern``:
   the wall beside a check is not copied from): the labelling
   that meets the known pixels round the hole, strays least from what the copies agree on
   at each pixel (their median: a copy that lands on a plate one repeat away is outvoted),
   and whose neighbouring copies differ least where they meet. Where (almost) none of the
   ring round the hole is of the pattern, the repeat is not the hole's and is not followed:
   the faint grain of a desk under a plain wall showed two steps, and every copy came from
   any pixel a whole number of them away (blocks of wall in the wood, of wood in the wall).
4. **Checked**: the copies must give back the known pixels in a ring round the hole
   (``_copies_fit``); the colour classes can agree where the pixels do not.

``repeat_search`` also says whether a clear step was seen at all, where the pattern could
not be followed, and whether every hole pixel had a copy of its own: the completion then
looks again in a wider crop round the patch (``copies_of`` follows the same steps there).

Measured (``benchmarks/repeating_patterns.py``): the demo's brick mug on its gingham,
boxed whole, and boxes on the plain cloth; the textured and flat objects of the other
benchmarks have no such repeat, and their figures are unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from sabre_desk.imaging.loops import compiled_loops
from sabre_desk.imaging.patch_field import grow_square, landing, shrink

Step = tuple[int, int]  # (dy, dx)

#: a step found may be this many repeats of the pattern's own
MOST_REPEATS = 8
#: the most candidate steps looked at one by one (the lowest of the mismatch's minima)
MOST_CANDIDATES = 200


@dataclass(frozen=True)
class RepeatParams:
    #: colour classes the known pixels are put in (a check has two or three colours; six
    #: leaves room for its shading without splitting a colour by its grain)
    classes: int = 6
    #: the blur (pixels) the classes are found on
    blur: float = 1.0
    #: a step's mismatch is at most this; and at most half_ratio of the mismatch half a step
    #: away, which is itself at least half_least (a plain area matches itself everywhere).
    #: 0.35 left the demo's check unfollowed beside its plate's rim (the plate's white,
    #: paired with the cloth's, raised the step along the row to 0.358); at 0.40 no photo
    #: of the benchmark's 240 boxes is taken for a repeat more than at 0.35, and the copies
    #: are checked (``_copies_fit``)
    most_mismatch: float = 0.40
    #: and the sum and the difference of the two steps, measured over fewer pairs (often
    #: across the pattern's own border), at most this
    most_mismatch_together: float = 0.45
    half_ratio: float = 0.5
    half_least: float = 0.25
    #: a step is at least this long (pixels, on either axis, at the scale it is found)
    shortest: int = 3
    #: a step counts only if this share of the known pixels has a known pixel a step away;
    #: the sum of two steps is checked where this smaller share has one
    least_overlap: float = 0.25
    least_told: float = 0.1
    #: the copies are the sums of up to this many of each step that stay on the patch; each
    #: pixel chooses among the nearest of them that land on known pixels
    reach: int = 12
    nearest: int = 16
    #: the pattern is followed only where this share of the hole has at least
    #: least_copies copies on known pixels
    least_copies: int = 2
    covered: float = 0.6
    #: and only where at least this share of the ring round the hole (ring_width wide, at
    #: the labelling's scale) is of the pattern (``_in_pattern``): a repeat seen in the
    #: patch but not round the hole is not the hole's
    least_in_pattern: float = 0.01
    #: the labelling works on at most this many hole pixels, and the search for steps on at
    #: most this many pixels of the patch (its FFTs at twice the side: about 25 MB each);
    #: past the first the labelling, past the second both, work at a lower scale
    most_pixels: int = 12_000
    most_patch_pixels: int = 400_000
    #: belief propagation's passes, and the weight of a copy's distance to the copies' median
    sweeps: int = 4
    typical: float = 1.0
    #: the copies must give back the known pixels in a ring this wide round the hole: their
    #: mean difference there at most ring_factor times the ring's own grain (the difference
    #: between neighbouring pixels) plus ring_floor levels (``_copies_fit``)
    ring_width: int = 4
    ring_factor: float = 4.0
    ring_floor: float = 2.0
    seed: int = 1


def colour_classes(img: np.ndarray, known: np.ndarray, params: RepeatParams) -> np.ndarray:
    """Each pixel's colour class (int, H×W): k-means on the known pixels (sampled), every
    pixel then given its nearest centre."""
    pixels = img[known].reshape(-1, 3).astype(np.float32)
    sample = np.ascontiguousarray(pixels[:: max(1, len(pixels) // 20_000)])
    classes = min(params.classes, len(sample))
    cv2.setRNGSeed(params.seed)
    stop = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    _, _, centres = cv2.kmeans(sample, classes, None, stop, 2, cv2.KMEANS_PP_CENTERS)
    flat = img.reshape(-1, 1, 3).astype(np.float32)
    nearest = ((flat - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
    classes_of: np.ndarray = nearest.reshape(known.shape)
    return classes_of


@dataclass(frozen=True)
class Mismatch:
    """For every offset (dy, dx), the share of pairs of known pixels that far apart whose
    classes differ, and how many such pairs there are (indexed by offset modulo the
    arrays' shape, as circular correlations are)."""

    share: np.ndarray
    pairs: np.ndarray

    def at(self, step: Step) -> float:
        h, w = self.share.shape
        return float(self.share[step[0] % h, step[1] % w])

    def overlap(self, step: Step) -> float:
        h, w = self.pairs.shape
        return float(self.pairs[step[0] % h, step[1] % w])


def mismatch(classes: np.ndarray, known: np.ndarray, count: int) -> Mismatch:
    """The mismatch at every offset: for each class, the correlation of its known pixels
    with themselves counts the pairs that agree (FFT, padded so nothing wraps round)."""
    h, w = known.shape
    fh, fw = cv2.getOptimalDFTSize(2 * h), cv2.getOptimalDFTSize(2 * w)

    def spectrum(a: np.ndarray) -> np.ndarray:
        return np.fft.rfft2(a, (fh, fw))

    def self_correlation(f: np.ndarray) -> np.ndarray:  # Σ a(x)·a(x + offset)
        corr: np.ndarray = np.fft.irfft2(np.conj(f) * f, (fh, fw))
        return corr

    weight = known.astype(np.float64)
    pairs = self_correlation(spectrum(weight))
    same = np.zeros_like(pairs)
    for c in range(count):
        same += self_correlation(spectrum(weight * (classes == c)))
    pairs = np.maximum(pairs, 0.0)  # FFT rounding leaves -1e-12 where no pair is
    return Mismatch((pairs - same) / np.maximum(pairs, 1.0), pairs)


def find_steps(img: np.ndarray, hole: np.ndarray, params: RepeatParams) -> tuple[Step, Step] | None:
    """The repeat's two steps in the known pixels round ``hole`` (float32 RGB ``img``), the
    clearest first; None when nothing repeats both ways clearly."""
    return _steps(img, hole, params)[0]


def _steps(
    img: np.ndarray, hole: np.ndarray, params: RepeatParams
) -> tuple[tuple[Step, Step] | None, bool]:
    """``find_steps``'s answer, and whether a clear step of a repeat was seen at all (one
    way only, or two that are not one pattern's)."""
    known = ~hole
    if np.count_nonzero(known) < 64:
        return None, False
    blurred = cv2.GaussianBlur(img, (0, 0), params.blur) if params.blur > 0 else img
    classes = colour_classes(blurred, known, params)
    field = mismatch(classes, known, params.classes)
    h, w = hole.shape
    dys, dxs = np.arange(-(h - 1), h), np.arange(-(w - 1), w)
    grid = field.share[np.ix_(dys % field.share.shape[0], dxs % field.share.shape[1])]
    pairs = field.pairs[np.ix_(dys % field.pairs.shape[0], dxs % field.pairs.shape[1])]
    oy, ox = np.meshgrid(dys, dxs, indexing="ij")
    usable = (pairs >= params.least_overlap * np.count_nonzero(known)) & (
        np.maximum(np.abs(oy), np.abs(ox)) >= params.shortest
    )
    masked = np.where(usable, grid, 9.0).astype(np.float32)
    lowest_round = cv2.erode(masked, np.ones((5, 5), np.uint8))
    minima = usable & (masked <= lowest_round) & (grid <= params.most_mismatch)
    if np.count_nonzero(minima) > MOST_CANDIDATES:
        # a plain patch is one plateau of minima: only the lowest are looked at one by one
        ys, xs = np.nonzero(minima)
        lowest = np.argpartition(grid[ys, xs], MOST_CANDIDATES)[:MOST_CANDIDATES]
        minima = np.zeros_like(minima)
        minima[ys[lowest], xs[lowest]] = True

    def repeats(step: Step) -> bool:
        """Whether half a step away the pattern is clearly different (both roundings)."""
        halves = [
            (int(np.floor(step[0] / 2)), int(np.floor(step[1] / 2))),
            (int(np.ceil(step[0] / 2)), int(np.ceil(step[1] / 2))),
        ]
        half = min(field.at(s) for s in halves)
        return half >= params.half_least and field.at(step) <= params.half_ratio * half

    def shortened(step: Step) -> Step:
        """A step found as two to eight repeats (measured on fewer pairs, a long step can
        match best), brought back to one where that repeats too."""
        for parts in range(MOST_REPEATS, 1, -1):
            part = (round(step[0] / parts), round(step[1] / parts))
            if max(abs(part[0]), abs(part[1])) < params.shortest:
                continue
            if field.at(part) <= params.most_mismatch and repeats(part):
                return part
        return step

    ys, xs = np.nonzero(minima)
    steps = [(int(dys[y]), int(dxs[x])) for y, x in zip(ys, xs, strict=True)]
    # the clearest first (a crop holding two patterns has steps of both; the one that
    # repeats more of the pixels is the one round the hole), multiples of it shortened
    steps = sorted((s for s in steps if repeats(s)), key=field.at)
    if not steps:
        return None, False
    told_pairs = params.least_told * np.count_nonzero(known)

    def together(a: Step, b: Step) -> bool:
        """Whether the two steps are one pattern's: not along one line (shortening may
        bring them there), and their sum and their difference repeat it too (where there
        are pairs enough to tell). A crop holding two patterns (the wall's tiles above the
        cloth's check) offers a step of each, whose sum is neither's."""
        if _along_one_line(a, b):
            return False
        told = [
            field.at(s)
            for s in ((a[0] + b[0], a[1] + b[1]), (a[0] - b[0], a[1] - b[1]))
            if field.overlap(s) >= told_pairs and abs(s[0]) < h and abs(s[1]) < w
        ]
        return not told or max(told) <= params.most_mismatch_together

    first = shortened(steps[0])
    for other in steps[1:]:
        # not along the first step: more than 30° from it
        cross = abs(first[0] * other[1] - first[1] * other[0])
        if cross > 0.5 * np.hypot(*first) * np.hypot(*other):
            second = shortened(_less_first(other, first))
            if field.at(second) > params.most_mismatch or not repeats(second):
                second = shortened(other)
            if together(first, second):
                return (first, second), True
    return None, True


def _along_one_line(a: Step, b: Step) -> bool:
    """Whether two steps are less than 30° apart (the sine of the angle between them at
    most a half): two steps of one line are one repeat, not a pattern's two."""
    return bool(abs(a[0] * b[1] - a[1] * b[0]) <= 0.5 * np.hypot(*a) * np.hypot(*b))


def _less_first(step: Step, first: Step) -> Step:
    """``step`` less the whole number of ``first`` that brings it nearest the origin (one
    step of Gauss's lattice reduction): a second step found as (-96, 24) beside a first of
    (0, 24) is the pattern's (-96, 0), four repeats of (-24, 0)."""
    times = round((step[0] * first[0] + step[1] * first[1]) / (first[0] ** 2 + first[1] ** 2))
    return step[0] - times * first[0], step[1] - times * first[1]


def copies(
    steps: tuple[Step, Step], shape: tuple[int, int], reach: int
) -> tuple[np.ndarray, np.ndarray]:
    """The offsets a hole pixel may be copied from, i·first + j·second for |i|, |j| ≤ reach,
    shortest first, those longer than the patch left out (int32, K×2), and their (i, j)."""
    (ay, ax), (by, bx) = steps
    h, w = shape
    found = [
        ((i * ay + j * by, i * ax + j * bx), (i, j))
        for i in range(-reach, reach + 1)
        for j in range(-reach, reach + 1)
        if (i, j) != (0, 0) and abs(i * ay + j * by) < h and abs(i * ax + j * bx) < w
    ]
    found.sort(key=lambda item: (item[0][0] ** 2 + item[0][1] ** 2, item[0]))
    offsets = np.array([o for o, _ in found], np.int32).reshape(-1, 2)
    multiples = np.array([m for _, m in found], np.int32).reshape(-1, 2)
    return offsets, multiples


def refined(step: Step, image: np.ndarray, known: np.ndarray, within: int) -> Step:
    """The offset within ``within`` pixels of ``step`` (on either axis) at which the known
    pixels match best (mean squared difference over a sample of pairs): a step found at a
    lower scale and multiplied up may be a pixel or two off the pattern's own (a repeat of
    23 pixels is 11 or 12 at half size, 22 or 24 scaled back), and the copies, a dozen
    steps away, would drift by a dozen times that."""
    h, w = known.shape
    stride = max(1, int((h * w / 40_000) ** 0.5))
    ys, xs = np.nonzero(known[::stride, ::stride])
    ys, xs = ys * stride, xs * stride
    pixels = image.astype(np.float32)
    best, best_cost = step, np.inf
    for dy in range(step[0] - within, step[0] + within + 1):
        for dx in range(step[1] - within, step[1] + within + 1):
            sy, sx, both = landing(known, ys, xs, dy, dx)
            if np.count_nonzero(both) < 64 or (dy, dx) == (0, 0):
                continue
            diff = pixels[ys[both], xs[both]] - pixels[sy[both], sx[both]]
            cost = float((diff * diff).mean())
            if cost < best_cost:
                best, best_cost = (dy, dx), cost
    return best


def copies_reaching(hole: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each hole pixel (in np.nonzero order), how many of ``offsets`` land on a known
    pixel of the patch."""
    ys, xs = np.nonzero(hole)
    count = np.zeros(len(ys), np.int32)
    for dy, dx in offsets:
        count += landing(~hole, ys, xs, int(dy), int(dx))[2]
    return count


def _smaller(image: np.ndarray, hole: np.ndarray, scale: int) -> tuple[np.ndarray, np.ndarray]:
    """The patch and its hole at 1/``scale`` (area averaging; a pixel is in the hole if any
    pixel under it is)."""
    if scale == 1:
        return image.astype(np.float32), hole
    h, w = hole.shape
    small, small_hole = shrink(image, hole, (max(1, w // scale), max(1, h // scale)))
    return small.astype(np.float32), small_hole


@dataclass(frozen=True)
class RepeatSearch:
    """What the search round a hole found: the copies to take (``repeat_offsets``), and
    whether a clear step of a repeat was seen at all, followed or not (one way only: a
    plate hides the check's other way; or too far apart for the copies to reach the hole),
    where a wider look may find the pattern whole. ``steps`` are the repeat's two steps
    (full size) where they were found; ``whole`` says whether every hole pixel has a copy
    of its own on the patch (where one has none, it takes its neighbours' copy, whose copy
    may fall in the hole: a wider crop holds more copies of the same steps)."""

    offsets: tuple[np.ndarray, np.ndarray] | None
    seen: bool
    steps: tuple[Step, Step] | None = None
    whole: bool = False


def repeat_offsets(
    image: np.ndarray, hole: np.ndarray, params: RepeatParams | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """For each pixel of the patch, the offset (dy, dx: int32 H×W maps) its copy is taken
    from, meaningful in the hole; None when the patch round the hole does not repeat both
    ways, or too few copies reach the hole (``repeat_search``)."""
    return repeat_search(image, hole, params).offsets


def repeat_search(
    image: np.ndarray, hole: np.ndarray, params: RepeatParams | None = None
) -> RepeatSearch:
    """``repeat_offsets``'s copies, and whether a repeat was seen. The steps are found at
    full size (a patch of more than ``most_patch_pixels`` at a lower scale, and measured
    again at full size); a large hole is labelled at a lower scale, each label then the
    multiples of the full-size steps it stands for (the completion started from these
    copies refines them)."""
    params = params or RepeatParams()
    h, w = hole.shape
    if not hole.any() or hole.all():
        return RepeatSearch(None, False)
    search_scale = max(1, int(np.ceil((h * w / params.most_patch_pixels) ** 0.5)))
    searched, searched_hole = _smaller(image, hole, search_scale)
    if not searched_hole.any() or searched_hole.all():
        return RepeatSearch(None, False)
    found, seen = _steps(searched, searched_hole, params)
    if found is None:
        return RepeatSearch(None, seen)
    steps = found
    if search_scale > 1:
        a, b = (
            refined((dy * search_scale, dx * search_scale), image, ~hole, search_scale)
            for dy, dx in found
        )
        steps = (a, b)
    return replace(copies_of(image, hole, steps, params, search_scale), seen=seen)


def copies_of(
    image: np.ndarray,
    hole: np.ndarray,
    steps: tuple[Step, Step],
    params: RepeatParams | None = None,
    least_scale: int = 1,
) -> RepeatSearch:
    """The copies of the repeat of full-size ``steps`` round ``hole`` (found round the same
    hole in a smaller crop: ``repeat_search``), labelled (at 1/``least_scale`` or less) and
    checked (``_copies_fit``)."""
    params = params or RepeatParams()
    labelled = _offsets(image, hole, steps, params, least_scale)
    if labelled is None:
        return RepeatSearch(None, True, steps)
    offsets, whole = labelled
    if not _copies_fit(image, hole, offsets, params):
        return RepeatSearch(None, True, steps)
    return RepeatSearch(offsets, True, steps, whole)


def _copies_fit(
    image: np.ndarray,
    hole: np.ndarray,
    offsets: tuple[np.ndarray, np.ndarray],
    params: RepeatParams,
) -> bool:
    """Whether the copies give back the known pixels round the hole: each pixel of a ring
    round it, copied from its offset as the hole pixels beside it are, is about what it is.
    The colour classes can agree where the pixels do not: on the demo's wall above a desk's
    wood, the wood's grain repeats one way and the plain wall matches itself anywhere, so
    two steps were found and the hole was filled with blocks of wood in the wall and wall
    in the wood (54 levels off, Telea 9). There the ring's copies were 25 levels off, 8.6
    times its grain; a gingham's 2.4–10.3 levels, at most 2.9 times (its boxes beside a
    plate), a brick wall's 1.7, a drawn checkerboard's about none."""
    ring = grow_square(hole, params.ring_width) & ~hole
    ys, xs = np.nonzero(ring)
    if len(ys) == 0:
        return True
    dy, dx = offsets
    sy, sx, landed = landing(~hole, ys, xs, dy[ys, xs], dx[ys, xs])
    if not landed.any():
        return False
    pixels = image.astype(np.float32)
    copied = np.abs(pixels[ys[landed], xs[landed]] - pixels[sy[landed], sx[landed]]).mean()
    return bool(copied <= _tolerance(pixels, ys, xs, params))


def _in_pattern(
    image: np.ndarray, hole: np.ndarray, steps: tuple[Step, Step], params: RepeatParams
) -> np.ndarray:
    """The known pixels a copy may come from: those that repeat, each about the same as a
    known pixel one step away (either way) along each of the two steps, within the
    tolerance ``_copies_fit`` gives the ring, and round which the pattern differs half a
    step away (a plain area matches itself at any offset). A crop holds more than the
    pattern: the wall above a cloth, a plate on it, whose pixels are the check's colours
    often enough (a white wall, a white square) for the labelling to take them (the demo's
    gingham boxed above its plate, from its surroundings: blocks of wall in the cloth)."""
    known = ~hole
    pixels = image.astype(np.float32)
    h, w = hole.shape
    yy, xx = np.mgrid[0:h, 0:w]
    known_ys, known_xs = np.nonzero(known)
    tolerance = _tolerance(pixels, known_ys, known_xs, params)

    def apart(dy: int, dx: int) -> tuple[np.ndarray, np.ndarray]:
        """How far each pixel is from the one (dy, dx) away, and where that is known."""
        sy, sx, landed = landing(known, yy, xx, dy, dx)
        return np.abs(pixels - pixels[sy, sx]).mean(axis=2), landed & known

    repeating = known.copy()
    contrast = np.zeros((h, w), np.float32)
    count = np.zeros((h, w), np.float32)
    for dy, dx in steps:
        nearest = np.full((h, w), np.inf, np.float32)
        for sign in (1, -1):
            far, landed = apart(sign * dy, sign * dx)
            nearest = np.minimum(nearest, np.where(landed, far, np.inf))
            half, half_landed = apart(sign * dy // 2, sign * dx // 2)
            contrast += np.where(half_landed, half, 0)
            count += half_landed
        repeating &= nearest <= tolerance
    side = max(3, min(max(abs(dy), abs(dx)) for dy, dx in steps) // 4) | 1
    window = (side, side)
    mean_contrast = cv2.boxFilter(contrast, -1, window, normalize=False) / np.maximum(
        cv2.boxFilter(count, -1, window, normalize=False), 1
    )
    return repeating & (mean_contrast > tolerance)


def _tolerance(pixels: np.ndarray, ys: np.ndarray, xs: np.ndarray, params: RepeatParams) -> float:
    """How far a copy may be off the pixel it stands for, over the pixels (ys, xs):
    ``ring_factor`` times their grain (the mean difference between each and the pixel to
    its right) plus ``ring_floor`` levels."""
    beside = np.clip(xs + 1, 0, pixels.shape[1] - 1)
    grain = float(np.abs(pixels[ys, xs] - pixels[ys, beside]).mean()) if len(ys) else 0.0
    return params.ring_factor * grain + params.ring_floor


def _offsets(
    image: np.ndarray,
    hole: np.ndarray,
    steps: tuple[Step, Step],
    params: RepeatParams,
    least_scale: int,
) -> tuple[tuple[np.ndarray, np.ndarray], bool] | None:
    """The copies of the repeat of full-size ``steps``, labelled, and whether every hole
    pixel had a copy on a known pixel to choose; None where too few reach the hole."""
    h, w = hole.shape
    scale = max(least_scale, int(np.ceil((np.count_nonzero(hole) / params.most_pixels) ** 0.5)))
    small, small_hole = _smaller(image, hole, scale)
    small_steps = tuple((round(dy / scale), round(dx / scale)) for dy, dx in steps)
    first, second = small_steps
    if _along_one_line(first, second):
        return None  # at the labelling's scale the two steps run together
    offsets, multiples = copies((first, second), small_hole.shape, params.reach)
    reaching = copies_reaching(small_hole, offsets)
    if np.mean(reaching >= params.least_copies) < params.covered:
        return None

    def labelled_from(source: np.ndarray) -> np.ndarray:
        found: np.ndarray = compiled_loops().repeat_labels(
            np.ascontiguousarray(small, np.float32),
            np.ascontiguousarray(small_hole),
            np.ascontiguousarray(source),
            np.ascontiguousarray(offsets[:, 0]),
            np.ascontiguousarray(offsets[:, 1]),
            params.nearest,
            params.sweeps,
            params.typical,
        )
        return found

    # copies from the pattern alone where they reach every hole pixel; else from any known
    # pixel, as a pixel with no copy takes its neighbours' (which may land on the plate)
    in_pattern = _in_pattern(small, small_hole, (first, second), params)
    ring = grow_square(small_hole, params.ring_width) & ~small_hole
    # none of the pattern round the hole (lang01's desk: 18.6 levels off, the completion
    # 3.9); a pegboard's ring, where only its holes count as the pattern, holds 3.4 %
    if ring.any() and np.mean(in_pattern[ring]) < params.least_in_pattern:
        return None
    labels = labelled_from(in_pattern)
    if not (labels[small_hole] >= 0).all():
        labels = labelled_from(~small_hole)
    if (labels[small_hole] < 0).all():
        return None
    whole = bool((labels[small_hole] >= 0).all())
    # each full-size pixel takes the label of the nearest labelled pixel at the small scale
    labelled = labels >= 0
    _, nearest = cv2.distanceTransformWithLabels(
        (~labelled).astype(np.uint8), cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL
    )
    label_of = np.zeros(int(nearest.max()) + 1, np.int32)
    ly, lx = np.nonzero(labelled)
    label_of[nearest[ly, lx]] = labels[ly, lx]
    spread = label_of[nearest]
    yy, xx = np.mgrid[0:h, 0:w]
    full = spread[
        np.minimum(yy // scale, spread.shape[0] - 1), np.minimum(xx // scale, spread.shape[1] - 1)
    ]
    # at full size, each copy is its multiples of the full-size steps
    full_size = multiples @ np.array(steps, np.int32)
    return (full_size[full, 0].astype(np.int32), full_size[full, 1].astype(np.int32)), whole
