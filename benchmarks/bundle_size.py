"""The standalone bundle's size, by what takes the room, and how long a build takes.

Sizes count each file once (links are not followed, as `du` counts them), in MiB as `du -sh`
prints them. With --build N, packaging/build.sh first builds each spec N times, the specs
interleaved (each a clean build into dist/compare/<spec>/, pip's cache warm); the build times
are printed with the load average before and after each (the machine is shared).

With --archive, each folder is also packed as a .tar.gz (what a user downloads), its size
printed.

Usage: python benchmarks/bundle_size.py [--archive] [FOLDER ...]      (default dist/sabre-desk)
       python benchmarks/bundle_size.py --build N [--spec S.spec ...] (default the project's)
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MIB = 1024 * 1024

#: (what, test on the path inside the bundle's folder), first match wins.
GROUPS: list[tuple[str, tuple[str, ...]]] = [
    (
        "OpenCV: cv2, and the libraries PyPI's wheel links (OpenBLAS, FFmpeg, AV1, VPX)",
        ("cv2/", "opencv_contrib_python_headless.libs/"),
    ),
    ("numba and its LLVM (llvmlite)", ("numba/", "llvmlite/")),
    ("the patch-based engine's loops, compiled ahead", ("sabre_desk_compiled_loops",)),
    ("matplotlib (its fonts, kiwisolver)", ("matplotlib/", "kiwisolver/", "mpl_toolkits/")),
    ("numpy and its OpenBLAS", ("numpy/", "numpy.libs/")),
    ("ICU, Qt's Unicode tables (libQt6Core links it)", ("PySide6/Qt/lib/libicu",)),
    ("Qt libraries", ("PySide6/Qt/lib/",)),
    ("Qt plugins", ("PySide6/Qt/plugins/",)),
    ("Qt translations", ("PySide6/Qt/translations/",)),
    ("Qt's Python bindings (PySide6, shiboken6)", ("PySide6/", "shiboken6/")),
    ("Python: libpython, standard library extensions", ("libpython", "python3")),
    ("Pillow", ("PIL/", "pillow.libs/")),
    ("cryptography (google-auth's optional backend)", ("cryptography",)),
    ("pydantic-core", ("pydantic_core/",)),
]
SYSTEM_LIBS = "system libraries copied from the build machine (GTK, X11, glib, OpenSSL…)"
EXECUTABLES = "the executables (each embeds the Python modules, compressed)"


def group_of(relative: str) -> str:
    inside = relative.removeprefix("_internal/")
    if inside == relative:
        return EXECUTABLES
    for name, prefixes in GROUPS:
        if inside.startswith(prefixes):
            return name
    if "/" not in inside and inside.startswith("lib"):
        return SYSTEM_LIBS
    return "everything else (Python packages' data, base_library.zip…)"


def sizes(folder: Path) -> Counter[str]:
    by_group: Counter[str] = Counter()
    for dirpath, _, files in os.walk(folder):
        for name in files:
            path = Path(dirpath) / name
            if not path.is_symlink():
                by_group[group_of(path.relative_to(folder).as_posix())] += path.stat().st_size
    return by_group


def load() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def build(times: int, specs: list[Path]) -> list[Path]:
    """Build each spec *times* times, interleaved; the folders built."""
    seconds: dict[Path, list[float]] = {spec: [] for spec in specs}
    for run in range(times):
        for spec in specs:
            before = load()
            started = time.perf_counter()
            dist = ROOT / "dist" / "compare" / spec.stem
            script = ROOT / "packaging" / "build.sh"
            subprocess.run(["bash", str(script), str(spec), str(dist)], check=True, cwd=ROOT)
            seconds[spec].append(time.perf_counter() - started)
            took = seconds[spec][-1]
            print(f"{spec.name} build {run + 1}: {took:.0f} s (load average {before} -> {load()})")
    for spec, runs in seconds.items():
        print(f"{spec.name}: build time median {statistics.median(runs):.0f} s of {times}")
    return [ROOT / "dist" / "compare" / spec.stem / "sabre-desk" for spec in specs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path)
    parser.add_argument("--build", type=int, default=0, metavar="N")
    parser.add_argument("--spec", type=Path, action="append", default=[])
    parser.add_argument("--archive", action="store_true")
    args = parser.parse_args()
    folders = args.folders or [ROOT / "dist" / "sabre-desk"]
    if args.build:
        specs = [s.resolve() for s in args.spec] or [ROOT / "packaging" / "sabre-desk.spec"]
        folders = build(args.build, specs)
    for folder in folders:
        by_group = sizes(folder)
        print(f"\n{folder}: {sum(by_group.values()) / MIB:.0f} MiB")
        print("| MiB | what |\n|---:|---|")
        for name, size in by_group.most_common():
            print(f"| {size / MIB:.1f} | {name} |")
        if args.archive:
            with tempfile.TemporaryDirectory() as tmp:
                packed = shutil.make_archive(f"{tmp}/bundle", "gztar", folder.parent, folder.name)
                print(f"as .tar.gz: {Path(packed).stat().st_size / MIB:.0f} MiB")


if __name__ == "__main__":
    main()
