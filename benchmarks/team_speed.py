"""What team curation costs: agreement figures, the live poll, bound decisions in the index.

Builds a project of N cases (default 1,000; 1024×1024 PNGs, distinct per case) rated by three
reviewers (every case by two, a fifth by all three, decisions drawn with ~80 % agreement),
each with a history of decisions a minute apart, then prints:

- reading every review and hashing every image once (``ratings.collect``), cold and warm;
- the agreement figures with 1,000 bootstrap resamples, overall and per subset;
- the active-time report over every history;
- one poll of the open case and one look over the whole project (``core.live``);
- indexing with every decision bound to its images, against the same reviews unbound.

Usage: python benchmarks/team_speed.py [--cases 1000] [--size 1024]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from factories import yes_no_spec

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision, utc_now
from sabre_desk.core.team.activity import activity
from sabre_desk.core.team.agreement import agreement
from sabre_desk.core.team.live import ProjectWatch, case_stamp
from sabre_desk.core.team.ratings import collect
from sabre_desk.ground import hashing

SUBSETS = ["context_prior", "texture_prior", "counting", "spatial"]
REVIEWERS = ["alice", "bob", "carol"]


def png(seed: int, size: int) -> bytes:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 256, (size // 2, size // 2, 3), dtype=np.uint8)
    img = Image.fromarray(pixels).resize((size, size), Image.Resampling.NEAREST)
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def build(root: Path, n: int, size: int, bound: bool, images_age_s: float = 3600) -> None:
    """The images are made *images_age_s* before the decisions (negative: after them, as
    in a fresh copy of the folder, where every file is as new as the copy)."""
    rng = random.Random(7)
    root.mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 2, "name": "team bench"})
    )
    decisions = list(Decision)
    for i in range(n):
        folder = root / "cases" / f"c{i:05}"
        (folder / "reviews").mkdir(parents=True)
        spec = yes_no_spec(concept_id=f"c{i:05}", pressure_test_type=SUBSETS[i % 4])
        (folder / "spec.json").write_text(json.dumps(spec))
        hashes = {}
        for role in ("base", "edited"):
            data = png(i * 2 + (role == "edited"), size)
            (folder / f"{role}.png").write_bytes(data)
            made = time.time() - images_age_s
            os.utime(folder / f"{role}.png", (made, made))
            hashes[role] = hashlib.sha256(data).hexdigest()
        truth = rng.choice(decisions[:3])
        raters = REVIEWERS if i % 5 == 0 else rng.sample(REVIEWERS, 2)
        history = []
        for name in raters:
            decision = truth if rng.random() < 0.8 else rng.choice(decisions)
            review = {
                "format": "sabre-desk-review",
                "version": 2,
                "case_id": folder.name,
                "reviewer": name,
                "decision": decision.value,
                "decided_on": hashes if bound else {},
                "decided_at": utc_now(),
            }
            (folder / "reviews" / f"{name}.json").write_text(json.dumps(review))
            minute = i * 3 + REVIEWERS.index(name)
            at = f"2026-11-{29 + minute // 1440:02}T{minute // 60 % 24:02}:{minute % 60:02}:00Z"
            history.append(
                {"at": at, "reviewer": name, "event": "decision", "data": {"to": decision.value}}
            )
        (folder / "history.jsonl").write_text("".join(json.dumps(h) + "\n" for h in history))


def clock(what: str, fn, *args):  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    result = fn(*args)
    elapsed = time.perf_counter() - started
    shown = f"{elapsed:8.3f} s" if elapsed >= 0.1 else f"{elapsed * 1000:8.2f} ms"
    print(f"  {what:62} {shown}")
    return result


def best_index(root: Path) -> float:
    """Open + index as alice, best of 3, no image hash remembered (a fresh start)."""
    times = []
    for _ in range(3):
        hashing._memory.clear()
        started = time.perf_counter()
        Project.open(root, "alice")
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--size", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "bound"
        build(root, args.cases, args.size, bound=True)
        images = list((root / "cases").glob("*/*.png"))
        mb = sum(p.stat().st_size for p in images) / len(images) / 1e6
        print(
            f"{args.cases} cases, two {args.size}×{args.size} PNGs each ({mb:.2f} MB), 3 reviewers"
        )
        project = clock("open + index (decisions bound to their images)", Project.open, root, "x")
        hashing._memory.clear()
        ratings = clock("read every review, hash every image (cold memory)", collect, project)
        clock("the same again (hashes remembered)", collect, project)
        report = clock("agreement, 1,000 resamples, overall + 4 subsets", agreement, ratings)
        print(f"    α (six decisions) {report.overall.alpha.text()}")
        clock("active time over every history", activity, project)
        clock("poll the open case", case_stamp, root / "cases" / "c00000")
        watch = ProjectWatch()
        watch.look(project.entries)
        clock("look over the whole project for changes", watch.look, project.entries)
        unbound, copied = Path(tmp) / "unbound", Path(tmp) / "copied"
        build(unbound, args.cases, args.size, bound=False)
        build(copied, args.cases, args.size, bound=True, images_age_s=-60)
        print("  open + index as alice (2/3 of the cases decided), best of 3, cold hashes:")
        for name, where in (
            ("decisions unbound (format 1)", unbound),
            ("decisions bound to their images", root),
            ("bound, images newer than the decisions (a fresh copy)", copied),
        ):
            print(f"    {name:60} {best_index(where):8.3f} s")


if __name__ == "__main__":
    main()
