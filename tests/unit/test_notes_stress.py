"""Reviewers who paste long notes, killed at random, never save a case they cannot open.

Four reviewer processes and two processes of one reviewer (two windows) append a few
thousand characters to a case's notes through the case editor the window uses, save, and
are SIGKILLed at random. Notes reach the limit within a few saves; the editor refuses the
text past it in words, and the reviewer starts the notes afresh. At the end no acknowledged
save is lost, no load of any case by any of them failed, and every review on disk is within
the table of limits (``-m stress``; ``SABRE_STRESS_SECONDS`` sets how long).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from kills import kill_at_random

from sabre_desk.ground import limits

CASES = 6
#: one process each, and "ana" twice: two windows of one reviewer
PROCESSES = ["r0", "r1", "r2", "r3", "ana", "ana"]

REVIEWER = r"""
import os, random, sys
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validity import Validity
from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.ground.errors import ProjectError

root, name, acks_path, errors_path, seed = sys.argv[1:6]
project = Project.open(root, name)
ids = [e.case_id for e in project.entries]
rng = random.Random(int(seed))
refused = []
n = 0
with open(acks_path, "a") as acks, open(errors_path, "a") as errors:
    while True:
        case_id = rng.choice(ids)
        n += 1
        token = f"[{name}-{os.getpid()}-{n}]"
        try:
            case = project.load_case(case_id)
        except ProjectError as exc:
            errors.write(f"{case_id} {exc.message}\n")
            errors.flush()
            continue
        editor = CaseEditor(project, case, Validity(project).check)
        editor.failed.connect(refused.append)
        edit = editor.write_notes(editor.review.notes + token + "x" * rng.randint(1500, 4000))
        fresh = edit is None
        if fresh:  # past the limit, refused in words: the reviewer starts afresh
            assert "Notes can hold at most" in refused[-1], refused
            edit = editor.write_notes(token)
        if edit is None or not edit.redo(editor):
            continue
        # a save begun may land and be killed before it is acknowledged: said first
        acks.write(f"begun {case_id} {token} {int(fresh)}\n")
        acks.flush()
        os.fsync(acks.fileno())
        if editor.save():
            acks.write(f"saved {case_id} {token} {int(fresh)}\n")
            acks.flush()
            os.fsync(acks.fileno())
"""


@pytest.mark.stress
def test_long_notes_under_kills_lose_no_save_and_every_case_opens(
    make_project: Callable, add_case: Callable, tmp_path: Path
) -> None:
    root = make_project()
    for i in range(CASES):
        add_case(root, f"c{i}")
    script = tmp_path / "reviewer.py"
    script.write_text(REVIEWER)
    acks = [tmp_path / f"acks-{i}.txt" for i in range(len(PROCESSES))]
    errors = [tmp_path / f"errors-{i}.txt" for i in range(len(PROCESSES))]
    rng = random.Random(48)
    starts = 0

    def start(i: int) -> subprocess.Popen:
        nonlocal starts
        starts += 1
        args = [script, root, PROCESSES[i], acks[i], errors[i], starts]
        return subprocess.Popen([sys.executable, *map(str, args)])

    kills = kill_at_random(start, range(len(PROCESSES)), rng, seconds=15)

    load_errors = [
        line for path in errors if path.exists() for line in path.read_text().splitlines()
    ]
    assert load_errors == []
    # the last acknowledged save of each process and case is on disk, or a save of the same
    # reviewer begun after it: one killed between landing and being acknowledged (started
    # afresh, it holds only its own token), or, of ana's two windows, the other one's
    last: dict[tuple[int, str], str] = {}
    later: dict[tuple[int, str], list[str]] = {}
    fresh = acknowledged = 0
    for i, path in enumerate(acks):
        for line in path.read_text().splitlines() if path.exists() else []:
            step, case_id, token, started_afresh = line.split()
            if step == "begun":
                later.setdefault((i, case_id), []).append(token)
                continue
            last[(i, case_id)] = token
            later[(i, case_id)] = []
            fresh += started_afresh == "1"
            acknowledged += 1
    for case_id in {c for _, c in last}:
        for name in set(PROCESSES):
            keys = [(i, case_id) for i, n in enumerate(PROCESSES) if n == name]
            tokens = [last[k] for k in keys if k in last]
            if not tokens:
                continue
            tokens += [t for k in keys for t in later.get(k, [])]
            path = root / "cases" / case_id / "reviews" / f"{name}.json"
            notes = json.loads(path.read_text())["notes"]
            assert len(notes) <= limits.NOTES.most
            assert any(t in notes for t in tokens), f"{name}'s last save on {case_id} lost"
    print(
        f"{kills} kills, {acknowledged} acknowledged saves ({fresh} after the limit "
        "refused longer notes), 0 load errors"
    )
    assert kills >= 10 and acknowledged >= 30 and fresh >= 1
