"""Multi-scale PatchMatch image completion: the hole filled with texture copied from around it.

Wexler, Shechtman and Irani's completion ("Space-time completion of video", 2007) with
Barnes et al.'s PatchMatch (2009) as the nearest-neighbour search: on a pyramid, coarse to
fine, every patch that touches the hole is matched to a patch lying wholly on known pixels
(outside the hole, and a margin round it if asked), and each hole pixel becomes the weighted vote of
the source patches laid over it — a patch counts more the better it matches and the nearer
it lies to the known pixels, so the fill grows inward from the hole's edge. The coarsest
level starts from a smooth fill (OpenCV's frequency-selective reconstruction, else Telea);
each finer level starts from the coarser field at twice the scale, voted with the finer
level's own pixels, so texture is copied at full resolution rather than interpolated.
Patches are compared by their colours and by Newson et al.'s texture features
(``texture_features``), so a smooth fill does not match the smooth parts of a textured
photo and stay smooth: gravel is filled with stones, not a grey smear.

A pure exemplar fill copies texture faithfully but misplaces it: measured against the true
background (``benchmarks/offline_inpaint.py``) it errs about as much as a smooth fill, and
its edge may not meet the known pixels exactly. Three things, each measured, bring the error
well below the smooth fills' while the texture stays:

- the coarsest level is where the hole is 48 pixels long (not less), so the smooth
  start's layout stays;
- the finest level's fill is made again from its sources' gradients, meeting the known
  pixels (Poisson's equation, ``gradient_fill``), so it has no step at the hole's edge, nor
  where the patches of one source meet another's;
- within a few pixels of the edge the smooth fill, which continues the known pixels best
  right there, takes over (its weight falls as exp(-distance / 2.5 px)).

Two guards keep the object being removed out of the fill: each finer level starts from the
coarser fill scaled up (never from the hole's own pixels), and no vote weight can underflow
to zero (a pixel whose every weight was zero kept its old value: a thin stroke on a smooth
sky survived as a ghost). The smooth fill is FSR run on the image grown to whole blocks
(``imaging/fsr.py``), which otherwise may leave a line of unrelated colour on the edge.

A pattern that repeats both ways round the hole (a check, tiles) is not completed this way:
the completion lays pieces of it offset against one another. It is continued from its own
copies instead (``repeats.py``), refined by a few iterations of the same search and vote at
full size, and meets the edge as above.

Each level's patches, and the search, vote and distances over them (on two threads, in
bands of rows, the same pixels on every run), are ``patch_level``'s.
``cancel`` is checked between iterations (and levels); ``progress`` (if given) is told of
each iteration done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import cv2
import numpy as np

from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.carried_bands import BandParams, carry_band, laid_over
from sabre_desk.imaging.carried_edges import EdgeParams, carry_edges
from sabre_desk.imaging.fsr import fsr_inpaint
from sabre_desk.imaging.gradient_fill import from_gradients, membrane, source_gradients
from sabre_desk.imaging.lines_first import lines_first
from sabre_desk.imaging.loops import compiled_loops
from sabre_desk.imaging.patch import PixelRect, expand
from sabre_desk.imaging.patch_field import NeighbourField, grow_square, landing, resize, shrink
from sabre_desk.imaging.patch_level import BANDS, PatchLevel, source_centres
from sabre_desk.imaging.repeats import copies_of, repeat_search
from sabre_desk.imaging.texture_features import WEIGHT, WINDOW, with_texture_features


class CompletionCancelledError(RepairError):
    """The caller's cancel event was set while the completion was running."""


