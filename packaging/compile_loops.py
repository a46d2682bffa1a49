"""Compile the patch-based engine's loops ahead of time, for the standalone bundle.

    python packaging/compile_loops.py OUTPUT_FOLDER

writes the extension module ``sabre_desk_compiled_loops`` into OUTPUT_FOLDER: the loops of
``sabre_desk/imaging/patchmatch_kernels.py`` compiled by numba's ahead-of-time compiler
(``numba.pycc``) for exactly the argument types of ``sabre_desk.imaging.loops.LOOPS``. The
module needs numpy but neither numba nor LLVM at run time, so the bundle leaves both out
(171 MiB). Run in an environment that has numba and a C compiler (the bundle's build
environment); ``packaging/build.sh`` runs it.

Two choices differ from numba's defaults for this compiler, both so the module behaves as
the loops do in a pip install: every loop lets go of the interpreter lock while it runs, as
``nogil=True`` does for the compiled-as-it-runs loops (the search for what stands out runs
two of them on two threads), and the code is for any x86-64 (or arm64) processor, not the
build machine's (``CC.target_cpu`` left empty), since the bundle runs elsewhere.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path


def numba_type(arg: object) -> object:
    """The numba type of one entry of ``LOOPS``."""
    from numba import types

    from sabre_desk.imaging.loops import BOOL, FLOAT, INT, ArrayArg

    if isinstance(arg, ArrayArg):
        return types.Array(
            getattr(types, arg.dtype if arg.dtype != "bool" else "boolean"), arg.ndim, "C"
        )
    if isinstance(arg, tuple):
        return types.Tuple.from_types([numba_type(item) for item in arg])
    return {INT: types.int64, FLOAT: types.float64, BOOL: types.boolean}[arg]


def main(output: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc says it is deprecated on import
        from numba.pycc import CC
        from numba.pycc import compiler as pycc_compiler

    from sabre_desk.imaging import patchmatch_kernels
    from sabre_desk.imaging.loops import AHEAD_OF_TIME_MODULE, LOOPS

    class LoopsLetGoOfTheLock(pycc_compiler.Flags):  # type: ignore[misc,name-defined]
        """The flags pycc compiles every export with, plus nogil's."""

        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    pycc_compiler.Flags = LoopsLetGoOfTheLock
    output.mkdir(parents=True, exist_ok=True)
    cc = CC(AHEAD_OF_TIME_MODULE)
    cc.output_dir = str(output)
    cc.verbose = False
    for name, args in LOOPS.items():
        dispatcher = getattr(patchmatch_kernels, name)
        arg_types = tuple(numba_type(arg) for arg in args)
        dispatcher.compile(arg_types)  # numba infers what the loop returns
        signature = dispatcher.overloads[arg_types].signature
        cc.export(name, signature)(dispatcher.py_func)
    cc.compile()
    built = sorted(output.glob(f"{AHEAD_OF_TIME_MODULE}.*"))
    print(f"compiled {len(LOOPS)} loops into {', '.join(str(path) for path in built)}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(Path(sys.argv[1]))
