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

import numpy as np

from sabre_desk.imaging.loops import compiled_loops


def source_gradients(
    img: np.ndarray, where: np.ndarray, source_ys: np.ndarray, source_xs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The forward differences of ``img`` (float32 H×W×3) along x and y, each pixel where
    ``where`` is true (and a source is given, ≥ 0) taking the differences at its source
    pixel (``source_ys``, ``source_xs``: int32 H×W)."""
    gx, gy = _forward_differences(img)
    ys, xs = np.nonzero(where)
    sy, sx = source_ys[ys, xs], source_xs[ys, xs]
    given = sy >= 0
    ys, xs, sy, sx = ys[given], xs[given], sy[given], sx[given]
    gx[ys, xs] = gx[sy, sx]
    gy[ys, xs] = gy[sy, sx]
    return gx, gy


def from_gradients(img: np.ndarray, hole: np.ndarray, gx: np.ndarray, gy: np.ndarray) -> np.ndarray:
    """``img`` (float32 H×W×3) with the hole's pixels replaced by those whose forward
    differences best match (``gx``, ``gy``) there, meeting the pixels round the hole. A side
    of the hole on the image's edge continues ``img``'s own pixels past it (they stand for
    what lies beyond). Solved for the change to ``img``'s pixels in the hole, which is small
    where their gradients are already right: the membrane's few sweeps leave its error a
    share of that change, not of the pixels' levels."""
    h, w = hole.shape
    ys, xs = np.nonzero(hole)
    # the hole's bounding rectangle grown by a pixel: every pixel the equation touches,
    # and a margin of held pixels where the image goes on (padded where it does not)
    y0, y1 = int(ys.min()) - 1, int(ys.max()) + 2
    x0, x1 = int(xs.min()) - 1, int(xs.max()) + 2
    pad = ((max(0, -y0), max(0, y1 - h)), (max(0, -x0), max(0, x1 - w)))
    area = (slice(max(0, y0), min(h, y1)), slice(max(0, x0), min(w, x1)))
    u = np.pad(img[area], (*pad, (0, 0)), mode="edge").astype(np.float32)
    unknown = np.pad(hole[area], pad, mode="constant")
    target = np.pad(_divergence(gx, gy)[area], (*pad, (0, 0)), mode="edge")
    # the change c to the pixels: ∇²c = div g - ∇²u in the hole, c = 0 round it
    change = np.where(unknown[..., None], target - _laplacian(u), 0).astype(np.float32)
    particular = _sine_poisson(change)
    rest = membrane(np.where(unknown[..., None], 0, -particular), unknown)
    u = np.where(unknown[..., None], u + particular + rest, u)
    out = img.copy()
    top, left = pad[0][0], pad[1][0]
    out[area] = u[top : top + out[area].shape[0], left : left + out[area].shape[1]]
    return out


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
    import cv2

    k = compiled_loops()

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
    k.relax(u, np.ascontiguousarray(unknown), 8, 1.5)
    return u
