"""Time and memory of the commands a hostile or oversized file used to hang or exhaust.

1. `validate` on a project whose history.jsonl is 1 GB of garbage lines.
2. `repair` (opencv-telea, remove) of a 4000×4000 box on a 99 MP image.

Each runs as the real CLI in a fresh process; peak resident memory is the child's own.
Usage: python benchmarks/hostile_inputs.py [--history-mb 1024] [--side 9950] [--box 4000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from factories import yes_no_spec

PEAK = (
    "import sys\n"
    "from sabre_desk.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "peak = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
    "print(f'peak-rss-kb {peak}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run(*args: str, home: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home)}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK, *args], capture_output=True, text=True, env=env
    )
    elapsed = time.perf_counter() - start
    peak = int(done.stderr.rsplit("peak-rss-kb ", 1)[1].split()[0]) / 1024
    return elapsed, peak, done


def make_project(root: Path) -> Path:
    (root / "cases").mkdir(parents=True)
    manifest = {"format": "sabre-desk-project", "version": 1, "name": "hostile"}
    (root / "sabre-project.json").write_text(json.dumps(manifest))
    return root


def history_case(root: Path, megabytes: int) -> None:
    folder = root / "cases" / "c1"
    folder.mkdir()
    (folder / "spec.json").write_text(json.dumps(yes_no_spec("c1")))
    for name in ("base.png", "edited.png"):
        Image.new("RGB", (64, 48), (90, 140, 200)).save(folder / name)
    garbage = b"\x00\xff not json at all \x01\x02 " * 3 + b"\n"
    block = garbage * ((1 << 20) // len(garbage) + 1)
    with (folder / "history.jsonl").open("wb") as fh:
        for _ in range(megabytes):
            fh.write(block[: 1 << 20])


def large_image_case(root: Path, side: int) -> None:
    folder = root / "cases" / "big"
    folder.mkdir()
    (folder / "spec.json").write_text(json.dumps(yes_no_spec("big")))
    ramp = np.linspace(0, 255, side, dtype=np.float32)
    pixels = np.empty((side, side, 3), np.uint8)
    pixels[..., 0] = ramp[None, :]
    pixels[..., 1] = ramp[:, None]
    pixels[..., 2] = 128
    image = Image.fromarray(pixels)
    image.save(folder / "base.png", compress_level=1)
    image.save(folder / "edited.png", compress_level=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--history-mb", type=int, default=1024)
    parser.add_argument("--side", type=int, default=9950, help="image side (9950² ≈ 99 MP)")
    parser.add_argument("--box", type=int, default=4000, help="repair box side in pixels")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        root = make_project(Path(tmp) / "project")
        history_case(root, args.history_mb)
        seconds, peak, done = run("validate", str(root), home=home)
        lines = sum("history.jsonl" in line for line in done.stdout.splitlines())
        print(
            f"validate, {args.history_mb} MB garbage history.jsonl: {seconds:.1f} s, "
            f"peak RSS {peak:.0f} MB, {lines} history lines printed, exit {done.returncode}"
        )
        large_image_case(root, args.side)
        x0 = (args.side - args.box) / 2 / args.side
        x1 = (args.side + args.box) / 2 / args.side
        box = f"{x0:.4f},{x0:.4f},{x1:.4f},{x1:.4f}"
        seconds, peak, done = run(
            "repair",
            str(root),
            "big",
            "--box",
            box,
            "--op",
            "remove",
            "--engine",
            "opencv-telea",
            home=home,
        )
        print(
            f"repair of a {args.box}² box on a {args.side}² ({args.side**2 / 1e6:.0f} MP) image, "
            f"opencv-telea: {seconds:.1f} s, peak RSS {peak:.0f} MB, exit {done.returncode}"
        )
        for line in (done.stdout + done.stderr).splitlines():
            if "peak-rss" not in line:
                print("   ", line)


if __name__ == "__main__":
    main()
