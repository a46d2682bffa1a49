"""What the one rule for validity costs: every image decoded once, then remembered.

Builds a project of N cases (default 100,000; two small PNGs each, distinct bytes; one
decision in five), then prints, each as a whole pass over the project:

- ``validate`` the first time (every image decoded) and again (every verdict remembered);
- ``stats`` (every reviewer's reviews read, validity from the cache), as the command runs it;
- the window's pass at opening (``known_undecodable``: the images known not to decode).

The first pass is a floor set by decoding; what the cache buys is the ratio of the second
to the first. Usage: python benchmarks/validity_speed.py [--cases 100000] [--size 256]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from factories import yes_no_spec

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.case.validity import known_undecodable
from sabre_desk.core.team.ratings import collect
from sabre_desk.core.team.stats import compute_stats


def png(seed: int, size: int) -> bytes:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (size // 8, size // 8, 3), dtype=np.uint8)
    img = Image.fromarray(pixels).resize((size, size), Image.Resampling.NEAREST)
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def build(root: Path, n: int, size: int) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 2, "name": "validity"})
    )
    images = [png(seed, size) for seed in range(64)]
    for i in range(n):
        folder = root / "cases" / f"c{i:06d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(yes_no_spec(concept_id=f"c{i:06d}")))
        # distinct bytes per case (the cache keys on each file, not on its content)
        (folder / "base.png").write_bytes(images[i % 64] + i.to_bytes(4, "big"))
        (folder / "edited.png").write_bytes(images[(i + 1) % 64] + i.to_bytes(4, "big"))
        if i % 5 == 0:
            (folder / "reviews").mkdir()
            review = {"case_id": folder.name, "reviewer": "alice", "decision": "keep"}
            (folder / "reviews" / "alice.json").write_text(json.dumps(review))


def timed(label: str, fn: object) -> float:
    start = time.perf_counter()
    fn()  # type: ignore[operator]
    seconds = time.perf_counter() - start
    print(f"  {label:44} {seconds:8.1f} s", flush=True)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--size", type=int, default=256)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SABRE_DESK_CACHE_DIR"] = str(Path(tmp) / "user-cache")
        root = Path(tmp) / "project"
        print(f"building {args.cases:,} cases ({args.size}² PNGs) …", flush=True)
        build(root, args.cases, args.size)
        print(f"load average at start: {os.getloadavg()[0]:.2f}")

        def validate() -> None:
            assert validate_project(Project.open(root, "alice")).valid

        def stats() -> None:
            project = Project.open(root, "alice")
            counts = compute_stats(project.entries, collect(project)).counts
            assert counts.valid == args.cases and counts.decided_by_me == (args.cases + 4) // 5

        def opening() -> None:
            project = Project.open(root, "alice")
            assert known_undecodable(project, DecodeCache.for_project(root)) == []

        cold = timed("validate, first time (every image decoded)", validate)
        warm = timed("validate again (every verdict remembered)", validate)
        timed("stats (every review read, validity cached)", stats)
        timed("the window's pass at opening (known failures)", opening)
        print(f"  validate again / first time: {warm / cold:.2f}×")
        print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
