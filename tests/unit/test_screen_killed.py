"""A `sabre-desk screen` process killed (SIGKILL) in the middle of a run: nothing is half
written, and the rerun sends only the requests whose answers never arrived."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fakes.gemini_server import serving
from fakes.oracle import Oracle

KEY = "kill-key-" + "k" * 27


@pytest.mark.stress
def test_a_killed_screen_loses_nothing_and_resends_nothing(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, _isolated_settings: Path
) -> None:
    total = sum(
        len(json.loads(spec.read_text())["questions"])
        for spec in demo_project.glob("cases/*/spec.json")
    )
    with serving(monkeypatch, KEY) as fake:
        fake.answer = Oracle().rule
        fake.latency_s = 0.4
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
        command = [sys.executable, "-m", "sabre_desk", "--reviewer", "alice", "screen"]
        command += [str(demo_project), "--concurrency", "3"]
        proc = subprocess.Popen(
            command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        deadline = time.monotonic() + 60
        while fake.outcomes.count("answered") < 12 and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        time.sleep(0.5)  # let the fake see the connections drop
        cached = len(list((demo_project / "cache" / "requests").rglob("*.json")))
        assert 6 <= cached < total  # the last replies may have arrived as it died
        for path in demo_project.glob("cases/*/screening*.json"):
            json.loads(path.read_text())  # whole, never half-written
        ledger = (demo_project / "ledger.jsonl").read_text().splitlines()
        assert len([line for line in ledger if line.endswith("}")]) >= cached - 1

        sent_before = len([r for r in fake.requests if ":generateContent" in r["path"]])
        fake.latency_s = 0
        again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        sent_after = len([r for r in fake.requests if ":generateContent" in r["path"]])
        assert sent_after - sent_before == total - cached
        assert "answered from the cache" in again.stdout
        for path in demo_project.glob("cases/*/screening.json"):  # every case, once
            runs = json.loads(path.read_text())["runs"]
            assert [r["model"] for r in runs].count("gemini-3.5-flash") == 1
        assert not list(demo_project.rglob("*.sabre-tmp"))
