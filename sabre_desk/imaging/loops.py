"""The patch-based engine's compiled loops, from whichever compiler this install has.

``patchmatch_kernels`` is the one source of the loops. A pip install compiles it with
numba as it runs (the machine code cached on disk). The standalone bundle carries no
compiler: numba's LLVM alone is 171 MiB, two thirds of what the whole bundle may weigh.
Its build compiles the same source ahead of time into an extension module,
``sabre_desk_compiled_loops`` (``packaging/compile_loops.py``), for exactly the argument
types listed in ``LOOPS``, and leaves numba out; ``compiled_loops`` hands out that module
where it exists, else numba's.

The ahead-of-time module checks nothing about what it is given: an array of another dtype,
rank or memory layout than its signature says is read as if it were one (a crash, or wrong
pixels). So its loops are only ever called through ``_Checked``, which holds every
argument to ``LOOPS`` first and raises TypeError naming the loop and the argument; a test
proves that the types numba compiles for a real repair are exactly these.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

import numpy as np

#: the extension module the bundle's build makes (a top-level module of the bundle)
AHEAD_OF_TIME_MODULE = "sabre_desk_compiled_loops"


@dataclass(frozen=True)
class ArrayArg:
    """A C-contiguous numpy array of this dtype and rank."""

    dtype: str
    ndim: int


#: a Python int (numba's int64), float (float64) or bool
INT, FLOAT, BOOL = "int", "float", "bool"

Arg = ArrayArg | str | tuple["Arg", ...]

IMAGE = ArrayArg("float32", 3)  # float32 (H, W, 3) pixels
MASK = ArrayArg("bool", 2)
WEIGHTS = ArrayArg("float32", 2)
INDICES = ArrayArg("int32", 1)  # rows or columns of pixels, or offsets along one axis
CENTRES = (INDICES, INDICES)  # (ys, xs)
FIELD = (ArrayArg("int32", 2), ArrayArg("int32", 2), ArrayArg("float32", 2))  # ys, xs, dist

#: every loop a repair calls, with the argument types it is called with (in order, every
#: argument given: the ahead-of-time module knows no defaults)
LOOPS: dict[str, tuple[Arg, ...]] = {
    "seed_random": (INT,),
    "patchmatch_pass": (IMAGE, MASK, CENTRES, FIELD, INT, BOOL, INT, INT, INT, INT),
    "vote": (IMAGE, MASK, WEIGHTS, CENTRES, FIELD, INT, FLOAT),
    "carry_field": (IMAGE, MASK, CENTRES, FIELD, CENTRES, FIELD, INT, INT),
    "refresh_distances": (IMAGE, CENTRES, FIELD, INT),
    "relax": (IMAGE, MASK, INT, FLOAT),
    "repeat_labels": (IMAGE, MASK, MASK, INDICES, INDICES, INT, INT, FLOAT),
}

_NUMBERS: dict[str, tuple[type, ...]] = {
    INT: (int, np.integer),
    FLOAT: (float, int, np.floating, np.integer),
}


def _check(loop: str, position: int, value: object, expected: Arg) -> None:
    def wrong(what: str) -> TypeError:
        return TypeError(f"{loop}: argument {position + 1} {what}, not {value!r:.60}")

    if isinstance(expected, ArrayArg):
        if not isinstance(value, np.ndarray):
            raise wrong("must be a numpy array")
        if value.dtype != np.dtype(expected.dtype) or value.ndim != expected.ndim:
            raise wrong(f"must be {expected.dtype} of {expected.ndim} dimensions")
        if not value.flags.c_contiguous or not value.flags.aligned:
            raise wrong("must be C-contiguous and aligned")
    elif isinstance(expected, tuple):
        if not isinstance(value, tuple) or len(value) != len(expected):
            raise wrong(f"must be a tuple of {len(expected)}")
        for item, inner in zip(value, expected, strict=True):
            _check(loop, position, item, inner)
    elif expected == BOOL:
        if not isinstance(value, bool | np.bool_):
            raise wrong("must be a bool")
    elif isinstance(value, bool) or not isinstance(value, _NUMBERS[expected]):
        raise wrong(f"must be {'an int' if expected == INT else 'a float'}")


class Loops(Protocol):
    """What a repair calls, with the arguments of ``LOOPS``."""

    def seed_random(self, seed: int) -> None: ...
    def patchmatch_pass(self, *args: Any) -> None: ...
    def vote(self, *args: Any) -> np.ndarray: ...
    def carry_field(self, *args: Any) -> None: ...
    def refresh_distances(self, *args: Any) -> None: ...
    def relax(self, *args: Any) -> None: ...
    def repeat_labels(self, *args: Any) -> np.ndarray: ...


class _Checked:
    """The ahead-of-time module's loops, each argument held to ``LOOPS`` before the call."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def _call(self, loop: str, args: tuple[Any, ...]) -> Any:
        expected = LOOPS[loop]
        if len(args) != len(expected):
            raise TypeError(f"{loop}: {len(expected)} arguments, not {len(args)}")
        for position, (value, arg) in enumerate(zip(args, expected, strict=True)):
            _check(loop, position, value, arg)
        function: Callable[..., Any] = getattr(self.module, loop)
        return function(*args)

    def seed_random(self, seed: int) -> None:
        self._call("seed_random", (seed,))

    def patchmatch_pass(self, *args: Any) -> None:
        self._call("patchmatch_pass", args)

    def vote(self, *args: Any) -> np.ndarray:
        voted: np.ndarray = self._call("vote", args)
        return voted

    def carry_field(self, *args: Any) -> None:
        self._call("carry_field", args)

    def refresh_distances(self, *args: Any) -> None:
        self._call("refresh_distances", args)

    def relax(self, *args: Any) -> None:
        self._call("relax", args)

    def repeat_labels(self, *args: Any) -> np.ndarray:
        labels: np.ndarray = self._call("repeat_labels", args)
        return labels


def _ahead_of_time() -> _Checked | None:
    if importlib.util.find_spec(AHEAD_OF_TIME_MODULE) is None:
        return None
    return _Checked(importlib.import_module(AHEAD_OF_TIME_MODULE))


def unavailable_reason() -> str | None:
    """Why the loops cannot run here (neither compiled ahead nor numba), else None."""
    if importlib.util.find_spec(AHEAD_OF_TIME_MODULE) or importlib.util.find_spec("numba"):
        return None
    return "needs numba (pip install numba), which is not installed here"


@functools.cache
def compiled_loops() -> Loops:
    """The loops of ``LOOPS``: compiled ahead of time where the bundle carries them, else
    numba's (``patchmatch_kernels``, compiled on first use and cached on disk). Called
    with every argument of ``LOOPS`` in order."""
    checked = _ahead_of_time()
    if checked is not None:
        return checked
    from sabre_desk.imaging import patchmatch_kernels

    numba_loops: Loops = patchmatch_kernels
    return numba_loops


def compiled_ahead() -> bool:
    """Whether the loops this install runs were compiled ahead of time (the bundle's):
    then nothing is left to compile, or to load from a cache, before the first repair."""
    return isinstance(compiled_loops(), _Checked)
