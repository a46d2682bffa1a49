"""A team on one folder, killed at random: four reviewers decide the same 50 cases while a
fifth accepts and reverts repairs of them, and any of the five is SIGKILLed now and then.

Afterwards every JSON file parses, every decision a reviewer was told was saved is on disk,
every image is in place or in the backups, and each history has at most a torn last line.
"""

from __future__ import annotations

import hashlib
import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kills import kill_at_random

from sabre_desk.core.case.project import Project
from sabre_desk.core.repair import repairs

CASES = 50
REVIEWERS = ["r0", "r1", "r2", "r3"]

REVIEWER = r"""
import os, random, sys
from sabre_desk.core.case.binding import bind, image_hashes
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.ground.errors import ProjectError

root, name, log, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
project = Project.open(root, name)
ids = [e.case_id for e in project.entries]
rng = random.Random(seed)
n = 0
with open(log, "a") as acks:
    while True:
        case_id = rng.choice(ids)
        n += 1
        token = f"{name}-{os.getpid()}-{n}"
        try:
            case = project.load_case(case_id)
            decision = rng.choice(list(Decision))
            bind(case.review, decision, image_hashes(case.images) or {})
            case.review.tokens = [*(getattr(case.review, "tokens", None) or []), token]
            project.save_review(case)
            project.record(case, "decision", {"to": decision.value, "token": token})
        except ProjectError:
            continue
        acks.write(f"{case_id} {token}\n")
        acks.flush()
        os.fsync(acks.fileno())
"""

FIXER = r"""
import os, random, sys
import numpy as np
from sabre_desk.core.repair import repairs
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.errors import ProjectError
from sabre_desk.imaging.io import encode_png

root, log, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
project = Project.open(root, "fixer")
ids = [e.case_id for e in project.entries]
rng = random.Random(seed)
pixels = np.random.default_rng(seed)
with open(log, "a") as acks:
    while True:
        case_id = rng.choice(ids)
        try:
            case = project.load_case(case_id)
            if repairs.needs_recovery(case):
                repairs.recover(project, case)
            info = case.image_info[ImageRole.EDITED]
            image = pixels.integers(0, 256, (info.height, info.width, 3), dtype=np.uint8)
            whole = {"op": "remove", "box": (0, 0, 1, 1)}
            record, _ = repairs.save_preview(
                case, ImageRole.EDITED, encode_png(image), "file", whole
            )
            repairs.add_preview(project, case, record)
            repairs.accept(project, case, record.id)
            acks.write(f"accepted {case_id} {record.id}\n")
            repairs.revert(project, case, record.id)
            acks.write(f"reverted {case_id} {record.id}\n")
            acks.flush()
        except ProjectError:
            continue
"""


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.stress
def test_four_reviewers_and_a_repairer_killed_at_random_lose_nothing(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    for i in range(CASES):
        add_case(root, f"c{i:02}")
    originals = {
        (folder.name, role): sha(folder / f"{role}.png")
        for folder in (root / "cases").iterdir()
        for role in ("base", "edited")
    }
    scripts = {"reviewer": tmp_path / "reviewer.py", "fixer": tmp_path / "fixer.py"}
    scripts["reviewer"].write_text(REVIEWER)
    scripts["fixer"].write_text(FIXER)
    logs = {name: tmp_path / f"acks-{name}.txt" for name in [*REVIEWERS, "fixer"]}
    rng = random.Random(12)
    starts = 0

    def start(name: str) -> subprocess.Popen:
        nonlocal starts
        starts += 1
        if name == "fixer":
            args = [scripts["fixer"], root, logs[name], starts]
        else:
            args = [scripts["reviewer"], root, name, logs[name], starts]
        return subprocess.Popen([sys.executable, *map(str, args)])

    kills = kill_at_random(start, list(logs), rng, seconds=10)

    # every JSON file parses (temp files of killed writers are not JSON files of the project)
    for path in root.rglob("*.json"):
        json.loads(path.read_text())
    # every acknowledged decision is on disk
    acknowledged = 0
    for name in REVIEWERS:
        for line in logs[name].read_text().splitlines() if logs[name].exists() else []:
            case_id, token = line.split()
            review = json.loads((root / "cases" / case_id / "reviews" / f"{name}.json").read_text())
            assert token in review["tokens"], f"{name} was told {token} was saved on {case_id}"
            acknowledged += 1
    # every history has at most a torn last line
    for history in root.rglob("history.jsonl"):
        lines = history.read_bytes().split(b"\n")
        for line in lines[:-2] if lines[-1] else lines[:-1]:
            if line:
                json.loads(line)
    # every image is in place or in the backups, also once interrupted steps are finished
    fixer = Project.open(root, "fixer")
    for entry in fixer.entries:
        case = fixer.load_case(entry.case_id)
        if repairs.needs_recovery(case):
            repairs.recover(fixer, case)
    for (case_id, role), digest in originals.items():
        folder = root / "cases" / case_id
        assert (folder / f"{role}.png").is_file()
        kept = (
            {sha(p) for p in (folder / "repairs" / "backups").glob("*")}
            if role == "edited"
            else set()
        )
        assert digest == sha(folder / f"{role}.png") or digest in kept, f"{case_id} {role} lost"
    accepted = logs["fixer"].read_text().count("accepted") if logs["fixer"].exists() else 0
    print(f"{kills} kills, {acknowledged} acknowledged decisions, {accepted} repairs accepted")
    assert kills >= 15 and acknowledged >= 100 and accepted >= 5
