"""Exemplar completion offline: the box filled with texture copied from around it.

The OpenCV engines diffuse the surroundings into the box (Telea, Navier-Stokes) or rebuild
it from a few frequencies (FSR); on grass, fabric or brick either leaves a smear or blotches.
This one copies patches of the patch's own known pixels into the box, coarse to fine
(multi-scale PatchMatch, ``sabre_desk/imaging/completion.py``), so a texture carries on
through the box, with its broad shading taken from a smooth fill. Only what stands out from
the photo round the box is filled (``sabre_desk/imaging/standout.py``): the photo's own
pixels in the box's margin stay as they are, and the fill continues from them. It computes
for a second or two on an ordinary box, so the window shows Telea's smooth fill first, in a
fraction of that (``quick_preview``), and this one in its place when it lands.

Its inner loops are compiled by numba (imported only when a repair runs, so listing the
engines stays fast; the compiled code is cached on disk after the first repair), or ahead
of time in the standalone bundle (``sabre_desk/imaging/loops.py``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import ClassVar

import numpy as np

from sabre_desk.engines.base import (
    EngineRequest,
    RepairCancelledError,
    RepairEngine,
    check_cancelled,
)
from sabre_desk.engines.opencv import OpenCVEngine, TeleaEngine


class PatchMatchEngine(OpenCVEngine):
    """Multi-scale PatchMatch completion (compiled loops)."""

    name: ClassVar[str] = "patchmatch"
    label: ClassVar[str] = "Patch-based completion, offline (carries texture into the box)"
    uses_radius: ClassVar[bool] = False
    #: repaired again, a box gets another fill: the search starts from other random
    #: matches (the completion's seed, plus the request's variant), every other fill from
    #: the lines that run into the box grown in first (``lines_first_fill``), and the first
    #: fill of a box is always the same one
    fills_vary: ClassVar[bool] = True
    # Telea, not FSR: on a 200×200 box FSR took 5.2 s against this engine's 1.9 s (it
    # never landed first); Telea, made as a stand-in (registry.make_stand_in), 0.10 s
    quick_preview: ClassVar[str | None] = TeleaEngine.name

    @classmethod
    def unavailable_reason(cls) -> str | None:
        from sabre_desk.imaging.loops import unavailable_reason

        return unavailable_reason()

    def __init__(
        self, radius: int | None = None, whole_box: bool = False, follow_repeats: bool = True
    ) -> None:
        super().__init__(radius)
        #: fill every pixel of the box, as the other offline engines do (the benchmark
        #: compares both); by default only what stands out in it is filled
        self.whole_box = whole_box
        #: continue a pattern that repeats round the box from its own copies
        #: (``imaging/repeats.py``); off, the completion alone fills it (the benchmark
        #: compares both)
        self.follow_repeats = follow_repeats

    def fill_request(self, request: EngineRequest, mask: np.ndarray, radius: int) -> np.ndarray:
        from sabre_desk.imaging.completion import (
            CompletionCancelledError,
            CompletionParams,
            patchmatch_fill,
        )
        from sabre_desk.imaging.standout import standout_mask

        hole = mask > 0
        if not self.whole_box:
            found = standout_mask(request.patch, hole)
            if found is not None:
                hole = found
        check_cancelled(request)
        try:
            first = CompletionParams(follow_repeats=self.follow_repeats)
            params = replace(
                first,
                seed=first.seed + request.variant,
                lines_first=lines_first_fill(request.variant),
            )
            around = request.surround
            surround = (around.pixels, around.patch_at) if around is not None else None
            return patchmatch_fill(
                request.patch, hole, params, cancel=request.cancel, surround=surround
            )
        except CompletionCancelledError as exc:
            raise RepairCancelledError(str(exc)) from None

    @staticmethod
    def fill(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
        from sabre_desk.imaging.completion import patchmatch_fill

        return patchmatch_fill(patch, mask > 0)


def lines_first_fill(variant: int) -> bool:
    """Whether fill ``variant`` + 1 of a box starts from the lines that run into it grown
    in first (``imaging/lines_first.py``) rather than from a smooth fill: fills 2, 4, 6...
    Every fill started smooth shares the smooth fill's layout, so a tower the first fill
    cut off stayed cut off in every fill after it; fills that take turns give the artist
    two layouts to choose from."""
    return variant % 2 == 1


#: the "fill the whole box" choice in words, as the repair panel shows it and as
#: ``sabre-desk repair --fill-box`` means it
FILL_BOX_LABEL = "Fill the whole box"
FILL_BOX_HELP = (
    "fill every pixel of the box (the patch-based engine fills only what stands out in it "
    "by default; the other engines always fill the whole box)"
)


def fill_whole_box(engine: RepairEngine) -> RepairEngine:
    """``engine`` set to fill every pixel of the box (the "fill the whole box" choice of the
    repair panel and of ``sabre-desk repair --fill-box``): the patch-based engine otherwise
    fills only what stands out in it; every other offline engine fills the whole box
    already, and a generative one redraws the box as it sees fit."""
    if isinstance(engine, PatchMatchEngine):
        engine.whole_box = True
    return engine
