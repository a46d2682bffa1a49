"""The fill made again from its sources' gradients: no seam where one source meets another.

An exemplar fill copies colours. Where the patches of one part of the hole come from one
place and those of the next from another, each part is true to its source, and where they
meet the two sources' levels differ: on a smooth surface (a sky, a cup's shading) the fill
showed a straight step, a crack or a pale band the photo never had, and beside a spoon a
grey smudge. Copying gradients instead, as Darabi et al.'s image melding (2012) and the
gradient-domain fusion of Agarwala et al.'s photomontage (2004) do, leaves no such step:
each hole pixel takes the gradient at the pixel its own patch was copied from, and the
pixels are found whose gradients are those, as nearly as can be, meeting the photo round the
hole exactly (Poisson's equation, ∇²u = div g, held to the known pixels).

It is solved for the change to the voted pixels, in two parts: a particular solution on the
hole's bounding rectangle by the discrete sine transform (exact for the five-point
Laplacian, zero past the rectangle), and the membrane (``membrane``: Laplace's equation,
solved coarse to fine) that takes it to zero on the known pixels. 0.02 s for a 100² hole,
0.09 s for 300², 0.3 s for 600².
"""

from __future__ import annotations

import cv2
import numpy as np

from sabre_desk.imaging.loops import compiled_loops

#: a step between two pixels copied from unrelated places that is steeper than this (levels,
#: on any channel) is where two materials meet, and is kept (``source_gradients``)
MATERIAL_STEP = 40.0


def source_gradients(
    img: np.ndarray,
    where: np.ndarray,
    source_ys: np.ndarray,
    source_xs: np.ndarray,
    material_step: float = MATERIAL_STEP,
) -> tuple[np.ndarray, np.ndarray]:
    """The forward differences of ``img`` (float32 H×W×3) along x and y, each pixel where
    ``where`` is true (and a source is given, ≥ 0) taking the differences at its source
    pixel (``source_ys``, ``source_xs``: int32 H×W), except across a seam (the next pixel
    copied from somewhere else) where ``img`` steps by more than ``material_step``: there
    the fill put two materials side by side (a mug's bricks, the cloth beside it), and the
    difference copied from either side, which has no such step, carried the one's colour
    into the other (the demo's check beside its mug glowed orange). A gentler step at a
    seam, two sources' shading a few levels apart, is taken away."""
    gx, gy = _forward_differences(img)
    steps = (gx.copy(), gy.copy())
    ys, xs = np.nonzero(where)
    sy, sx = source_ys[ys, xs], source_xs[ys, xs]
    given = sy >= 0
    ys, xs, sy, sx = ys[given], xs[given], sy[given], sx[given]
    gx[ys, xs] = gx[sy, sx]
    gy[ys, xs] = gy[sy, sx]
    h, w = where.shape
    for g, step, (dy, dx) in ((gx, steps[0], (0, 1)), (gy, steps[1], (1, 0))):
        ny, nx = np.minimum(ys + dy, h - 1), np.minimum(xs + dx, w - 1)
        seam = (source_ys[ny, nx] != sy + dy) | (source_xs[ny, nx] != sx + dx)
        steep = seam & (np.abs(step[ys, xs]).max(axis=1) > material_step)
        g[ys[steep], xs[steep]] = step[ys[steep], xs[steep]]
    return gx, gy


