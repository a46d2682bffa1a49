"""How long a 1,000-case release takes to load in Hugging Face ``datasets``.

The release (2,000 PNGs of 1024×1024, 4,000 questions) is exported with --link, then each
given interpreter (one with ``datasets`` installed, e.g. the oldest and the newest) loads
it in a fresh process with an empty cache, twice: the first load builds datasets' Arrow
cache, the second reads it. Then every row's image is decoded once.

Usage: python benchmarks/release_load.py PYTHON_WITH_DATASETS… [--cases 1000]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from release_speed import make_project

from sabre_desk.core.case.project import Project
from sabre_desk.core.release.export import export

LOAD = """
import json, sys, time, datasets
t0 = time.perf_counter()
ds = datasets.load_dataset(sys.argv[1], split="test")
first = time.perf_counter() - t0
t0 = time.perf_counter()
ds = datasets.load_dataset(sys.argv[1], split="test")
cached = time.perf_counter() - t0
t0 = time.perf_counter()
pixels = sum(row["image"].size[0] for row in ds)
decode = time.perf_counter() - t0
print(json.dumps({"version": datasets.__version__, "rows": len(ds), "first": first,
                  "cached": cached, "decode": decode}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("pythons", nargs="+", help="interpreters with datasets installed")
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sabre-load-") as tmp:
        root = Path(tmp) / "project"
        make_project(root, args.cases)
        release = Path(tmp) / "release"
        summary = export(Project.open(root, "bench"), release, link=True)
        print(f"release of {summary.cases} cases, {summary.questions} questions")
        for python in args.pythons:
            cache = Path(tmp) / f"hf-{len(python)}"
            env = {"HF_HOME": str(cache), "HF_DATASETS_OFFLINE": "1", "PATH": "/usr/bin:/bin"}
            out = subprocess.run(
                [python, "-c", LOAD, str(release)],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            ).stdout.splitlines()[-1]
            r = json.loads(out)
            print(
                f"datasets {r['version']}: {r['rows']} rows; first load {r['first']:.1f} s, "
                f"from its cache {r['cached']:.2f} s; decoding every image {r['decode']:.1f} s"
            )


if __name__ == "__main__":
    main()
