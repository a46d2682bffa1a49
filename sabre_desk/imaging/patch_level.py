"""One level of the completion's pyramid: its patches, and the search and vote over them.

The target patches (every patch touching the hole, in raster order), the source patches
(wholly on known pixels), each target's confidence (how near the known pixels it lies), and
the three steps every iteration takes: PatchMatch's search for each target's best source,
the vote that turns the sources into pixels, and the distances measured again on those
pixels. Each step runs in bands of the hole's rows on threads of their own (the compiled
loops release the GIL): a patch follows its neighbour only within its band, so no thread
reads what another writes, each band's random numbers come from a seed of its own, and a
vote in bands makes the same sums in the same order as one over the whole. The same box
gives the same pixels on every run and every machine.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

from sabre_desk.imaging.loops import compiled_loops
from sabre_desk.imaging.patch_field import NeighbourField, grow_square


class LevelSettings(Protocol):
    """What a level is made with (``completion.CompletionParams`` has them)."""

    @property
    def patch_radius(self) -> int: ...
    @property
    def source_margin(self) -> int: ...
    @property
    def gamma(self) -> float: ...
    @property
    def seed(self) -> int: ...


#: pixels into the hole past which a patch's confidence stops falling (see PatchLevel.make)
CONF_DEPTH = 40.0
#: a patch's vote weighs exp(-distance / 2σ²), σ² this percentile of the level's patch
#: distances: at 50 rather than 75 the better matches count for more and the texture is
#: kept sharper (textured objects: texture distance 0.51× → 0.49× Telea's on the reported
#: scenes, 0.46× → 0.45× on others; flat objects and the time unchanged)
VOTE_PERCENTILE = 50


#: the bands of the hole's rows searched at once, each on a thread of its own (a fixed
#: number, not the machine's cores, so that every machine fills a hole alike)
BANDS = 2
#: below this many target patches the search is not parted into bands
BANDED_TARGETS = 2_000


@dataclass(frozen=True)
class Band:
    """A run of the targets on whole rows, searched and voted on a thread of its own."""

    index: int
    targets: slice  # of the level's targets
    rows: slice  # the rows they lie on (and the rows a vote of them writes)


@dataclass
class PatchLevel:
    """A level of the pyramid being filled: its pixels, patches and threads."""

    img: np.ndarray  # float32 (H, W, C): colours (and features), the hole being filled
    hole: np.ndarray  # bool (H, W)
    src: np.ndarray  # bool: centres of patches lying wholly on known pixels
    src_ys: np.ndarray
    src_xs: np.ndarray
    tys: np.ndarray  # the target centres: patches touching the hole, in raster order
    txs: np.ndarray
    patch_conf: np.ndarray  # float32: each target patch's mean confidence
    r: int
    seed: int
    #: the threads the bands of rows are searched and voted on (None: one band, here)
    pool: ThreadPoolExecutor | None = None
    #: searches run so far: each band of each pass draws from a seed of its own
    searches: int = 0

    @property
    def targets(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tys, self.txs

    @property
    def sources(self) -> tuple[np.ndarray, np.ndarray]:
        return self.src_ys, self.src_xs

    @classmethod
    def make(
        cls,
        img: np.ndarray,
        hole: np.ndarray,
        params: LevelSettings,
        pool: ThreadPoolExecutor | None = None,
    ) -> PatchLevel | None:
        r = params.patch_radius
        src = source_centres(hole, params)
        if src is None:
            return None
        ty, tx = np.nonzero(grow_square(hole, r))
        sy, sx = np.nonzero(src)
        distance = cv2.distanceTransform((hole * 255).astype(np.uint8), cv2.DIST_L2, 3)
        # past CONF_DEPTH pixels in, every patch is as trusted as the next: float32 weights
        # would otherwise underflow to zero in the middle of a large hole
        distance = np.minimum(distance, CONF_DEPTH)
        conf = np.where(hole, params.gamma ** (-distance), 1.0).astype(np.float32)
        patch_conf = cv2.blur(conf, (2 * r + 1, 2 * r + 1), borderType=cv2.BORDER_REPLICATE)
        as_int = np.int32
        return cls(
            np.ascontiguousarray(img, np.float32),
            hole,
            src,
            sy.astype(as_int),
            sx.astype(as_int),
            ty.astype(as_int),
            tx.astype(as_int),
            patch_conf,
            r,
            params.seed,
            pool,
        )

    def colour_only(self) -> PatchLevel:
        """This level with its colours alone (a copy of the pixels; the same field fits)."""
        return replace(self, img=np.ascontiguousarray(self.img[..., :3]))

    def carry(self, coarse: NeighbourField | None) -> NeighbourField:
        """This level's field from the coarser one at twice the scale (random where none)."""
        k = compiled_loops()

        field = NeighbourField.empty(self.hole.shape)
        parent = coarse or NeighbourField.empty((1, 1))
        k.carry_field(
            self.img, self.src, self.targets, parent.arrays, self.sources, field.arrays, self.r, 0
        )
        return field

    def search(self, field: NeighbourField, passes: int) -> None:
        """``passes`` PatchMatch passes over the targets, each band of rows on a thread."""
        k = compiled_loops()

        for p in range(passes):
            reverse = p % 2 == 1
            self.searches += 1
            seed = self.seed * 1_000_003 + self.searches * BANDS

            def scan(band: Band, reverse: bool = reverse, seed: int = seed) -> None:
                k.seed_random(seed + band.index)  # the loops draw per thread
                k.patchmatch_pass(
                    self.img,
                    self.src,
                    (self.tys[band.targets], self.txs[band.targets]),
                    field.arrays,
                    self.r,
                    reverse,
                    max(self.hole.shape),
                    0,
                    band.rows.start,
                    band.rows.stop,
                )

            self._each_band(scan)

    def vote(self, field: NeighbourField, write: np.ndarray | None = None) -> np.ndarray:
        """The pixels voted by the field, written where ``write`` (else the hole) is true;
        each band's rows from the targets within a patch of them (the same sums, in the
        same order, as one vote over the whole)."""
        k = compiled_loops()

        area = (2 * self.r + 1) ** 2
        sigma2 = max(
            float(np.percentile(field.dist[self.tys, self.txs] / area, VOTE_PERCENTILE)), 1.0
        )
        mask = self.hole if write is None else write
        out = self.img.copy()

        def vote_band(band: Band) -> None:
            near = slice(
                int(np.searchsorted(self.tys, band.rows.start - self.r)),
                int(np.searchsorted(self.tys, band.rows.stop + self.r)),
            )
            rows = np.zeros_like(mask)
            rows[band.rows] = mask[band.rows]
            voted = k.vote(
                self.img,
                rows,
                self.patch_conf,
                (self.tys[near], self.txs[near]),
                field.arrays,
                self.r,
                sigma2,
            )
            out[band.rows] = voted[band.rows]

        self._each_band(vote_band)
        return out

    def _each_band(self, work: Callable[[Band], None]) -> None:
        bands = self.bands()
        if self.pool is None or len(bands) == 1:
            for band in bands:
                work(band)
            return
        for done in [self.pool.submit(work, band) for band in bands]:
            done.result()

    def bands(self) -> list[Band]:
        """The targets parted into ``BANDS`` runs of whole rows (they are in raster
        order), or one band when there are few."""
        h, n = self.hole.shape[0], len(self.tys)
        if n < BANDED_TARGETS or self.pool is None:
            return [Band(0, slice(0, n), slice(0, h))]
        cuts = [0]
        for band in range(1, BANDS):
            cuts.append(int(np.searchsorted(self.tys, self.tys[n * band // BANDS])))
        cuts.append(n)
        rows = [0, *(int(self.tys[c]) for c in cuts[1:-1]), h]
        return [
            Band(b, slice(cuts[b], cuts[b + 1]), slice(rows[b], rows[b + 1])) for b in range(BANDS)
        ]

    def update(self, field: NeighbourField) -> None:
        """Vote the hole's pixels, and measure the field's distances on them again."""
        self.img = self.vote(field)
        self.measure(field)

    def measure(self, field: NeighbourField) -> None:
        """The field's distances measured again on this level's pixels."""
        k = compiled_loops()

        def measure_band(band: Band) -> None:
            targets = (self.tys[band.targets], self.txs[band.targets])
            k.refresh_distances(self.img, targets, field.arrays, self.r)

        self._each_band(measure_band)


def source_centres(hole: np.ndarray, params: LevelSettings) -> np.ndarray | None:
    """The centres of the patches lying wholly on known pixels, outside the hole's margin;
    None when there are none (a level too small to copy from)."""
    r = params.patch_radius
    h, w = hole.shape
    if h <= 2 * r or w <= 2 * r:
        return None
    src = ~grow_square(hole, r + params.source_margin)
    src[:r], src[h - r :], src[:, :r], src[:, w - r :] = False, False, False, False
    return src if src.any() else None
