"""The patch-based engine's loops compiled ahead of time (the standalone bundle's, which
carries no numba): built by packaging/compile_loops.py, they repair to the very pixels
numba's loops do in a Python where numba cannot be imported, let other threads run while
they compute, and refuse arguments of the wrong type with an error instead of a crash."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from sabre_desk.imaging import loops, patchmatch_kernels
from sabre_desk.imaging.completion import patchmatch_fill
from sabre_desk.imaging.repeats import repeat_offsets
from sabre_desk.imaging.standout import standout_mask
from sabre_desk.imaging.warm import _scene, warm_up

ROOT = Path(__file__).resolve().parents[2]
COMPILE = ROOT / "packaging" / "compile_loops.py"


def _module(name: str, path: Path):  # type: ignore[no-untyped-def]
    """The module in the file at *path* (a script, or the extension the build makes)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding the ahead-of-time module, built as the bundle's build builds it."""
    folder = tmp_path_factory.mktemp("compiled-loops")
    subprocess.run([sys.executable, str(COMPILE), str(folder)], check=True, timeout=110)
    return folder


def _load(folder: Path):  # type: ignore[no-untyped-def]
    (path,) = folder.glob(f"{loops.AHEAD_OF_TIME_MODULE}.*")
    return _module(loops.AHEAD_OF_TIME_MODULE, path)


def _scene_with_texture() -> tuple[np.ndarray, np.ndarray]:
    """A red square on a patterned, noisy ground, and a box drawn round it with a margin.
    The pattern is followed from its copies (at a noise of 15 levels its pixels no longer
    count as the pattern's, ``repeats._in_pattern``, and the completion fills it)."""
    rng = np.random.default_rng(3)
    yy, xx = np.mgrid[0:240, 0:240]
    base = 110 + 70 * np.sin(xx / 4.0) * np.cos(yy / 9.0)
    image = np.clip(base[..., None] + rng.normal(0, 10, (240, 240, 3)), 0, 255).astype(np.uint8)
    image[95:145, 95:145] = (240, 30, 30)
    box = np.zeros((240, 240), bool)
    box[80:160, 80:160] = True
    return image, box


def test_what_a_repair_compiles_is_exactly_what_the_ahead_of_time_module_holds() -> None:
    """Every loop numba compiled in this process (a real repair and search ran) has the
    argument types of LOOPS and no other: a caller passing other types, or leaving out an
    argument the JIT would default, would crash the bundle."""
    assert warm_up() is not None
    image, hole = _scene_with_texture()
    standout_mask(image, hole)
    patchmatch_fill(image, hole)
    numba_type = _module("compile_loops", COMPILE).numba_type
    for name, args in loops.LOOPS.items():
        signatures = getattr(patchmatch_kernels, name).signatures
        assert signatures == [tuple(numba_type(arg) for arg in args)], name


def test_without_numba_the_bundle_s_loops_repair_to_the_same_pixels(compiled: Path) -> None:
    """The same pixels on a patterned ground (its copies followed: ``repeats``) and on a
    blotched one (the completion's pyramid)."""
    image, hole = _scene_with_texture()
    expected_fill = patchmatch_fill(image, hole)
    expected_mask = standout_mask(image, hole)
    assert expected_mask is not None and 0 < expected_mask.mean() < hole.mean()
    assert repeat_offsets(image, hole) is not None
    blotched, blotched_hole = _scene()
    assert repeat_offsets(blotched, blotched_hole) is None
    expected_blotched = patchmatch_fill(blotched, blotched_hole)
    script = textwrap.dedent(
        f"""
        import json, sys
        sys.modules["numba"] = None  # as in the bundle: importing numba fails
        import numpy as np
        from sabre_desk.engines.registry import ENGINES
        from sabre_desk.imaging import loops
        from sabre_desk.imaging.completion import patchmatch_fill
        from sabre_desk.imaging.standout import standout_mask
        from sabre_desk.imaging.warm import warm_up
        folder = {str(compiled)!r}
        image, hole = np.load(folder + "/image.npy"), np.load(folder + "/hole.npy")
        np.save(folder + "/fill.npy", patchmatch_fill(image, hole))
        np.save(folder + "/mask.npy", standout_mask(image, hole))
        blotched = np.load(folder + "/blotched.npy")
        blotched_hole = np.load(folder + "/blotched_hole.npy")
        np.save(folder + "/blotched_fill.npy", patchmatch_fill(blotched, blotched_hole))
        print(json.dumps({{
            "loops": type(loops.compiled_loops()).__name__,
            "engine": ENGINES["patchmatch"].unavailable_reason(),
            "warm": warm_up() is not None,
        }}))
        """
    )
    np.save(compiled / "image.npy", image)
    np.save(compiled / "hole.npy", hole)
    np.save(compiled / "blotched.npy", blotched)
    np.save(compiled / "blotched_hole.npy", blotched_hole)
    env = {**os.environ, "PYTHONPATH": str(compiled)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=110
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.splitlines()[-1])
    assert report == {"loops": "_Checked", "engine": None, "warm": True}
    assert np.array_equal(np.load(compiled / "fill.npy"), expected_fill)
    assert np.array_equal(np.load(compiled / "mask.npy"), expected_mask)
    assert np.array_equal(np.load(compiled / "blotched_fill.npy"), expected_blotched)


