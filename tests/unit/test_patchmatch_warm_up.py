"""The patch-based engine warmed before the first repair: after ``warm_up`` (what the window
runs as it opens) a real repair compiles nothing more, so the first repair of a session
waits for no compiler; and the very first run after an install leaves the compiled loops
in the disk cache for every later process."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numba
import numpy as np
import pytest
from PIL import Image

from sabre_desk.engines.base import EngineRequest, RepairOp
from sabre_desk.engines.registry import make_engine
from sabre_desk.imaging import patchmatch_kernels as kernels
from sabre_desk.imaging.patch import PixelRect
from sabre_desk.imaging.warm import warm_up

PHOTOS = Path(__file__).parents[1] / "fixtures" / "photos"
CALLED = ("seed_random", "patchmatch_pass", "vote", "carry_field", "refresh_distances", "relax")


def compiled() -> dict[str, int]:
    """How many argument-type signatures each compiled loop has."""
    return {
        name: len(value.signatures)
        for name, value in vars(kernels).items()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    }


def brick_with_object() -> tuple[np.ndarray, PixelRect]:
    gray = np.asarray(Image.open(PHOTOS / "brick.png").convert("L"))
    photo = np.ascontiguousarray(np.dstack([gray] * 3))
    photo[60:100, 50:110] = (30, 200, 40)  # a green object pasted on the wall
    return photo, PixelRect(44, 54, 116, 106)


def test_after_warm_up_a_real_repair_compiles_nothing_more() -> None:
    assert warm_up() is not None
    ready = compiled()
    # the loops a repair calls (the others are compiled into them)
    assert all(ready[name] for name in CALLED), f"loops warm_up left uncompiled: {ready}"
    photo, box = brick_with_object()
    h, w = photo.shape[:2]
    request = EngineRequest(
        RepairOp.REMOVE, "", photo, photo, box, PixelRect(0, 0, w, h), (w, h), threading.Event()
    )
    reply = make_engine("patchmatch").repair(request)
    # the object is gone: the repair really ran every loop
    inside = reply.patch[60:100, 50:110].astype(int)
    assert not ((inside[..., 1] > 150) & (inside[..., 0] < 80)).mean() > 0.05
    assert compiled() == ready


@pytest.mark.slow
def test_warm_up_fills_an_empty_disk_cache_for_the_next_process(tmp_path: Path) -> None:
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    warm = "from sabre_desk.imaging.warm import warm_up; print(warm_up())"
    subprocess.run([sys.executable, "-c", warm], env=env, check=True, timeout=600)
    assert list((tmp_path / "cache").rglob("*.nbc")), "nothing cached on disk"
    # a fresh process (as a repair's worker is) only loads the loops: no cache misses
    code = (
        "import json, numba\n"
        "from sabre_desk.imaging.warm import warm_up\n"
        "from sabre_desk.imaging import patchmatch_kernels as k\n"
        "warm_up()\n"
        "misses = {n: sum(v.stats.cache_misses.values()) for n, v in vars(k).items()\n"
        "          if isinstance(v, numba.core.registry.CPUDispatcher)}\n"
        "print(json.dumps(misses))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    misses = json.loads(done.stdout.splitlines()[-1])
    assert misses and not any(misses.values()), misses
