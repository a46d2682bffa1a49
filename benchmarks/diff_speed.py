"""Time the change map of a 2048×2048 pair (decode excluded), median of 10.

Usage: python benchmarks/diff_speed.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from case_switch import photo_like

from sabre_desk.imaging.diff import change_map, score_outside


def main() -> None:
    base = photo_like(2048, 7)
    edited = base.copy()
    edited[800:1100, 900:1300] = photo_like(2048, 8)[800:1100, 900:1300]
    edited[200:320, 1700:1850] = np.clip(edited[200:320, 1700:1850].astype(int) + 60, 0, 255)
    times, result = [], None
    for _ in range(10):
        t0 = time.perf_counter()
        result = score_outside(change_map(base, edited), (0.43, 0.38, 0.64, 0.54), "bench")
        times.append((time.perf_counter() - t0) * 1e3)
    assert result is not None
    print(
        f"change map of a 2048×2048 pair: median {statistics.median(times):.0f} ms, "
        f"min {min(times):.0f} ms (work size {result.size[0]}×{result.size[1]}); "
        f"{len(result.regions)} regions, {len(result.outside_regions)} outside the edit"
    )


if __name__ == "__main__":
    main()
