"""The inner loops of PatchMatch completion, compiled with numba.

Kept apart from ``completion.py`` (the algorithm's steps, in numpy and OpenCV) because these
are the only lines that need a compiler: a patch distance, one PatchMatch pass (propagation
and random search) over every patch that touches the hole, the vote that turns the
nearest-neighbour field into pixels, the field carried to the next finer level, and the
sweeps of the membrane that meets the hole's edge. Every loop is plain indexing on
contiguous arrays, so numba turns it into machine code (cached on disk after the first
run); in pure Python the same loops would take minutes.

Conventions: ``img`` is float32 (H, W, 3); a patch is (2r+1)² pixels around its centre;
``src`` marks the centres whose whole patch lies on known pixels (outside the hole and its
margin); ``targets`` is (ys, xs), the centres of the patches touching the hole, in raster
order; ``field`` is (ys, xs, dist): for each target centre, its source centre and their
patches' distance (-1 and inf elsewhere).
"""

from __future__ import annotations

import math

import numba
import numpy as np

#: the vote's weight falls as exp(-distance / area / 2σ²), bounded at exp(-MAX_BADNESS)
MAX_BADNESS = 40.0


@numba.njit(cache=True, nogil=True)
def patch_distance(
    img: np.ndarray, ty: int, tx: int, sy: int, sx: int, r: int, best: float
) -> float:
    """Sum of squared differences between the patches at t and s, over the target patch's
    pixels inside the image; stops early once it passes ``best``."""
    h, w = img.shape[0], img.shape[1]
    d = 0.0
    for dy in range(-r, r + 1):
        y = ty + dy
        if y < 0 or y >= h:
            continue
        for dx in range(-r, r + 1):
            x = tx + dx
            if x < 0 or x >= w:
                continue
            for c in range(3):
                e = img[y, x, c] - img[sy + dy, sx + dx, c]
                d += e * e
        if d > best:
            return d
    return d


@numba.njit(cache=True, nogil=True)
def seed_random(seed: int) -> None:
    np.random.seed(seed)


@numba.njit(cache=True, nogil=True)
def _near(ty, tx, sy, sx, apart):  # type: ignore[no-untyped-def]
    """Whether source s is closer than ``apart`` pixels (on either axis) to target t."""
    return abs(sy - ty) < apart and abs(sx - tx) < apart


@numba.njit(cache=True, nogil=True)
def _try(img, src, ty, tx, sy, sx, field, r, apart):  # type: ignore[no-untyped-def]
    """Take source s for target t if it is a known patch, at least ``apart`` pixels away,
    and nearer than the current one."""
    nny, nnx, nnd = field
    if sy < 0 or sx < 0 or sy >= src.shape[0] or sx >= src.shape[1] or not src[sy, sx]:
        return
    if _near(ty, tx, sy, sx, apart):
        return
    if sy == nny[ty, tx] and sx == nnx[ty, tx]:
        return
    d = patch_distance(img, ty, tx, sy, sx, r, nnd[ty, tx])
    if d < nnd[ty, tx]:
        nny[ty, tx] = sy
        nnx[ty, tx] = sx
        nnd[ty, tx] = d


@numba.njit(cache=True, nogil=True)
def patchmatch_pass(  # type: ignore[no-untyped-def]
    img, src, targets, field, r, reverse, search_radius, apart=0
):
    """One scan: each target tries its (already improved) neighbours' sources shifted by
    one pixel, then sources at random in a window halving from ``search_radius``; none
    closer than ``apart`` pixels to it (0: any)."""
    tys, txs = targets
    nny, nnx = field[0], field[1]
    n = tys.shape[0]
    step = -1 if reverse else 1
    for j in range(n):
        i = n - 1 - j if reverse else j
        ty, tx = tys[i], txs[i]
        py, px = ty - step, tx - step
        if 0 <= px < nny.shape[1] and nny[ty, px] >= 0:
            _try(img, src, ty, tx, nny[ty, px], nnx[ty, px] + step, field, r, apart)
        if 0 <= py < nny.shape[0] and nny[py, tx] >= 0:
            _try(img, src, ty, tx, nny[py, tx] + step, nnx[py, tx], field, r, apart)
        radius = search_radius
        while radius >= 1:
            sy = nny[ty, tx] + np.random.randint(-radius, radius + 1)
            sx = nnx[ty, tx] + np.random.randint(-radius, radius + 1)
            _try(img, src, ty, tx, sy, sx, field, r, apart)
            radius //= 2


