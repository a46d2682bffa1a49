"""Time opening and indexing a large project, and loading one case's metadata.

Generates projects of 1k / 10k / 100k cases (tiny hard-linked images, a review for every
third case) in a temp folder, then, each in a fresh subprocess so memory is that of a real
start: open + index (best of 3, warm file cache), peak resident memory, and load_case for
200 random cases. ``--screened`` gives every case a screening run (and its brief), as after
`sabre-desk screen`, so the index also tells each case's filter status.
Usage: python benchmarks/index_speed.py [--sizes 1000,10000,100000] [--screened]
"""

from __future__ import annotations

import argparse
import hashlib
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


def screening_files(folder: Path, template: Path) -> None:
    """A screening run as `screen` writes it (four probes, both images), and its brief."""
    from sabre_desk.core.case.screening import BRIEF_NAME, brief_of

    digest = hashlib.sha256(template.read_bytes()).hexdigest()
    st = template.stat()
    seen = {"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
    run = {
        "model": "gemini-3.5-flash",
        "at": "2026-11-29T15:00:00Z",
        "engine": "gemini",
        "prompt_version": "v1",
        "config": {"temperature": 0.0, "max_output_tokens": 16},
        "images": {r: {"file": f"{r}.png", **seen} for r in ("base", "edited")},
        "gate": "kept",
        "results": {
            q["probe_id"]: {
                "question": q["prompt"],
                "answer": q["answer"],
                "eval_type": q["eval_type"],
                "response": "Yes.",
                "parsed": "yes",
                "correct": q["answer"] == "yes",
                "usage": {"input": 270, "output": 2, "image": 258, "thoughts": 5},
            }
            for q in SPEC["questions"]
        },
    }
    (folder / "screening.json").write_text(json.dumps({"runs": [run]}, indent=2))
    screening = (folder / "screening.json").stat()
    brief = {
        "screening": {"size": screening.st_size, "mtime_ns": screening.st_mtime_ns},
        "run": brief_of(run),
    }
    (folder / BRIEF_NAME).write_text(json.dumps(brief, indent=2))


def make_project(root: Path, n: int, screened: bool = False) -> None:
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
        if screened:
            screening_files(folder, png)
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
from sabre_desk.core.case.project import Project
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
screened = sum(getattr(e, "screening", None) not in (None, "not_screened") for e in project.entries)
print(json.dumps({"cases": len(ids), "index_s": min(times), "peak_rss_mb": peak / 1024,
                  "screened": screened,
                  "rss_after_imports_mb": rss_before / 1024,
                  "reviewed": sum(e.decision is not None for e in project.entries),
                  "load_median_ms": statistics.median(loads) * 1e3,
                  "load_p95_ms": loads[int(len(loads) * 0.95) - 1] * 1e3}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--screened", action="store_true", help="every case has a screening run and its brief"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    print(
        f"{'cases':>8} {'index (s)':>10} {'per case (µs)':>14} {'peak RSS (MB)':>14} "
        f"{'load median (ms)':>17} {'load p95 (ms)':>14}"
    )
    with tempfile.TemporaryDirectory(prefix="sabre-bench-") as tmp:
        for n in sizes:
            root = Path(tmp) / f"p{n}"
            make_project(root, n, args.screened)
            out = subprocess.run(
                [sys.executable, "-c", MEASURE, str(root)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            r = json.loads(out)
            assert r["cases"] == n and r["reviewed"] == (n + 2) // 3
            assert r["screened"] == (n if args.screened else 0), r
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