def from_gradients(img: np.ndarray, hole: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """``img`` (float32 H×W×3) with the hole's pixels replaced by those whose forward
    differences best match (``gx``, ``gy``) there, meeting the pixels round the hole; along
    the image's own edge nothing flows out (the problem is mirrored across it). Solved for
    the change to ``img``'s pixels in the hole, which is small where their gradients are
    already right: the membrane's few sweeps leave its error a share of that change, not
    of the pixels' levels."""
    h, w = hole.shape
    ys, xs = np.nonzero(hole)
    # the hole's bounding rectangle grown by a pixel: every pixel the equation touches
    y0, y1 = max(0, int(ys.min()) - 1), min(h, int(ys.max()) + 2)
    x0, x1 = max(0, int(xs.min()) - 1), min(w, int(xs.max()) + 2)
    u = img[y0:y1, x0:x1].astype(np.float32)
    unknown = hole[y0:y1, x0:x1]
    # at the image's edge the divergence has no difference across it: no flow out
    target = _divergence(gx, gy)[y0:y1, x0:x1]
    extended = [
        _edge_of(int(along.min()) == 0, int(along.max()) == n - 1)
        for along, n in ((ys, h), (xs, w))
    ]
    for axis, how in enumerate(extended):
        u, target, unknown = (_extend(a, axis, how) for a in (u, target, unknown))
    # the change c to the pixels: ∇²c = div g - ∇²u in the hole, c = 0 round it
    change = np.where(unknown[..., None], target - _laplacian(u), 0).astype(np.float32)
    particular = _sine_poisson(change)
    rest = membrane(np.where(unknown[..., None], 0, -particular), unknown)
    u = np.where(unknown[..., None], u + particular + rest, u)
    inner = tuple(slice(*_own_part(how, n)) for how, n in zip(extended, u.shape[:2], strict=True))
    out = img.copy()
    out[y0:y1, x0:x1] = u[inner]
    return out


#: how the problem goes on past a side of the image the hole meets
MIRRORED_BEFORE, MIRRORED_AFTER = "mirrored before", "mirrored after"
HELD, INSIDE = "held", "inside"


def _edge_of(at_start: bool, at_end: bool) -> str:
    """How the rectangle is extended along an axis on which the hole meets the image's
    first or last row (column): mirrored across that edge (so nothing flows across it),
    or, where it meets both, a row of the image's own pixels held past each (a hole as tall
    as the image: mirrored both ways, it would still reach the array's edge); not at all
    where it meets neither."""
    if at_start and at_end:
        return HELD
    if at_start:
        return MIRRORED_BEFORE
    if at_end:
        return MIRRORED_AFTER
    return INSIDE


def _extend(a: np.ndarray, axis: int, how: str) -> np.ndarray:
    """``a`` extended along ``axis`` as ``how`` says (a mask: the pixels held past the
    image's edge are not in the hole; pixels: the edge's own, repeated)."""
    if how == INSIDE:
        return a
    if how == HELD:
        width = [(0, 0)] * a.ndim
        width[axis] = (1, 1)
        if a.dtype == bool:
            return np.pad(a, width, constant_values=False)
        return np.pad(a, width, mode="edge")
    flipped = np.flip(a, axis)
    parts = (flipped, a) if how == MIRRORED_BEFORE else (a, flipped)
    return np.concatenate(parts, axis=axis)


def _own_part(how: str, n: int) -> tuple[int, int]:
    """Where the rectangle's own pixels lie along an axis of the extended array (n long)."""
    if how == HELD:
        return 1, n - 1
    if how == MIRRORED_BEFORE:
        return n // 2, n
    if how == MIRRORED_AFTER:
        return 0, n // 2
    return 0, n


def _forward_differences(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    gx = np.zeros_like(img)
    gy = np.zeros_like(img)
    gx[:, :-1] = img[:, 1:] - img[:, :-1]
    gy[:-1] = img[1:] - img[:-1]
    return gx, gy


def _divergence(gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """Backward differences of forward ones: the five-point Laplacian's right-hand side."""
    div: np.ndarray = gx + gy
    div[:, 1:] -= gx[:, :-1]
    div[1:] -= gy[:-1]
    return div


def _laplacian(u: np.ndarray) -> np.ndarray:
    """The five-point Laplacian of ``u`` (edges replicated: only the inside is read)."""
    p = np.pad(u, ((1, 1), (1, 1), (0, 0)), mode="edge")
    lap: np.ndarray = p[:-2, 1:-1] + p[2:, 1:-1] + p[1:-1, :-2] + p[1:-1, 2:] - 4 * u
    return lap


def _sine_poisson(f: np.ndarray) -> np.ndarray:
    """The P (H×W×C) with ∇²P = ``f`` by the five-point Laplacian, P = 0 just past the
    rectangle: diagonal in the discrete sine basis."""
    h, w = f.shape[:2]
    coefficients = _dst(_dst(f.astype(np.float64), 0), 1)
    ky = 2 * np.cos(np.pi * np.arange(1, h + 1) / (h + 1)) - 2
    kx = 2 * np.cos(np.pi * np.arange(1, w + 1) / (w + 1)) - 2
    coefficients /= (ky[:, None] + kx[None, :])[..., None]
    # the transform is its own inverse up to 2 / (N + 1) along each axis
    scale = 4.0 / ((h + 1) * (w + 1))
    result: np.ndarray = (_dst(_dst(coefficients, 0), 1) * scale).astype(np.float32)
    return result


def _dst(a: np.ndarray, axis: int) -> np.ndarray:
    """The type-I discrete sine transform along ``axis``, through the FFT of the odd
    extension: y_k = Σ_n a_n sin(π k n / (N + 1)), k and n from 1 to N."""
    a = np.moveaxis(a, axis, 0)
    n = a.shape[0]
    zero = np.zeros((1, *a.shape[1:]))
    odd = np.concatenate([zero, a, zero, -a[::-1]], axis=0)
    y = -np.fft.fft(odd, axis=0)[1 : n + 1].imag / 2
    return np.moveaxis(y, 0, axis)


def membrane(values: np.ndarray, unknown: np.ndarray) -> np.ndarray:
    """Laplace's equation solved where ``unknown`` is true, ``values`` held elsewhere:
    coarse to fine, each level started from the coarser solution and smoothed by a few
    over-relaxed Gauss-Seidel sweeps (the coarse levels carry the slow, broad part that
    sweeps alone would take thousands of passes to spread). A few milliseconds at 300²."""
    k = compiled_loops()

    unknown = np.ascontiguousarray(unknown)  # the compiled sweeps take contiguous arrays
    u = np.ascontiguousarray(np.where(unknown[..., None], 0, values), np.float32)
    h, w = unknown.shape
    if np.count_nonzero(unknown) <= 64 or min(h, w) < 8:
        k.relax(u, unknown, 200, 1.5)
        return u
    held = (~unknown).astype(np.float32)
    size = ((w + 1) // 2, (h + 1) // 2)
    num = cv2.resize(u * held[..., None], size, interpolation=cv2.INTER_AREA)
    den = cv2.resize(held, size, interpolation=cv2.INTER_AREA)
    coarse_unknown = den < 1e-6
    coarse = np.where(coarse_unknown[..., None], 0, num / np.maximum(den, 1e-6)[..., None])
    coarse = membrane(coarse.astype(np.float32), coarse_unknown)
    up = cv2.resize(coarse, (w, h), interpolation=cv2.INTER_LINEAR)
    u = np.ascontiguousarray(np.where(unknown[..., None], up, u), np.float32)
    k.relax(u, unknown, 8, 1.5)
    return u
