"""What signing the previews costs: a preview read at fit zoom with and without checking
its MAC, and the MAC check alone, on the preview of one 2048×2048 image.

Usage: python benchmarks/preview_signing.py [--reads 50]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image


def timed(call: Callable[[], object], reads: int) -> float:
    """Median milliseconds of *reads* calls."""
    times = []
    for _ in range(reads):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reads", type=int, default=50)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="preview-signing-"))
    os.environ["SABRE_DESK_CACHE_DIR"] = str(folder / "user-cache")
    from sabre_desk.core.case.preview_cache import PreviewStore, stamp
    from sabre_desk.imaging.preview_file import decode_preview, signed_header

    yy, xx = np.mgrid[0:2048, 0:2048]
    picture = np.stack([xx % 256, yy % 256, (xx * yy) % 256], axis=2).astype(np.uint8)
    source = folder / "base.png"
    Image.fromarray(picture).save(source)
    store = PreviewStore(folder / "previews")
    store.make(source)
    found = stamp(source)
    assert found is not None
    data = store.file_for(found).read_bytes()
    signed = timed(lambda: decode_preview(data, None, 0.2, store.key), args.reads)
    unsigned = timed(lambda: decode_preview(data, None, 0.2, None), args.reads)
    mac = timed(lambda: signed_header(data, store.key), args.reads)
    print(f"preview of a 2048×2048 image: {len(data) / 2**20:.2f} MB")
    print(f"read at fit zoom, MAC checked: {signed:.1f} ms (median of {args.reads})")
    print(f"read at fit zoom, unsigned:    {unsigned:.1f} ms")
    print(f"the MAC check alone:           {mac:.1f} ms ({mac / signed:.0%} of a signed read)")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
