"""The lock on a case's images says who holds it, and a stale one can be broken."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sabre_desk.core.case import locks
from sabre_desk.core.case.locks import (
    LOCK_NAME,
    OWNER_NAME,
    CaseLockedError,
    LockOwner,
    break_lock,
    case_lock,
    holder,
    is_stale,
)

HOLDER = r"""
import sys, time
from pathlib import Path
from sabre_desk.core.case.locks import case_lock
with case_lock(Path(sys.argv[1]), "bob", "accept"):
    print("held", flush=True)
    time.sleep(60)
"""


@pytest.fixture
def folder(make_project: Callable, add_case: Callable) -> Path:
    return add_case(make_project(), "c1")


@pytest.fixture
def held_by_bob(folder: Path, tmp_path: Path):
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    process = subprocess.Popen(
        [sys.executable, str(script), str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "held"
    yield process
    process.kill()
    process.wait()


def test_nobody_holds_a_free_lock_and_looking_creates_no_file(folder: Path) -> None:
    assert holder(folder) is None
    assert not (folder / LOCK_NAME).exists() and not (folder / OWNER_NAME).exists()
    with case_lock(folder, "alice", "accept"):
        owner = locks.read_owner(folder)
        assert owner is not None and owner.reviewer == "alice" and owner.action == "accept"
    assert not (folder / OWNER_NAME).exists()  # released: no owner any more


def test_another_process_holding_the_lock_is_named(folder: Path, held_by_bob) -> None:
    owner = holder(folder)
    assert owner is not None and owner.reviewer == "bob" and owner.pid == held_by_bob.pid
    assert owner.host == locks.this_host() and not is_stale(owner)  # alive, just started
    with pytest.raises(CaseLockedError) as caught, case_lock(folder, "alice", "accept", 0.2):
        pass
    assert "another window" in caught.value.message and "bob on" in caught.value.message
    assert caught.value.owner is not None and caught.value.owner.pid == held_by_bob.pid


def test_a_record_left_by_a_killed_holder_does_not_count(folder: Path, held_by_bob) -> None:
    held_by_bob.kill()
    held_by_bob.wait()
    assert (folder / OWNER_NAME).exists()  # the kill left it behind
    assert holder(folder) is None  # the OS lock went with the process
    assert not (folder / OWNER_NAME).exists()  # and the stale record is cleared


def test_a_lock_held_too_long_is_stale_and_can_be_broken(folder: Path, held_by_bob) -> None:
    owner = holder(folder)
    assert owner is not None
    later = datetime.now(UTC) + timedelta(seconds=locks.STALE_AFTER_S + 5)
    assert is_stale(owner, now=later)
    elsewhere = LockOwner(reviewer="bob", host="other-host", pid=1, since="2026-11-29T10:00:00Z")
    assert is_stale(elsewhere)  # another computer, hours ago
    assert break_lock(folder).reviewer == "bob"
    assert holder(folder) is None
    with case_lock(folder, "alice", "accept", timeout_s=5):  # bob still runs, yet alice goes
        assert json.loads((folder / OWNER_NAME).read_text())["reviewer"] == "alice"
