"""The patch-based engine's compiled loops made ready before the first repair asks for them.

numba compiles ``patchmatch_kernels`` on the first call of each loop with each set of
argument types, and caches the machine code on disk; a later process only loads it (a
fraction of a second) — but the very first repair after an install, or after the cache was
cleared, waited for the compiler (about ten seconds on a laptop), and any process still
pays for importing numba and loading the cache on its first repair. ``warm_up`` runs two
tiny completions (one through a pattern that repeats) and one tiny search for what stands
out, with the same argument types a
real repair uses, so every loop is compiled (or loaded) and written to the disk cache while
nobody is waiting: the window runs it in each of its worker processes once its first case
is painted. (The standalone bundle's loops were compiled when it was built: there the
warm-up only imports them, and repairs no tiny scene a worker would spend a second on.)

Qt-free and safe to call more than once, from any thread; it never raises (a repair that
later needs the loops reports any real problem itself).
"""

from __future__ import annotations

import logging
import time

import numpy as np

log = logging.getLogger(__name__)

#: the tiny scene's side and its hole's: big enough for two pyramid levels and both
#: completions (texture and structure), so every loop and signature of a repair runs
SCENE_PX = 96
HOLE_PX = 56


def _scene() -> tuple[np.ndarray, np.ndarray]:
    """A small textured picture that does not repeat (blotches and grain, fixed seed) and
    a square hole in it."""
    import cv2  # not at the top: the window imports this module before its first paint

    rng = np.random.default_rng(7)
    blotches = cv2.GaussianBlur(rng.normal(0, 1, (SCENE_PX, SCENE_PX)), (0, 0), 4)
    ground = 128 + 60 * blotches / max(float(np.abs(blotches).max()), 1e-6)
    noise = rng.normal(0, 12, (SCENE_PX, SCENE_PX, 3))
    image = np.clip(ground[..., None] + noise, 0, 255).astype(np.uint8)
    hole = np.zeros((SCENE_PX, SCENE_PX), bool)
    start = (SCENE_PX - HOLE_PX) // 2
    hole[start : start + HOLE_PX, start : start + HOLE_PX] = True
    image[hole] = (250, 20, 20)  # an object that stands out, so the search finds it
    return image, hole


def _checked_scene() -> tuple[np.ndarray, np.ndarray]:
    """A small check (squares of 8 pixels, noise) and a hole in it: the pattern repeats
    both ways, so the completion follows it (``repeats``) and labels its copies."""
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:SCENE_PX, 0:SCENE_PX]
    check = np.where((yy // 8 + xx // 8) % 2 == 0, 200.0, 70.0)
    noise = rng.normal(0, 8, (SCENE_PX, SCENE_PX, 3))
    image = np.clip(check[..., None] + noise, 0, 255).astype(np.uint8)
    hole = np.zeros((SCENE_PX, SCENE_PX), bool)
    hole[32:64, 32:64] = True
    return image, hole


def warm_up() -> float | None:
    """Compile (or load from the disk cache) every loop a patch-based repair runs; the
    seconds it took, or None when the loops cannot run here (the engine is then unavailable)
    or the loops could not be made ready."""
    from sabre_desk.imaging.loops import compiled_ahead, unavailable_reason

    if unavailable_reason() is not None:
        return None
    started = time.perf_counter()
    try:
        if not compiled_ahead():  # the bundle's loops are ready once imported
            from sabre_desk.imaging.completion import patchmatch_fill
            from sabre_desk.imaging.standout import standout_mask

            image, hole = _scene()
            standout_mask(image, hole)
            patchmatch_fill(image, hole)
            patchmatch_fill(*_checked_scene())
    except Exception:  # the warm-up is a courtesy: the repair itself will say what is wrong
        log.warning("patch-based completion could not be warmed up", exc_info=True)
        return None
    seconds = time.perf_counter() - started
    log.info("patch-based completion warmed up in %.2f s", seconds)
    return seconds
