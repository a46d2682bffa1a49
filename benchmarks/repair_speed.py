"""Repair figures: blend + paste time, seam quality (soft vs hard), GUI stalls under load.

1. Blend and paste of a 1024×1024 patch into a 2048×2048 image (mask, float blend, paste),
   median of 30, with the float blend alone beside it.
2. Seam score (gradient energy in the mask's transition band, relative to the original)
   for a soft blend and a hard paste of the same patch, on photo-like demo scenes where the
   engine's reply is slightly off in brightness, as generative replies are.
3. Largest GUI-thread stall while 8 repair jobs run through the window's own job pool, with
   an engine that takes 1 s per patch.

Usage: python benchmarks/repair_speed.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from sabre_desk.core.desk.workbench import Go
from sabre_desk.engines.pipeline import RepairOrder

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

from sabre_desk.demo.writer import build_demo_cases
from sabre_desk.engines.base import EngineReply, EngineRequest
from sabre_desk.imaging.blend import (
    OpenSides,
    blend,
    hard_paste_mask,
    paste,
    seam_score,
    soft_mask,
)
from sabre_desk.imaging.patch import PixelRect


def blend_timing() -> tuple[float, float]:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (2048, 2048, 3), dtype=np.uint8)
    reply = rng.integers(0, 255, (1024, 1024, 3), dtype=np.uint8)
    rect = PixelRect(512, 512, 1536, 1536)
    box = PixelRect(256, 256, 768, 768)
    total, blend_only = [], []
    for _ in range(30):
        t0 = time.perf_counter()
        mask = soft_mask((1024, 1024), box, 20, 77, OpenSides())
        patch = image[rect.slices]
        t1 = time.perf_counter()
        out = blend(patch, reply, mask)
        t2 = time.perf_counter()
        paste(image, out, rect)
        t3 = time.perf_counter()
        total.append((t3 - t0) * 1e3)
        blend_only.append((t2 - t1) * 1e3)
    return statistics.median(total), statistics.median(blend_only)


def seam_figures() -> list[tuple[str, float, float]]:
    rows = []
    rng = np.random.default_rng(1)
    for case in build_demo_cases():
        image = case.images.get("edited", case.images.get("image"))
        h, w = image.shape[:2]
        box = PixelRect(w // 3, h // 2, w // 3 + 90, h // 2 + 70)
        rect = PixelRect(box.x0 - 60, box.y0 - 60, box.x1 + 60, box.y1 + 60)
        patch = image[rect.slices]
        # A plausible generative reply: the scene, re-rendered 6 % brighter with fresh noise.
        reply = np.clip(patch.astype(np.float32) * 1.06 + rng.normal(0, 3, patch.shape), 0, 255)
        reply = reply.astype(np.uint8)
        inner = box.relative_to(rect)
        soft = soft_mask(patch.shape[:2], inner, 3, 14, OpenSides())
        hard = hard_paste_mask(patch.shape[:2], inner)
        rows.append(
            (
                case.case_id,
                seam_score(patch, blend(patch, reply, soft), soft),
                seam_score(patch, blend(patch, reply, hard), hard),
            )
        )
    return rows


class SlowEngine:
    """Answers after a second, as a remote image model would (the work is a sleep)."""

    name = "slow-fake"
    label = "a remote model that takes a second"
    ops = frozenset({"remove", "swap", "clean", "restore"})
    params = ()
    cpu_bound = False  # it waits, as on a network: the window runs it on a thread
    uses_network = False

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None

    def close(self) -> None:
        """Nothing is held between repairs."""

    def repair(self, request: EngineRequest) -> EngineReply:
        request.cancel.wait(1.0)
        return EngineReply(np.full_like(request.patch, 128))


def gui_stall(jobs: int = 8) -> tuple[float, float, int]:
    from stall_meter import StallMeter

    from sabre_desk.demo.writer import write_demo_project
    from sabre_desk.gui.app import make_app
    from sabre_desk.gui.main_window import MainWindow
    from sabre_desk.imaging.blend import BlendParams
    from sabre_desk.settings import Settings

    with tempfile.TemporaryDirectory(prefix="sabre-repair-") as tmp:
        os.environ["SABRE_DESK_CONFIG_DIR"] = str(Path(tmp) / "config")
        root = write_demo_project(Path(tmp) / "demo")
        app = make_app()
        window = MainWindow("bench", Settings(pool_size=4))
        window.show()
        window.open_project(root, "ctx03_wrench_banana")
        deadline = time.perf_counter() + 3
        while time.perf_counter() < deadline:
            app.processEvents()
        ids = [e.case_id for e in window.project.entries]
        landed = threading.Event()
        count = [0]

        def on_landed(*_: object) -> None:
            count[0] += 1
            if count[0] == jobs:
                landed.set()

        window.repair_ui.jobs.landed.connect(on_landed)
        meter = StallMeter()
        meter.start()
        for i in range(jobs):  # on several cases, while the reviewer keeps moving
            case = window.project.load_case(ids[i % len(ids)])
            role = case.spec.image_roles[-1]
            window.repair_ui.jobs.submit(
                case,
                role,
                RepairOrder((0.3, 0.4, 0.5, 0.6), "remove", "x", BlendParams()),
                SlowEngine(),
            )
        t0 = time.perf_counter()
        while not landed.is_set() and time.perf_counter() - t0 < 60:
            app.processEvents()
            if int((time.perf_counter() - t0) * 4) % 2 == 0:
                window.case_list.go(Go.NEXT)
        elapsed = time.perf_counter() - t0
        meter.stop()
        gaps = meter.gaps
        window.close()
        return max(gaps), elapsed, count[0]


def main() -> None:
    total, blend_only = blend_timing()
    print("blend and paste, 1024×1024 patch into a 2048×2048 image (median of 30):")
    print(f"  mask + blend + paste {total:6.1f} ms   (float blend alone {blend_only:.1f} ms)")
    rows = seam_figures()
    print("seam score in the transition band (1.0 = as in the original; lower is better):")
    print(f"  {'case':28} {'soft blend':>10} {'hard paste':>10}")
    for case_id, soft, hard in rows:
        print(f"  {case_id:28} {soft:10.2f} {hard:10.2f}")
    soft_m = statistics.median(r[1] for r in rows)
    hard_m = statistics.median(r[2] for r in rows)
    print(f"  {'median':28} {soft_m:10.2f} {hard_m:10.2f}")
    stall, elapsed, done = gui_stall()
    print(
        f"8 repair jobs (1 s each, pool of 4) while switching cases: {done} landed in "
        f"{elapsed:.1f} s; largest GUI-thread stall {stall:.1f} ms"
    )


if __name__ == "__main__":
    main()
