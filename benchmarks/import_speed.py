"""Time `sabre-desk import` of 10,000 specification rows with their images.

Writes a JSONL of N paired-edit specifications whose Base and Edited are distinct 256×256
PNGs (so every row copies two real files), then runs the import in a fresh process and
prints the wall time, the rate, and the peak resident memory; then the same import again
(every row already there: the idempotent re-run). Usage:
python benchmarks/import_speed.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

SPEC = {
    "pressure_test_type": "custom_yes_no",
    "generation_mode": "paired_edit",
    "base_prompt": "a workbench with a roll of tape",
    "edit_prompt": "replace the tape with a bagel",
    "questions": [
        {
            "probe_id": "edited_target",
            "image_role": "edited",
            "question_type": "yes_no",
            "prompt": "Is there a bagel in the image?",
            "answer": "yes",
            "eval_type": "yes_no_exact",
        }
    ],
}

RUN = """
import resource, sys, time
from pathlib import Path
from sabre_desk.core.making.importing import import_cases
start = time.perf_counter()
report = import_cases(Path(sys.argv[1]), Path(sys.argv[2]))
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(len(report.imported), len(report.unchanged), len(report.problems), took, peak)
"""


def png(seed: int) -> bytes:
    rng = np.random.default_rng(seed)
    pixels = rng.integers(0, 255, (256, 256, 3), dtype=np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    rows = parser.parse_args().rows
    with tempfile.TemporaryDirectory() as tmp:
        root, source = Path(tmp) / "project", Path(tmp) / "made"
        subprocess.run(
            [sys.executable, "-m", "sabre_desk", "init", str(root)], check=True, capture_output=True
        )
        (source / "img").mkdir(parents=True)
        with (source / "cases.jsonl").open("w") as out:
            for i in range(rows):
                for role in ("base", "edited"):
                    (source / "img" / f"{i}_{role}.png").write_bytes(png(i * 2 + (role == "base")))
                row = {
                    **SPEC,
                    "concept_id": f"case_{i:05d}",
                    "images": {"base": f"img/{i}_base.png", "edited": f"img/{i}_edited.png"},
                }
                out.write(json.dumps(row) + "\n")
        size = sum(p.stat().st_size for p in (source / "img").iterdir()) / 1e6
        print(f"{rows:,} rows, {2 * rows:,} images ({size:,.0f} MB)")
        for label in ("import", "again (nothing new)"):
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", RUN, str(root), str(source / "cases.jsonl")],
                check=True,
                capture_output=True,
                text=True,
            )
            wall = time.perf_counter() - started
            imported, unchanged, failed, took, peak = done.stdout.split()
            print(
                f"{label:22} {float(took):6.1f} s ({rows / float(took):,.0f} rows/s; process "
                f"{wall:.1f} s)  imported {imported}, unchanged {unchanged}, failed {failed}, "
                f"peak memory {float(peak):,.0f} MB"
            )


if __name__ == "__main__":
    main()
