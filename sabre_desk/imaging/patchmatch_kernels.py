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
            for c in range(img.shape[2]):
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
    img, src, targets, field, r, reverse, search_radius, apart, row_lo, row_hi
):
    """One scan: each target tries its (already improved) neighbours' sources shifted by
    one pixel, then sources at random in a window halving from ``search_radius``; none
    closer than ``apart`` pixels to it (0: any). Only neighbours on rows ``row_lo`` to
    ``row_hi`` (excluded) are followed: a band of targets scanned on a thread of its own
    reads nothing another thread writes, so the result does not depend on their timing."""
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
        if row_lo <= py < row_hi and nny[py, tx] >= 0:
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
    nc = img.shape[2]
    acc = np.zeros((h, w, nc), np.float32)
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
                    for c in range(nc):
                        acc[y, x, c] += weight * img[sy + y - ty, sx + x - tx, c]
                    wsum[y, x] += weight
    out = img.copy()
    for y in range(h):
        for x in range(w):
            if write[y, x] and wsum[y, x] > 0:
                for c in range(nc):
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


#: the cost of a seam beside a copy that has no known pixel to copy: more than any two
#: pixels can differ
UNMATCHED = 3 * 255.0**2


@numba.njit(cache=True, nogil=True)
def _copy(img, source, y, x, dy, dx, c):  # type: ignore[no-untyped-def]
    """Channel c of the pixel (dy, dx) away from (y, x), or -1 where that is not a pixel
    of the patch a copy may come from."""
    sy, sx = y + dy, x + dx
    if sy < 0 or sx < 0 or sy >= source.shape[0] or sx >= source.shape[1] or not source[sy, sx]:
        return -1.0
    return img[sy, sx, c]


@numba.njit(cache=True, nogil=True)
def _apart(one, other):  # type: ignore[no-untyped-def]
    """How much two copied colours differ (squared, summed over RGB); a copy that has no
    known pixel (-1) differs from anything by more than any two pixels can."""
    if one[0] < 0 or other[0] < 0:
        return UNMATCHED
    s = 0.0
    for c in range(3):
        s += (one[c] - other[c]) * (one[c] - other[c])
    return s