@numba.njit(cache=True, nogil=True)
def vote(img, write, patch_conf, targets, field, r, sigma2):  # type: ignore[no-untyped-def]
    """The pixels where ``write`` is true as the weighted mean of every source patch laid
    over them; a patch weighs more the better it matches and the more of it lies near
    known pixels (``patch_conf``)."""
    tys, txs = targets
    nny, nnx, nnd = field
    h, w = img.shape[0], img.shape[1]
    acc = np.zeros((h, w, 3), np.float32)
    wsum = np.zeros((h, w), np.float32)
    area = (2 * r + 1) * (2 * r + 1)
    for i in range(tys.shape[0]):
        ty, tx = tys[i], txs[i]
        sy, sx = nny[ty, tx], nnx[ty, tx]
        # the exponent is bounded so that a patch matching badly still weighs more than
        # zero: a pixel covered only by such patches gets their mean, not its old value
        badness = min(nnd[ty, tx] / area / (2.0 * sigma2), MAX_BADNESS)
        weight = patch_conf[ty, tx] * math.exp(-badness)
        for y in range(max(0, ty - r), min(h, ty + r + 1)):
            for x in range(max(0, tx - r), min(w, tx + r + 1)):
                if write[y, x]:
                    for c in range(3):
                        acc[y, x, c] += weight * img[sy + y - ty, sx + x - tx, c]
                    wsum[y, x] += weight
    out = img.copy()
    for y in range(h):
        for x in range(w):
            if write[y, x] and wsum[y, x] > 0:
                for c in range(3):
                    out[y, x, c] = acc[y, x, c] / wsum[y, x]
    return out


@numba.njit(cache=True, nogil=True)
def carry_field(  # type: ignore[no-untyped-def]
    img, src, targets, coarse, sources, field, r, apart=0
):
    """The coarser level's field at twice the scale: each target takes its parent's source,
    doubled and shifted by its own offset; where that is not a known patch (or there is no
    parent), a source drawn at random from ``sources`` (ys, xs), if it can be one at least
    ``apart`` pixels from the target (a few draws)."""
    tys, txs = targets
    nny, nnx, nnd = field
    coarse_y, coarse_x = coarse[0], coarse[1]
    src_ys, src_xs = sources
    ch, cw = coarse_y.shape
    n = src_ys.shape[0]
    for i in range(tys.shape[0]):
        ty, tx = tys[i], txs[i]
        cy, cx = min(ty // 2, ch - 1), min(tx // 2, cw - 1)
        sy, sx = -1, -1
        if coarse_y[cy, cx] >= 0:
            sy = 2 * coarse_y[cy, cx] + (ty - 2 * cy)
            sx = 2 * coarse_x[cy, cx] + (tx - 2 * cx)
        if sy < 0 or sx < 0 or sy >= src.shape[0] or sx >= src.shape[1] or not src[sy, sx]:
            for _ in range(8):
                k = np.random.randint(0, n)
                sy, sx = src_ys[k], src_xs[k]
                if not _near(ty, tx, sy, sx, apart):
                    break
        nny[ty, tx] = sy
        nnx[ty, tx] = sx
        if _near(ty, tx, sy, sx, apart):  # no draw was far enough: any other source is better
            nnd[ty, tx] = np.inf
        else:
            nnd[ty, tx] = patch_distance(img, ty, tx, sy, sx, r, np.inf)


@numba.njit(cache=True, nogil=True)
def refresh_distances(img, targets, field, r):  # type: ignore[no-untyped-def]
    """The field's distances again, after the vote has changed the hole's pixels."""
    tys, txs = targets
    nny, nnx, nnd = field
    for i in range(tys.shape[0]):
        ty, tx = tys[i], txs[i]
        nnd[ty, tx] = patch_distance(img, ty, tx, nny[ty, tx], nnx[ty, tx], r, np.inf)


@numba.njit(cache=True, nogil=True)
def relax(u, unknown, sweeps, omega):  # type: ignore[no-untyped-def]
    """Gauss-Seidel sweeps (over-relaxed by ``omega``) of Laplace's equation on the pixels
    where ``unknown`` is true, the others held fixed: ``u`` (H, W, C) is smoothed in place
    towards the membrane that meets the fixed pixels."""
    h, w, nc = u.shape
    for _ in range(sweeps):
        for y in range(h):
            for x in range(w):
                if not unknown[y, x]:
                    continue
                for c in range(nc):
                    s = 0.0
                    n = 0
                    if y > 0:
                        s += u[y - 1, x, c]
                        n += 1
                    if y < h - 1:
                        s += u[y + 1, x, c]
                        n += 1
                    if x > 0:
                        s += u[y, x - 1, c]
                        n += 1
                    if x < w - 1:
                        s += u[y, x + 1, c]
                        n += 1
                    if n > 0:
                        u[y, x, c] += omega * (s / n - u[y, x, c])
