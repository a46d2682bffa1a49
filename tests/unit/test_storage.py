"""Atomic writes and the history log: a crash leaves the old file or the new, never half."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sabre_desk.ground import storage
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.storage import (
    TEMP_SUFFIX,
    append_history,
    atomic_write_bytes,
    read_history,
    read_json,
)


class CrashError(OSError):
    """An injected failure (disk full, I/O error) at one step of the writer."""


def _failing_os(step: str, after_bytes: int) -> types.SimpleNamespace:
    """A stand-in for the os module that fails at *step* (after writing some bytes)."""
    real = os
    written = {"n": 0}

    def write(fd: int, data: memoryview) -> int:
        if step == "write":
            room = after_bytes - written["n"]
            if room <= 0:
                raise CrashError(28, "No space left on device")
            data = data[:room]
        n = real.write(fd, data)
        written["n"] += n
        return n

    def fail(name: str) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            if step == name:
                raise CrashError(5, f"injected failure in {name}")
            return getattr(real, name)(*args, **kwargs)

        return call

    ns = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")})
    ns.write, ns.fsync, ns.replace, ns.close = write, fail("fsync"), fail("replace"), fail("close")
    return ns


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    old=st.binary(max_size=3000),
    new=st.binary(max_size=3000),
    step=st.sampled_from(["write", "fsync", "close", "replace", None]),
    after=st.integers(0, 3000),
)
def test_an_interrupted_write_leaves_the_old_or_the_new_file_and_no_temp(
    tmp_path: Path, old: bytes, new: bytes, step: str | None, after: int
) -> None:
    target = tmp_path / "review.json"
    target.write_bytes(old)
    with pytest.MonkeyPatch.context() as mp:
        if step:
            mp.setattr(storage, "os", _failing_os(step, after))
        try:
            atomic_write_bytes(target, new)
        except StorageError as exc:
            assert "previous version is unchanged" in exc.reason
            assert str(target) in exc.message
    content = target.read_bytes()
    assert content in (old, new)
    if step in ("fsync", "close", "replace") or (step == "write" and after < len(new)):
        assert content == old
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


KILL_WRITER = """
import sys, itertools
from collections.abc import Callable
from pathlib import Path
from sabre_desk.ground.storage import atomic_write_bytes
target = Path(sys.argv[1])
payloads = [bytes([65 + i]) * (200_000 + i * 5_000) for i in range(4)]
print("ready", flush=True)
for p in itertools.cycle(payloads):
    atomic_write_bytes(target, p)
"""


def test_a_writer_killed_with_sigkill_never_leaves_a_broken_file(tmp_path: Path) -> None:
    target = tmp_path / "data.bin"
    target.write_bytes(b"A" * 200_000)
    valid = {bytes([65 + i]) * (200_000 + i * 5_000) for i in range(4)}
    for delay in (0.01, 0.03, 0.05, 0.08, 0.13):
        proc = subprocess.Popen(
            [sys.executable, "-c", KILL_WRITER, str(target)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        assert target.read_bytes() in valid
        for leftover in tmp_path.glob(f"*{TEMP_SUFFIX}"):
            leftover.unlink()  # a killed writer may leave its temp file; never the target


def test_two_writers_in_one_folder_never_collide(tmp_path: Path) -> None:
    target = tmp_path / "shared.json"
    payloads = [json.dumps({"writer": i, "pad": "x" * 5000}).encode() for i in range(8)]
    errors: list[Exception] = []

    def hammer(p: bytes) -> None:
        try:
            for _ in range(40):
                atomic_write_bytes(target, p)
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=hammer, args=(p,)) for p in payloads]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert target.read_bytes() in payloads
    assert not list(tmp_path.glob(f"*{TEMP_SUFFIX}"))


def test_writing_into_a_missing_folder_names_the_file(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "x.json"
    with pytest.raises(StorageError) as info:
        atomic_write_bytes(target, b"{}")
    assert str(target) in info.value.message


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"a": 1,', "corrupt JSON at line 1"),
        (b'{"a": "caf\xe9"}', "not UTF-8"),
    ],
)
def test_reading_bad_json_names_the_file_and_the_reason(
    tmp_path: Path, raw: bytes, reason: str
) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(raw)
    with pytest.raises(ProjectError) as info:
        read_json(path, "spec")
    assert reason in info.value.reason
    assert info.value.path == path


def test_history_skips_and_reports_a_torn_last_line(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    append_history(path, {"event": "decision", "data": {"to": "keep"}})
    append_history(path, {"event": "notes", "data": {"to": "fine"}})
    with path.open("ab") as fh:
        fh.write(b'{"event": "box", "da')  # the process died mid-line
    history = read_history(path)
    assert [e["event"] for e in history.entries] == ["decision", "notes"]
    assert len(history.problems) == 1 and "torn last line" in history.problems[0]


def test_appending_after_a_torn_line_keeps_the_new_entry_intact(tmp_path: Path) -> None:
    path = tmp_path / "history.jsonl"
    path.write_bytes(b'{"event": "decision"}\n{"event": "bo')
    append_history(path, {"event": "notes"})
    history = read_history(path)
    assert [e["event"] for e in history.entries] == ["decision", "notes"]
    assert "bad line" in history.problems[0]


def test_a_missing_history_is_empty_not_an_error(tmp_path: Path) -> None:
    history = read_history(tmp_path / "history.jsonl")
    assert history.entries == [] and history.problems == []


@pytest.mark.parametrize("umask", [0o022, 0o002, 0o077])
def test_written_files_get_the_permissions_the_umask_allows(tmp_path: Path, umask: int) -> None:
    """A project on a shared folder: the others must be able to read what one writes."""
    old = os.umask(umask)
    try:
        path = tmp_path / "review.json"
        atomic_write_bytes(path, b"{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask


def test_file_hash_is_remembered_until_the_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hash asked twice of an unchanged file is not read twice; a rewrite is noticed."""
    import os

    from sabre_desk.ground import hashing

    image = tmp_path / "edited.png"
    image.write_bytes(b"first")
    first = hashing.file_sha256(image)
    assert first == hashing.sha256_file(image)
    reads: list[Path] = []
    real = hashing.sha256_file
    monkeypatch.setattr(hashing, "sha256_file", lambda p: reads.append(p) or real(p))
    assert hashing.file_sha256(image) == first
    assert reads == []
    image.write_bytes(b"other")  # same size: only the mtime (and content) differ
    st = image.stat()
    os.utime(image, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert hashing.file_sha256(image) != first
    assert reads == [image]