@numba.njit(cache=True, nogil=True)
def repeat_labels(img, hole, source, oys, oxs, nearest, sweeps, typical):  # type: ignore[no-untyped-def]
    """For each hole pixel, which offset (oys[k], oxs[k]) to copy it from (-1 outside the
    hole, and where no offset lands on a ``source`` pixel: a known pixel that is part of
    the pattern): among the ``nearest`` shortest offsets that copy a source pixel (the
    offsets come shortest first), the labelling that
    meets the known pixels round the hole, strays least from what its copies agree on at
    each pixel (``typical`` times the squared distance to their median), and whose
    neighbouring copies differ least where they meet (He and Sun's offset labels).
    Minimised by min-sum belief propagation, ``sweeps`` passes alternating forward and
    backward in raster order."""
    h, w = hole.shape
    nk = oys.shape[0]
    node = np.full((h, w), -1, np.int32)
    n = 0
    for y in range(h):
        for x in range(w):
            if hole[y, x]:
                node[y, x] = n
                n += 1
    ys = np.empty(n, np.int32)
    xs = np.empty(n, np.int32)
    for y in range(h):
        for x in range(w):
            if node[y, x] >= 0:
                ys[node[y, x]] = y
                xs[node[y, x]] = x
    # each node's candidates: its nearest offsets that copy a known pixel
    cand = np.full((n, nearest), -1, np.int32)
    count = np.zeros(n, np.int32)
    for i in range(n):
        for k in range(nk):
            if _copy(img, source, ys[i], xs[i], oys[k], oxs[k], 0) >= 0:
                cand[i, count[i]] = k
                count[i] += 1
                if count[i] == nearest:
                    break
    colours = np.zeros((n, nearest, 3), np.float32)
    for i in range(n):
        for m in range(count[i]):
            for c in range(3):
                colours[i, m, c] = _copy(
                    img, source, ys[i], xs[i], oys[cand[i, m]], oxs[cand[i, m]], c
                )
    dys = (0, 0, -1, 1)  # neighbours: left, right, up, down
    dxs = (-1, 1, 0, 0)
    unary = np.zeros((n, nearest), np.float64)
    copies = np.empty(nearest, np.float32)
    for i in range(n):
        y, x = ys[i], xs[i]
        for m in range(count[i]):
            k = cand[i, m]
            for d in range(4):  # the known pixels beside the node, against their copies
                qy, qx = y + dys[d], x + dxs[d]
                if not (0 <= qy < h and 0 <= qx < w) or hole[qy, qx]:
                    continue
                for c in range(3):
                    v = _copy(img, source, qy, qx, oys[k], oxs[k], c)
                    if v < 0:
                        unary[i, m] += UNMATCHED
                        break
                    unary[i, m] += (v - img[qy, qx, c]) * (v - img[qy, qx, c])
        if typical > 0 and count[i] > 0:
            for c in range(3):
                for m in range(count[i]):
                    k = cand[i, m]
                    copies[m] = _copy(img, source, y, x, oys[k], oxs[k], c)
                middle = np.median(copies[: count[i]])
                for m in range(count[i]):
                    unary[i, m] += typical * (copies[m] - middle) * (copies[m] - middle)
    # the message into node i from its neighbour on side d, for each of i's candidates
    inbox = np.zeros((n, 4, nearest), np.float64)
    belief = np.empty(nearest, np.float64)
    sent = np.empty(nearest, np.float64)
    # the colour at i under each of q's candidates, and at q under each of i's (-1: none)
    at_i = np.empty((nearest, 3), np.float32)
    at_q = np.empty((nearest, 3), np.float32)
    for sweep in range(sweeps):
        forward = sweep % 2 == 0
        for j in range(n):
            i = j if forward else n - 1 - j
            y, x = ys[i], xs[i]
            if count[i] == 0:
                continue
            for d in range(4):
                if (d in (1, 3)) != forward:
                    continue  # forward sweeps send right and down, backward ones left and up
                qy, qx = y + dys[d], x + dxs[d]
                if not (0 <= qy < h and 0 <= qx < w) or node[qy, qx] < 0:
                    continue
                q = node[qy, qx]
                if count[q] == 0:
                    continue
                for m in range(count[i]):
                    s = unary[i, m]
                    for e in range(4):
                        if e != d:
                            s += inbox[i, e, m]
                    belief[m] = s
                # i's candidates from the most to the least believed: a seam costs nothing
                # or more, so past the first believed less than the best so far, none wins
                order = np.argsort(belief[: count[i]])
                for mq in range(count[q]):
                    for c in range(3):
                        at_i[mq, c] = _copy(
                            img, source, y, x, oys[cand[q, mq]], oxs[cand[q, mq]], c
                        )
                for m in range(count[i]):
                    for c in range(3):
                        at_q[m, c] = _copy(img, source, qy, qx, oys[cand[i, m]], oxs[cand[i, m]], c)
                lowest = np.inf
                for mq in range(count[q]):
                    b = cand[q, mq]
                    best = np.inf
                    for m in order:
                        if belief[m] >= best:
                            break
                        v = belief[m]
                        if cand[i, m] != b:  # a seam: both copies, on both sides of it
                            v += _apart(colours[i, m], at_i[mq]) + _apart(at_q[m], colours[q, mq])
                        if v < best:
                            best = v
                    sent[mq] = best
                    lowest = min(lowest, best)
                for mq in range(count[q]):
                    inbox[q, d ^ 1, mq] = sent[mq] - lowest
    labels = np.full((h, w), -1, np.int32)
    for i in range(n):
        best = np.inf
        for m in range(count[i]):
            s = unary[i, m] + inbox[i, 0, m] + inbox[i, 1, m] + inbox[i, 2, m] + inbox[i, 3, m]
            if s < best:
                best = s
                labels[ys[i], xs[i]] = cand[i, m]
    return labels
