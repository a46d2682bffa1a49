"""Export 1,000 accepted cases (two 1024×1024 PNGs each) and score 10,000 predictions.

Usage: python benchmarks/release_speed.py [--cases 1000] [--predictions 10000]
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

sys.path.insert(0, str(Path(__file__).parent))
from case_switch import photo_like

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.scoring import PROBES, Sample, score
from sabre_desk.core.release.export import export


def make_project(root: Path, n: int) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 1, "name": "export bench"})
    )
    pngs = []
    for k in range(4):
        buf = io.BytesIO()
        Image.fromarray(photo_like(1024, k)).save(buf, "PNG")
        path = root / f"t{k}.png"
        path.write_bytes(buf.getvalue())
        pngs.append(path)
    answers = ("yes", "no", "no", "yes")
    for i in range(n):
        folder = root / "cases" / f"case{i:05d}"
        (folder / "reviews").mkdir(parents=True)
        spec = {
            "concept_id": f"c{i}",
            "pressure_test_type": "context_prior",
            "generation_mode": "paired_edit",
            "base_prompt": "b",
            "edit_prompt": "e",
            "questions": [
                {
                    "probe_id": p,
                    "image_role": p.split("_")[0],
                    "question_type": "yes_no",
                    "prompt": f"{p}?",
                    "answer": a,
                    "eval_type": "yes_no_exact",
                }
                for p, a in zip(PROBES, answers, strict=True)
            ],
        }
        (folder / "spec.json").write_text(json.dumps(spec))
        os.link(pngs[i % 4], folder / "base.png")  # distinct files: every copy is real I/O
        (folder / "edited.png").write_bytes(pngs[(i + 1) % 4].read_bytes())
        (folder / "reviews" / "bench.json").write_text(
            json.dumps({"case_id": folder.name, "reviewer": "bench", "decision": "keep"})
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--predictions", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sabre-release-") as tmp:
        root = Path(tmp) / "project"
        make_project(root, args.cases)
        project = Project.open(root, "bench")
        t0 = time.perf_counter()
        summary = export(project, Path(tmp) / "release")
        elapsed = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in (Path(tmp) / "release").rglob("*") if p.is_file())
    print(
        f"export of {summary.cases} cases ({summary.images} images of 1024×1024, "
        f"{summary.questions} questions, {size / 1e9:.2f} GB with the VLMEvalKit TSVs): "
        f"{elapsed:.1f} s"
    )
    rng = np.random.default_rng(0)
    samples = []
    subsets = ["context_prior", "texture_prior", "counting", "spatial", "attribute_count"]
    for i in range(args.predictions // 4):
        subset = subsets[i % len(subsets)]
        for p, a in zip(PROBES, ("yes", "no", "no", "yes"), strict=True):
            samples.append(
                Sample(
                    f"q{i}:{p}",
                    f"case{i}",
                    subset,
                    p,
                    "yes_no_exact",
                    a,
                    "Yes." if rng.random() < 0.6 else "No.",
                )
            )
    t0 = time.perf_counter()
    report = score(samples)
    elapsed = time.perf_counter() - t0
    print(
        f"scoring {len(samples)} predictions with 20,000 bootstrap resamples: "
        f"{elapsed:.2f} s (average {report.macro_all:.3f})"
    )


if __name__ == "__main__":
    main()
