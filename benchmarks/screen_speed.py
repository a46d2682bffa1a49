"""Screening throughput against the fake Gemini: 400 probes, 1 s of latency per call.

Builds a project of 100 paired Context cases (four probes each, 1024×1024 PNGs), starts the
fake server of the tests on 127.0.0.1 in a process of its own (so that its JSON parsing does
not compete with the client for one interpreter) with a 1 s delay before every reply, and
screens the
whole project with the real google-genai client at a few concurrency settings (each in a
fresh copy, so nothing comes from the request cache). Reports wall time, requests per
second and the most requests the server had in flight at once; then the same project
again, all from the cache. With ``--gui-stall`` it also screens 1,000 probes from a worker
thread while a 1 ms Qt timer on the GUI thread measures its largest stall.

Usage: python benchmarks/screen_speed.py [--probes 400] [--latency 1.0] [--concurrency 8,16,32]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from fakes.gemini_server import FakeGemini, text_reply  # noqa: E402

from sabre_desk.core.case.project import Project  # noqa: E402
from sabre_desk.core.jobs.ledger import Ledger  # noqa: E402
from sabre_desk.core.screening.prompts import shipped_prompts  # noqa: E402
from sabre_desk.core.screening.request_cache import RequestCache  # noqa: E402
from sabre_desk.core.screening.screen_run import plan_screening, run_screening  # noqa: E402
from sabre_desk.engines.gemini_qa import GeminiAnswerer  # noqa: E402

PROBES = [
    ("base_source", "base", "yes"),
    ("base_target", "base", "no"),
    ("edited_source", "edited", "no"),
    ("edited_target", "edited", "yes"),
]


def png(seed: int) -> bytes:
    """A 1024×1024 render-like image (the paper's 1K outputs): shading, shapes, fine noise;
    about 1 MB as PNG, as a generated image is."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:1024, 0:1024].astype(np.float32) / 1024
    base = np.stack([120 + 90 * xx, 100 + 80 * yy, 140 + 60 * (1 - xx * yy)], axis=2)
    noise = rng.normal(0, 4, (1024, 1024, 1))
    pixels = np.clip(base + noise, 0, 255).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    return buf.getvalue()


def make_project(root: Path, cases: int) -> None:
    (root / "cases").mkdir(parents=True)
    (root / "sabre-project.json").write_text(
        json.dumps({"format": "sabre-desk-project", "version": 1, "name": "screen bench"})
    )
    for i in range(cases):
        folder = root / "cases" / f"case{i:04d}"
        folder.mkdir()
        spec = {
            "concept_id": f"c{i}",
            "pressure_test_type": "context_prior",
            "generation_mode": "paired_edit",
            "base_prompt": "a scene",
            "edit_prompt": "change it",
            "questions": [
                {
                    "probe_id": pid,
                    "image_role": role,
                    "question_type": "yes_no",
                    "prompt": f"Is object {i} visible ({pid})?",
                    "answer": answer,
                    "eval_type": "yes_no_exact",
                }
                for pid, role, answer in PROBES
            ],
        }
        (folder / "spec.json").write_text(json.dumps(spec))
        (folder / "base.png").write_bytes(png(2 * i))
        (folder / "edited.png").write_bytes(png(2 * i + 1))


def screen(root: Path, concurrency: int, again: bool = False) -> tuple:
    project = Project.open(root, "bench")
    engine = GeminiAnswerer(timeout_s=30, deadline_s=60)
    named = [e.case_id for e in project.entries] if again else None
    plan = plan_screening(project, engine, shipped_prompts(), named)
    began = time.perf_counter()
    report = run_screening(
        project,
        plan,
        engine,
        concurrency,
        RequestCache.of_project(root),
        Ledger.of_project(root),
    )
    engine.close()
    return time.perf_counter() - began, report, plan.requests


def serve(latency: float) -> None:
    """The child process: a fake Gemini answering "Yes" after *latency*; prints its URL."""
    fake = FakeGemini(latency_s=latency, keep_bodies=False, default=text_reply("Yes"))
    print(fake.url, flush=True)
    sys.stdin.read()  # until the parent closes it
    fake.close()


class RemoteFake:
    def __init__(self, latency: float) -> None:
        import subprocess

        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.url = self.proc.stdout.readline().strip()

    def stats(self) -> dict[str, int]:
        import urllib.request

        with urllib.request.urlopen(f"{self.url}/__stats", timeout=10) as reply:
            return json.loads(reply.read())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def gui_stall(master: Path, probes: int, concurrency: int, process: bool) -> float:
    """The largest GUI-thread stall while a worker thread (or a child process: the
    ScreenProcess the window uses) screens *probes* probes."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from PySide6.QtWidgets import QApplication
    from stall_meter import StallMeter

    app = QApplication.instance() or QApplication([])
    from sabre_desk.core.screening.screen_process import ScreenOrder, ScreenProcess

    root = master.parent / f"gui-stall-{process}"
    make_project(root, probes // 4)
    meter = StallMeter()
    done = threading.Event()
    meter.start()
    if process:
        env = {k: os.environ[k] for k in ("GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY")}
        job = ScreenProcess(ScreenOrder(root, "bench", concurrency=concurrency, env=env))
        job.start(lambda event: None, lambda report, error: done.set())
    else:
        worker = threading.Thread(target=lambda: (screen(root, concurrency), done.set()))
        worker.start()
    while not done.is_set():
        app.processEvents()
        time.sleep(0.001)
    meter.stop()
    return meter.largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--probes", type=int, default=400)
    parser.add_argument("--latency", type=float, default=1.0)
    parser.add_argument("--concurrency", default="8,16,32")
    parser.add_argument("--gui-stall", action="store_true")
    parser.add_argument("--gui-latency", type=float, default=0.2)
    parser.add_argument("--gui-concurrency", type=int, default=8)
    parser.add_argument("--serve", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return
    os.environ["GEMINI_API_KEY"] = "benchmark-key-not-a-real-one"
    with tempfile.TemporaryDirectory(prefix="sabre-screen-") as tmp:
        master = Path(tmp) / "master"
        make_project(master, args.probes // 4)
        print(
            f"screening {args.probes} probes ({args.probes // 4} cases, 1024×1024 PNGs) against "
            f"the fake Gemini with {args.latency:g} s latency per call, {os.cpu_count()} cores"
        )
        for concurrency in (int(c) for c in args.concurrency.split(",")):
            fake = RemoteFake(args.latency)
            os.environ["GOOGLE_GEMINI_BASE_URL"] = fake.url
            root = Path(tmp) / f"c{concurrency}"
            shutil.copytree(master, root)
            wall, report, requests = screen(root, concurrency)
            assert report.sent == requests and not report.failures, report.failures[:3]
            ideal = requests / concurrency * args.latency
            print(
                f"  concurrency {concurrency:3}: {wall:6.1f} s wall ({requests / wall:5.1f} "
                f"requests/s; ideal {ideal:.1f} s), at most {report.max_in_flight} calls in "
                f"flight (the server saw {fake.stats()['max_in_flight']})"
            )
            again, report, _ = screen(root, concurrency, again=True)
            assert report.cached == requests and report.sent == 0
            fake.close()
        print(f"  the same project again, every answer from the cache: {again:.2f} s")
        if args.gui_stall:
            fake = RemoteFake(args.gui_latency)
            os.environ["GOOGLE_GEMINI_BASE_URL"] = fake.url
            for process in (False, True):
                stall = gui_stall(master, 1000, args.gui_concurrency, process)
                where = "a child process (ScreenProcess)" if process else "a worker thread"
                print(
                    f"  largest GUI-thread stall while 1,000 probes are screened in {where} "
                    f"({args.gui_concurrency} in flight, {args.gui_latency:g} s latency): "
                    f"{stall:.1f} ms"
                )
            fake.close()


if __name__ == "__main__":
    main()