@dataclass(frozen=True)
class CompletionParams:
    #: patch side is 2·radius + 1
    patch_radius: int = 3
    #: known pixels this close to the hole are not copied (0: any patch wholly outside it)
    source_margin: int = 0
    #: the coarsest level's hole is at most this long on its longer side (24 kept less of
    #: the smooth start's layout: in the box 0.74× Telea's error, against 0.69×; 96 kept
    #: its smoothness, texture distance 0.41× against 0.33×)
    coarsest_hole_px: int = 48
    #: the texture features' weight against the colours, and their window (pixels)
    texture_weight: float = WEIGHT
    texture_window: int = WINDOW
    #: iterations at the coarsest level that match patches by colour alone, before the
    #: hole's texture features are voted from the sources they found
    colour_iterations: int = 2
    #: EM iterations (PatchMatch + vote) at the coarsest and at the finest level; levels in
    #: between go linearly from one to the other
    coarse_iterations: int = 8
    fine_iterations: int = 3
    #: PatchMatch passes per EM iteration
    passes: int = 2
    #: a hole with more pixels is filled at a lower resolution and scaled into place, which
    #: bounds the time of any box (about 2 s of CPU per 100,000 pixels, on two threads)
    max_fill_pixels: int = 350_000
    #: confidence of a hole pixel falls as gamma ** -(distance to the known pixels)
    gamma: float = 2.0
    #: width (pixels) of the ring of known pixels whose step the membrane spreads over the
    #: hole where the copies of a pattern that repeats meet it (``_meet_the_edge``; a
    #: completion is made again from its sources' gradients instead); 0: none
    seam_ring: int = 3
    #: the smooth fill's weight along the hole's edge falls as exp(-distance / edge_px);
    #: 2.5 rather than 5 keeps more texture at the same error (measured on scenes of
    #: benchmarks/offline_inpaint.py other than the reported ones)
    edge_px: float = 2.5
    #: past this many pixels in the hole, a smooth fill (for the edge, and the coarsest
    #: level's start) is Telea's rather than FSR's
    edge_fill_pixels: int = 12_000
    seed: int = 1
    #: the edges that cross the hole are drawn across it first (``carried_edges``)
    carry_edges: bool = True
    #: a band of structure that crosses the hole (a tower's lattice) is copied across it
    #: and laid over the fill (``carried_bands``)
    carry_bands: bool = True
    #: a pattern that repeats both ways round the hole is continued from its copies
    #: (``repeats``), with this many iterations at full size to refine them
    follow_repeats: bool = True
    repeat_iterations: int = 4
    #: the coarsest level starts from the lines that run into the hole grown in first
    #: (``lines_first``), the smooth fill only round them: a fill with another layout,
    #: for the fills after the first to take turns with
    lines_first: bool = False


Progress = Callable[[int], None]


