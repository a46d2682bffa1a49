"""One reviewer in two windows: an acknowledged save is on disk, or its window was told.

The deterministic race puts the second window's save exactly between the first window's
conflict check and its rename; the stress run (``-m stress``) hammers two processes with
SIGKILLs and checks every acknowledged save against the final file.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from kills import kill_at_random

from sabre_desk.core.case import case_files
from sabre_desk.core.case.project import Project
from sabre_desk.ground.errors import ReviewConflictError
from sabre_desk.ground.storage import TEMP_SUFFIX


def test_a_save_between_the_check_and_the_rename_is_refused_not_lost(
    make_project: Callable, add_case: Callable, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_project()
    add_case(root, "c1")
    first, second = Project.open(root, "alice"), Project.open(root, "alice")
    case_1, case_2 = first.load_case("c1"), second.load_case("c1")
    outcome: dict[str, str] = {}

    def second_window_saves() -> None:
        case_2.review.notes = "from the second window"
        try:
            second.save_review(case_2)
            outcome["second"] = "acknowledged"
        except ReviewConflictError:
            outcome["second"] = "told of a conflict"

    racer = threading.Thread(target=second_window_saves)

    def between_check_and_rename(path: Path) -> None:
        if not racer.is_alive() and "second" not in outcome:
            racer.start()
            racer.join(timeout=1.0)  # without a lock it completes here, inside the gap

    monkeypatch.setattr(case_files, "_before_replace", between_check_and_rename)
    case_1.review.notes = "from the first window"
    first.save_review(case_1)
    racer.join(timeout=20)

    on_disk = json.loads((root / "cases/c1/reviews/alice.json").read_text())["notes"]
    assert outcome["second"] == "told of a conflict"
    assert on_disk == "from the first window"
    assert not list((root / "cases/c1/reviews").glob(f"*{TEMP_SUFFIX}"))


def test_temp_files_left_by_a_killed_writer_are_cleaned_on_the_next_save(
    make_project: Callable, add_case: Callable
) -> None:
    root = make_project()
    add_case(root, "c1")
    reviews = root / "cases/c1/reviews"
    reviews.mkdir()
    orphan = reviews / f".alice.json.k1ll3d{TEMP_SUFFIX}"
    orphan.write_text('{"half": ')
    project = Project.open(root, "alice")
    case = project.load_case("c1")
    case.review.notes = "after the crash"
    project.save_review(case)
    assert not orphan.exists()
    assert json.loads((reviews / "alice.json").read_text())["notes"] == "after the crash"


WRITER = r"""
import json, os, sys
from sabre_desk.ground.errors import ReviewConflictError, StorageError
from sabre_desk.core.case.project import Project

root, name, log = sys.argv[1], sys.argv[2], sys.argv[3]
project = Project.open(root, "alice")
n = 0
with open(log, "a") as acks:
    while True:
        case = project.load_case("c1")
        tokens = list(getattr(case.review, "tokens", None) or [])
        n += 1
        token = f"{name}-{os.getpid()}-{n}"
        case.review.tokens = [*tokens, token]
        try:
            project.save_review(case)
        except (ReviewConflictError, StorageError):
            continue
        acks.write(token + "\n")
        acks.flush()
        os.fsync(acks.fileno())
"""


@pytest.mark.stress
def test_two_processes_of_one_reviewer_killed_at_random_lose_no_acknowledged_save(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    add_case(root, "c1")
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    logs = [tmp_path / "acks-a.txt", tmp_path / "acks-b.txt"]
    rng = random.Random(17)

    def start(i: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, str(script), str(root), "ab"[i], str(logs[i])])

    kills = kill_at_random(start, [0, 1], rng, seconds=12, pause=(0.05, 0.4))
    acknowledged = [t for log in logs if log.exists() for t in log.read_text().split()]
    final = json.loads((root / "cases/c1/reviews/alice.json").read_text())
    on_disk = set(final.get("tokens", []))
    lost = [t for t in acknowledged if t not in on_disk]
    print(f"{kills} kills, {len(acknowledged)} acknowledged saves, {len(lost)} lost")
    assert kills >= 10 and len(acknowledged) >= 50
    assert lost == []