def test_the_bundle_s_warm_up_only_imports_its_loops(compiled: Path) -> None:
    """A worker of the bundle spends no second repairing the warm-up's tiny scene: its
    loops were compiled when it was built."""
    script = (
        "import json, sys; sys.modules['numba'] = None\n"
        "from sabre_desk.imaging.warm import warm_up\n"
        "seconds = warm_up()\n"
        "print(json.dumps({'ready': seconds is not None,\n"
        "  'loops': 'sabre_desk_compiled_loops' in sys.modules,\n"
        "  'repaired': 'sabre_desk.imaging.completion' in sys.modules}))"
    )
    env = {**os.environ, "PYTHONPATH": str(compiled)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ready": True, "loops": True, "repaired": False}


def test_without_numba_or_the_module_the_engine_says_what_it_needs() -> None:
    script = (
        "import sys; sys.modules['numba'] = None\n"
        "from sabre_desk.engines.registry import ENGINES\n"
        "print(ENGINES['patchmatch'].unavailable_reason())"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "needs numba" in done.stdout


def test_the_loops_let_other_threads_run(compiled: Path) -> None:
    """While a loop sweeps an image on one thread, this one looks at the image and sees it
    half-way: neither as it was nor as it ends. A loop holding the interpreter lock lets
    this thread run only before it starts or after it ends (checked: a module compiled
    without letting go sees neither once)."""
    module = loops._Checked(_load(compiled))
    u = np.zeros((500, 500, 3), np.float32)
    u[0] = 100  # the held edge the sweeps spread
    unknown = np.ones((500, 500), bool)
    unknown[0] = False
    done = threading.Event()

    def sweep() -> None:
        module.relax(u, unknown, 400, 1.5)
        done.set()

    worker = threading.Thread(target=sweep)
    seen = []
    worker.start()
    while not done.is_set():
        seen.append(float(u[1:60].sum()))
    worker.join()
    final = float(u[1:60].sum())
    assert [value for value in seen if value not in (0.0, final)]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.zeros((8, 8, 3)), np.ones((8, 8), bool), 1, 1.5), "argument 1 must be float32"),
        (
            (np.zeros((8, 16, 3), np.float32)[:, ::2], np.ones((8, 8), bool), 1, 1.5),
            "argument 1 must be C-contiguous",
        ),
        ((np.zeros((8, 8, 3), np.float32), np.ones((8, 8), bool), True, 1.5), "argument 3"),
        ((np.zeros((8, 8, 3), np.float32), np.ones((8, 8), bool), 1), "4 arguments, not 3"),
    ],
)
def test_a_wrong_argument_is_refused_by_name_not_a_crash(
    compiled: Path, args: tuple[object, ...], message: str
) -> None:
    module = loops._Checked(_load(compiled))
    with pytest.raises(TypeError, match=message) as refused:
        module.relax(*args)
    assert "relax" in str(refused.value)


def test_a_wrong_tuple_is_refused(compiled: Path) -> None:
    module = loops._Checked(_load(compiled))
    img = np.ascontiguousarray(_scene()[0], np.float32)
    ys = np.zeros(3, np.int64)  # the field's centres are int32
    with pytest.raises(TypeError, match="refresh_distances: argument 2 must be int32"):
        module.refresh_distances(img, (ys, ys), (ys, ys, ys), 3)