def _check(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise CompletionCancelledError("repair cancelled")


def _halve(img: np.ndarray, hole: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h, w = hole.shape
    return shrink(img, hole, (max(1, (w + 1) // 2), max(1, (h + 1) // 2)))


#: the width (pixels, at the coarsest level) of the ring whose median texture features
#: the hole's are raised to
FEATURE_RING = 4


#: a wider crop round the image to look for a repeat in: its pixels (RGB uint8) and where
#: the image's top left corner lies in them (x, y)
Surroundings = tuple[np.ndarray, tuple[int, int]]


def patchmatch_fill(
    image: np.ndarray,
    hole: np.ndarray,
    params: CompletionParams | None = None,
    cancel: threading.Event | None = None,
    progress: Progress | None = None,
    surround: Surroundings | None = None,
) -> np.ndarray:
    """``image`` (RGB uint8) with the pixels where ``hole`` is true filled by exemplar
    completion; every other pixel unchanged. A pattern that repeats round the hole is
    looked for in ``surround`` too, where the image shows one it cannot follow
    (``_repeat_followed``). Raises CompletionCancelledError on cancel."""
    params = params or CompletionParams()
    hole = hole.astype(bool)
    if not hole.any():
        return image.copy()
    fill = int(np.count_nonzero(hole))
    if fill <= params.max_fill_pixels:
        filled = _fill(image, hole, params, cancel, progress, surround)
    else:
        # a large hole is filled at a lower resolution and scaled into place
        h, w = hole.shape
        scale = (params.max_fill_pixels / fill) ** 0.5
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        small_hole = grow_square(
            cv2.resize(hole.astype(np.uint8), size, interpolation=cv2.INTER_AREA) > 0, 1
        )
        small_filled = _fill(small, small_hole, params, cancel, progress)
        filled = cv2.resize(small_filled, (w, h), interpolation=cv2.INTER_CUBIC)
    out = image.copy()
    out[hole] = filled[hole]
    return out


def _fill(
    image: np.ndarray,
    hole: np.ndarray,
    params: CompletionParams,
    cancel: threading.Event | None,
    progress: Progress | None,
    surround: Surroundings | None = None,
) -> np.ndarray:
    """The hole filled (``_fill_round_edges``), and a band of structure that crosses it (a
    tower's lattice) copied across it and laid over the fill (``band_carried``). Laid
    over, not filled round: with the band known, the sky either side of a rocket was filled
    in blocks lighter or darker than the sky round them (the smooth start spread the
    rocket's white, the fill's gradients met its sides)."""
    filled = _fill_round_edges(image, hole, params, cancel, progress, surround)
    if not params.carry_bands:
        return filled
    _check(cancel)
    copied, band = band_carried(image, hole, surround)
    if not band.any():
        return filled
    return laid_over(filled, copied, hole, band)


def _fill_round_edges(
    image: np.ndarray,
    hole: np.ndarray,
    params: CompletionParams,
    cancel: threading.Event | None,
    progress: Progress | None,
    surround: Surroundings | None = None,
) -> np.ndarray:
    """The completion, its search on threads of a pool, with the smooth fill for the
    hole's edge made beside it. The edges that cross the hole are drawn first, and filled
    round (``edges_carried``: followed into the surroundings where the patch gives none).
    A pattern that repeats round the hole (in the image, else in its surroundings) is
    followed from its copies instead (``_follow_repeat``)."""
    with ThreadPoolExecutor(1 + BANDS) as pool:
        if params.follow_repeats:
            # no hand-over to a smooth fill along the edge: the copies continue the known
            # pixels there already (the membrane takes the last step away), and the smooth
            # fill only blurred a band along it (the demo's mug: 0.158 → 0.149× Telea's)
            copied = _repeat_followed(image, hole, params, pool, cancel, progress, surround)
            if copied is not None:
                return _with_known(image, hole, copied)
        # FSR or Telea along the edge by the size of the box's hole, whatever edges are
        # carried across it: a hole just brought under the line by an edge drawn through it
        # took FSR's seconds (a 200×200 box of the demo: 1.7 s → 3.3 s)
        box_hole_small = np.count_nonzero(hole) <= params.edge_fill_pixels
        edge_limit = params.edge_fill_pixels if box_hole_small else 0
        if params.carry_edges:
            image, drawn = edges_carried(image, hole, surround)
            hole = hole & ~drawn
            if not hole.any():
                return image
        edge = pool.submit(_smooth_fill, image.astype(np.float32), hole, edge_limit)
        featured = with_texture_features(image, hole, params.texture_weight, params.texture_window)
        levels = _pyramid(featured, hole, params.coarsest_hole_px, params)
        out = _complete(image, hole, levels, params, pool, cancel, progress)
        smooth = edge.result()
    return _soften_the_edge(image, hole, out, smooth, params)


def edges_carried(
    image: np.ndarray, hole: np.ndarray, surround: Surroundings | None
) -> tuple[np.ndarray, np.ndarray]:
    """``carry_edges`` on the patch; where it carries none, on as much of the surroundings
    as an edge is followed into (``EdgeParams.reach_px`` round the hole), where that is
    more than the patch: a margin narrower than an edge's run cuts it off before its bend
    is measured. Where the margin is wide enough already (a large box's), nothing more is
    looked at: the whole surround of a 500-pixel box took 0.6 s and 180 MB more."""
    carried, drawn = carry_edges(image, hole)
    if drawn.any():
        return carried, drawn
    wider = _in_surroundings(image, hole, surround, EdgeParams().reach_px, carry_edges)
    return (carried, drawn) if wider is None else wider


def band_carried(
    image: np.ndarray, hole: np.ndarray, surround: Surroundings | None
) -> tuple[np.ndarray, np.ndarray]:
    """``carry_band`` on as much of the surroundings as a band is followed into
    (``BandParams.reach_px`` round the hole), else on the patch: a band's period is
    measured past the hole, further than a small box's margin reaches."""
    wider = _in_surroundings(image, hole, surround, BandParams().reach_px, carry_band)
    return carry_band(image, hole) if wider is None else wider


def _in_surroundings(
    image: np.ndarray,
    hole: np.ndarray,
    surround: Surroundings | None,
    reach: int,
    carry: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray] | None:
    """``carry`` (pixels and hole → pixels and what it drew) on the surroundings ``reach``
    pixels round the hole, cropped back to the patch; None without surroundings, or when
    the patch already holds all of that."""
    wide = _surround_of(image, hole, surround)
    if wide is None:
        return None
    pixels, wide_hole, (x, y) = wide
    h, w = hole.shape
    patch = PixelRect(x, y, x + w, y + h)
    ys, xs = np.nonzero(hole)
    hole_rect = PixelRect(
        x + int(xs.min()), y + int(ys.min()), x + int(xs.max()) + 1, y + 1 + int(ys.max())
    )
    looked = expand(hole_rect, pixels.shape[1], pixels.shape[0], 0.0, reach)
    looked = looked.around(patch)  # and the patch whole, to crop it back
    if looked == patch:
        return None
    carried, drawn = carry(np.ascontiguousarray(pixels[looked.slices]), wide_hole[looked.slices])
    back = patch.relative_to(looked).slices
    return np.ascontiguousarray(carried[back]), np.ascontiguousarray(drawn[back])


def _soften_the_edge(
    image: np.ndarray,
    hole: np.ndarray,
    out: np.ndarray,
    smooth: np.ndarray,
    params: CompletionParams,
) -> np.ndarray:
    """The fill, handing over to the smooth fill within a few pixels of the hole's edge
    (which continues the known pixels best right there), as uint8 with the known pixels."""
    distance = cv2.distanceTransform(hole.astype(np.uint8) * 255, cv2.DIST_L2, 3)
    weight = np.exp(-distance / params.edge_px)[..., None]
    return _with_known(image, hole, weight * smooth + (1 - weight) * out)


def _with_known(image: np.ndarray, hole: np.ndarray, out: np.ndarray) -> np.ndarray:
    """The float fill in the hole and the image's own pixels elsewhere, as uint8."""
    out = np.where(hole[..., None], out, image.astype(np.float32))
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def _repeat_followed(
    image: np.ndarray,
    hole: np.ndarray,
    params: CompletionParams,
    pool: ThreadPoolExecutor,
    cancel: threading.Event | None,
    progress: Progress | None,
    surround: Surroundings | None,
) -> np.ndarray | None:
    """The hole filled from the copies of a pattern that repeats round it (float32, the
    image's size), or None when none does. Looked for in the image first, then, where a
    repeat shows there but cannot be followed, in the wider ``surround``: a check whose
    margin a plate half fills shows its step one way only, one whose repeat is about the
    hole's width has too few copies in reach, and the completion laid offset pieces of it
    (a box of 61 pixels on the demo's gingham: 19.5 levels of error, 2.8 from the
    surroundings). Where the steps were found but some hole pixels have no copy of their
    own on the patch (its margin narrower than a repeat), the same steps are followed in
    the surround, whose copies reach them: filled from their neighbours' copies, which fall
    in the hole, and smoothed over, they were rounded blobs of the wrong colour (the demo's
    gingham above its plate, 5.2 levels off the cloth). Where nothing repeats (grass,
    gravel, a sky) it is not looked for again: the wider search took a quarter of a
    second."""
    search = repeat_search(image, hole)
    wide = _surround_of(image, hole, surround) if search.seen and not search.whole else None
    if wide is not None:
        pixels, wide_hole, (x, y) = wide
        _check(cancel)
        # the patch's own steps where its copies were taken, else a search of its own
        steps = search.steps if search.offsets is not None else None
        found = (
            copies_of(pixels, wide_hole, steps)
            if steps is not None
            else repeat_search(pixels, wide_hole)
        )
        offsets = found.offsets
        if offsets is not None:
            _check(cancel)
            copied = _follow_repeat(pixels, wide_hole, offsets, params, pool, cancel, progress)
            return np.ascontiguousarray(copied[y : y + hole.shape[0], x : x + hole.shape[1]])
    if search.offsets is not None:
        _check(cancel)
        return _follow_repeat(image, hole, search.offsets, params, pool, cancel, progress)
    return None


def _surround_of(
    image: np.ndarray, hole: np.ndarray, surround: Surroundings | None
) -> tuple[np.ndarray, np.ndarray, tuple[int, int]] | None:
    """The surround's pixels, the hole placed in them, and where the image lies in them;
    None without one, or when it is not this image's (a patch sent scaled down)."""
    if surround is None:
        return None
    pixels, (x, y) = surround
    h, w = hole.shape
    if not np.array_equal(pixels[y : y + h, x : x + w], image):
        return None
    wide_hole = np.zeros(pixels.shape[:2], bool)
    wide_hole[y : y + h, x : x + w] = hole
    return pixels, wide_hole, (x, y)


def _follow_repeat(
    image: np.ndarray,
    hole: np.ndarray,
    offsets: tuple[np.ndarray, np.ndarray],
    params: CompletionParams,
    pool: ThreadPoolExecutor,
    cancel: threading.Event | None,
    progress: Progress | None,
) -> np.ndarray:
    """The hole filled from the copies of the pattern round it (``repeats``): each pixel
    copied from its offset, then a few iterations of search and vote at full size started
    from those copies (which mends a copy a pixel off where the repeat is not a whole number
    of pixels, and keeps the grain), and the step at the edge taken away. Float32 pixels."""
    k = compiled_loops()

    k.seed_random(params.seed)
    h, w = hole.shape
    dy, dx = offsets
    yy, xx = np.mgrid[0:h, 0:w]
    sy, sx, on_known = landing(~hole, yy, xx, dy, dx)
    copied = hole & on_known
    start = image.astype(np.float32)
    start[copied] = image[sy[copied], sx[copied]]
    uncopied = hole & ~copied
    if uncopied.any():  # a pixel whose copy falls in the hole: the smooth fill
        mask = uncopied.astype(np.uint8) * 255
        smooth = cv2.inpaint(
            np.clip(start + 0.5, 0, 255).astype(np.uint8), mask, 5, cv2.INPAINT_TELEA
        )
        start[uncopied] = smooth[uncopied]
    level = PatchLevel.make(image.astype(np.float32), hole, params, pool)
    if level is None:
        return start
    level.img = np.ascontiguousarray(start, np.float32)
    field = level.carry(None)
    # each patch starts matched with the patch its centre's copy comes from, where that lies
    # wholly on known pixels (else the random source it was given)
    ty, tx = level.targets
    cy, cx, fits = landing(level.src, ty, tx, dy[ty, tx], dx[ty, tx])
    field.ys[ty[fits], tx[fits]] = cy[fits]
    field.xs[ty[fits], tx[fits]] = cx[fits]
    level.measure(field)
    for _ in range(params.repeat_iterations):
        _check(cancel)
        level.search(field, params.passes)
        level.update(field)
        if progress is not None:
            progress(1)
    if params.seam_ring > 0:
        return _meet_the_edge(level, field, params)
    return level.img


def _pyramid(
    image: np.ndarray, hole: np.ndarray, coarsest_hole_px: int, params: CompletionParams
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(pixels, hole) from the full size down to where the hole is ``coarsest_hole_px``
    long, or to the last level that still has known patches to copy."""
    ys, xs = np.nonzero(hole)
    longest = max(int(ys.max() - ys.min()) + 1, int(xs.max() - xs.min()) + 1)
    pyramid = [(image.astype(np.float32), hole)]
    while longest / 2 ** (len(pyramid) - 1) > coarsest_hole_px:
        small, small_hole = _halve(*pyramid[-1])
        if small_hole.all() or source_centres(small_hole, params) is None:
            break
        pyramid.append((small, small_hole))
    return pyramid


def _smooth_fill(img: np.ndarray, hole: np.ndarray, most_pixels: int) -> np.ndarray:
    """A smooth fill of ``hole`` (float32 colours): OpenCV's frequency-selective
    reconstruction (contrib build), which keeps the broad layout best, for a hole of at most
    ``most_pixels`` (its time grows with the hole: a hole of 86,000 pixels took it 29 s, one
    of 390,000 minutes, and it cannot be cancelled); else, or without the contrib build,
    Telea's (milliseconds at any size). The coarsest level's hole is normally far below the
    limit; it reaches it when a box leaves too thin a ring of photo for the pyramid to go
    down (a box over nearly the whole image), or none at all."""
    small = np.clip(img + 0.5, 0, 255).astype(np.uint8)
    if np.count_nonzero(hole) > most_pixels or not hasattr(cv2, "xphoto"):
        mask = hole.astype(np.uint8) * 255
        return cv2.inpaint(small, mask, 5, cv2.INPAINT_TELEA).astype(np.float32)
    return fsr_inpaint(small, hole).astype(np.float32)


def _complete(
    image: np.ndarray,
    hole: np.ndarray,
    pyramid: list[tuple[np.ndarray, np.ndarray]],
    params: CompletionParams,
    pool: ThreadPoolExecutor,
    cancel: threading.Event | None,
    progress: Progress | None,
) -> np.ndarray:
    """The completion on ``pyramid`` (colours and texture features), coarse to fine:
    float32 colours, the hole filled."""
    k = compiled_loops()

    k.seed_random(params.seed)
    field: NeighbourField | None = None
    n = len(pyramid)
    result = image.astype(np.float32)
    for depth in range(n - 1, -1, -1):
        _check(cancel)
        img, level_hole = pyramid[depth]
        level = PatchLevel.make(img, level_hole, params, pool)
        if level is None:
            continue  # only the full size can be: nothing known to copy from at all
        coarsest = field is None
        if coarsest:
            start = img.copy()
            start[..., :3] = _smooth_fill(img[..., :3], level_hole, params.edge_fill_pixels)
            if params.lines_first:
                # a hole far larger than the coarsest level's is most of its image (the
                # pyramid stopped early): it keeps the smooth start
                most = 4 * params.coarsest_hole_px**2
                grown = lines_first(img, level_hole, start[..., :3], params, most)
                if grown is not None:
                    start[..., :3] = grown
        else:
            # the coarser fill at this scale, so the hole's own pixels (the object being
            # removed) never enter a patch distance
            start = resize(result, level_hole.shape[::-1], cv2.INTER_LINEAR)
        level.img = np.ascontiguousarray(np.where(level_hole[..., None], start, img), np.float32)
        field = level.carry(field)
        if coarsest:
            _features_from_sources(level, field, params)
        else:
            # the first estimate here: the carried field voted with this level's own pixels
            level.update(field)
        share = depth / max(1, n - 1)  # 1 at the coarsest level, 0 at the finest
        iterations = round(
            params.fine_iterations + share * (params.coarse_iterations - params.fine_iterations)
        )
        for _ in range(iterations):
            _check(cancel)
            level.search(field, params.passes)
            level.update(field)
            if progress is not None:
                progress(1)
        result = level.img
        if depth == 0:
            result = _from_gradients(level, field)
    if field is None:  # nothing known to copy from (the hole is most of the image)
        return _smooth_fill(result[..., :3], hole, params.edge_fill_pixels)
    return np.ascontiguousarray(result[..., :3])


def _features_from_sources(
    level: PatchLevel, field: NeighbourField, params: CompletionParams
) -> None:
    """The coarsest level's first matches made on colour alone, and the hole's texture
    features (and colours) voted from the sources they found, each feature no lower than
    the median of the ring round the hole. Guessed from the hole's edge instead (Telea's,
    a membrane), the features of a launch tower beside the box ran into the sky it stood
    in, and a piece of its lattice was copied there; matched on colour, the smooth start
    found the smoothest sources (a stone's face), and a box on gravel kept less than two
    thirds of the gravel's edges. A hole is as textured as most of what is round it: on a
    sky the ring's median is the sky's."""
    colour = level.colour_only()
    colour.measure(field)
    for _ in range(params.colour_iterations):
        colour.search(field, params.passes)
        colour.update(field)
    level.searches = colour.searches
    level.img = level.vote(field)
    ring = grow_square(level.hole, FEATURE_RING) & ~level.hole
    features = level.img[..., 3:]
    floor = np.median(features[ring], axis=0)
    features[level.hole] = np.maximum(features[level.hole], floor)
    level.measure(field)


def _meet_the_edge(
    level: PatchLevel, field: NeighbourField, params: CompletionParams
) -> np.ndarray:
    """The fill plus the membrane that takes away its step at the hole's edge: the patches
    are voted once more over a ring of known pixels round the hole too, and the difference
    between the photo and that vote on the ring is spread over the hole as the smoothest
    surface that meets it (Laplace's equation), and added. Telea's inpainting of the same
    difference, used before, spread it less evenly: the membrane lowered the error in the
    box and on the seam (by about 0.015× Telea's on the tuning scenes of
    benchmarks/offline_inpaint.py) and takes less time. The copies of a pattern that
    repeats meet it this way (their pieces meet where the pattern does, with no step
    between them); a completion is made from its sources' gradients instead
    (``_from_gradients``)."""
    ring = grow_square(level.hole, params.seam_ring) & ~level.hole
    voted = level.vote(field, level.hole | ring)
    step = np.where(ring[..., None], level.img - voted, 0).astype(np.float32)
    # solved everywhere but on the ring, so only the ring's steps shape it (not the zeros
    # of the known pixels past it, which the coarse levels would otherwise average in)
    spread = membrane(step, ~ring)
    return np.where(level.hole[..., None], level.img + spread, level.img)


def _from_gradients(level: PatchLevel, field: NeighbourField) -> np.ndarray:
    """The fill made again from its sources' gradients (``gradient_fill``): each hole pixel
    takes the gradients at the pixel its own patch was copied from, and the pixels with
    those gradients that meet the photo round the hole replace the voted ones. Where the
    patches of one part of the hole came from one place and the next part's from another,
    the voted colours met in a step (a straight crack across a cup's shading, a pale band
    in a sky, a grey smudge beside a spoon); gradients copied from either side leave none,
    nor at the hole's edge."""
    colours = np.ascontiguousarray(level.img[..., :3])
    gx, gy = source_gradients(colours, grow_square(level.hole, 1), field.ys, field.xs)
    return from_gradients(colours, level.hole, gx, gy)
