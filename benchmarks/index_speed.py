"""Time opening and indexing a large project, and loading one case's metadata.

Generates projects of 1k / 10k / 100k cases (tiny hard-linked images, a review for every
third case) in a temp folder, then, each in a fresh subprocess so memory is that of a real
start: open + index (best of 3, warm file cache), peak resident memory, and load_case for
200 random cases. Usage: python benchmarks/index_speed.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

SPEC = {
    "concept_id": "",
    "pressure_test_type": "context_prior",
    "objective": "benchmark",
    "generation_mode": "paired_edit",
    "base_prompt": "a workbench with a roll of tape",
    "edit_prompt": "replace the tape with a bagel",
    "task_attributes": [
        {"name": "source_entity", "value": "roll of tape"},
        {"name": "target_entity", "value": "bagel"},
    ],
    "questions": [
        {
            "probe_id": p,
            "image_role": p.split("_")[0],
            "question_type": "yes_no",
            "prompt": "Is it visible?",
            "answer": a,
            "eval_type": "yes_no_exact",
        }
        for p, a in (
            ("base_source", "yes"),
            ("base_target", "no"),
            ("edited_source", "no"),
            ("edited_target", "yes"),
        )
    ],
    "review_targets": [{"label": "target", "image_role": "edited", "description": "the bagel"}],
    "generation_notes": ["keep everything else"],
}


def make_project(root: Path, n: int) -> None:
    root.mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 1, "name": f"bench {n}"})
    )
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (120, 130, 140)).save(buf, "PNG")
    cases = root / "cases"
    cases.mkdir()
    for i in range(n):
        png = root / f"template{i // 30_000}.png"  # filesystems cap hard links per file
        if i % 30_000 == 0:
            png.write_bytes(buf.getvalue())
        folder = cases / f"case{i:06d}"
        folder.mkdir()
        spec = dict(SPEC, concept_id=f"concept{i:06d}")
        (folder / "spec.json").write_text(json.dumps(spec, indent=2))
        os.link(png, folder / "base.png")
        os.link(png, folder / "edited.png")
        if i % 3 == 0:
            (folder / "reviews").mkdir()
            (folder / "reviews" / "bench.json").write_text(
                json.dumps(
                    {
                        "format": "sabre-desk-review",
                        "version": 1,
                        "case_id": folder.name,
                        "reviewer": "bench",
                        "decision": "keep",
                        "notes": "",
                        "boxes": [],
                    }
                )
            )


MEASURE = """
import json, random, resource, statistics, sys, time
from sabre_desk.core.project import Project
root = sys.argv[1]
rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
for _ in range(3):
    t0 = time.perf_counter()
    project = Project.open(root, "bench")
    times.append(time.perf_counter() - t0)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
ids = [e.case_id for e in project.entries]
random.seed(1)
loads = []
for case_id in random.sample(ids, min(200, len(ids))):
    t0 = time.perf_counter()
    project.load_case(case_id)
    loads.append(time.perf_counter() - t0)
loads.sort()
print(json.dumps({"cases": len(ids), "index_s": min(times), "peak_rss_mb": peak / 1024,
                  "rss_after_imports_mb": rss_before / 1024,
                  "reviewed": sum(e.decision is not None for e in project.entries),
                  "load_median_ms": statistics.median(loads) * 1e3,
                  "load_p95_ms": loads[int(len(loads) * 0.95) - 1] * 1e3}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{'cases':>8} {'index (s)':>10} {'per case (µs)':>14} {'peak RSS (MB)':>14} "
        f"{'load median (ms)':>17} {'load p95 (ms)':>14}"
    )
    with tempfile.TemporaryDirectory(prefix="sabre-bench-") as tmp:
        for n in sizes:
            root = Path(tmp) / f"p{n}"
            make_project(root, n)
            out = subprocess.run(
                [sys.executable, "-c", MEASURE, str(root)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            r = json.loads(out)
            assert r["cases"] == n and r["reviewed"] == (n + 2) // 3
            print(
                f"{n:>8} {r['index_s']:>10.3f} {r['index_s'] / n * 1e6:>14.1f} "
                f"{r['peak_rss_mb']:>14.0f} {r['load_median_ms']:>17.2f} "
                f"{r['load_p95_ms']:>14.2f}",
                flush=True,
            )
    print(
        f"(python {sys.version.split()[0]}, {os.cpu_count()} cores; warm file cache; "
        f"RSS includes the interpreter and imports)"
    )


if __name__ == "__main__":
    main()
