"""The partial folder an export writes into, and the removal of those left by killed exports.

An export writes into ``.<OUT>.partial-<random>`` beside OUT and renames it into place at
the end, so OUT is either absent or complete. A SIGKILL, a crash or a power cut gives the
export no chance to remove its partial folder (they can hold gigabytes), so each one is
guarded by an OS file lock on ``<partial folder>.lock``, taken *before* the folder is
created and held for the whole export. The kernel drops the lock when its process dies,
however it dies, so a later export into the same parent can tell the two apart: a partial
folder whose lock it can take has no living owner and is removed; one whose lock is held
belongs to a running export (in this process or another) and is left alone.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

from sabre_desk.ground.errors import ProjectError

PARTIAL = ".partial-"
LOCK_SUFFIX = ".lock"
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789_"  # tempfile's, so older folders match too
_PARTIAL_NAME = re.compile(r"^\..+\.partial-[a-z0-9_]{8}$")
#: Everything an export writes at the top of its folder. A folder that looks like a partial
#: export but holds anything else is not ours and is never removed.
EXPORT_NAMES = frozenset(
    {
        "images",
        "benchmark.jsonl",
        "metadata.jsonl",
        "README.md",
        "vlmevalkit",
        "hf",
        "lmms-eval",
        "MANIFEST.sha256",
        "release.json",
    }
)


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _drop_lock(lock: FileLock, path: Path) -> None:
    """Remove the lock file, then release the lock.

    Unlinking while still holding the lock means no other export can take this inode in
    between and believe the folder abandoned; where an open file cannot be removed
    (Windows), the file is removed after the release instead.
    """
    with contextlib.suppress(OSError):
        path.unlink()
    try:
        lock.release()
    finally:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


@contextlib.contextmanager
def partial_folder(out: Path) -> Iterator[Path]:
    """A new, locked partial folder beside *out*, removed again if the body raises.

    The body renames the folder to *out* when the export is complete. Any exception,
    including KeyboardInterrupt (the CLI turns SIGTERM into one), removes the folder
    before it propagates; the lock is released either way.
    """
    parent = out.parent
    for _ in range(100):
        suffix = "".join(secrets.choice(_ALPHABET) for _ in range(8))
        folder = parent / f".{out.name}{PARTIAL}{suffix}"
        lock_path = folder.with_name(folder.name + LOCK_SUFFIX)
        if os.path.lexists(folder) or os.path.lexists(lock_path):
            continue
        lock = FileLock(lock_path, timeout=0)
        try:
            lock.acquire()
        except Timeout:
            continue
        except OSError as exc:
            raise ProjectError(
                f"cannot write in this folder ({_reason(exc)}); nothing was exported", parent
            ) from exc
        try:
            folder.mkdir()
        except FileExistsError:
            _drop_lock(lock, lock_path)
            continue
        except BaseException as exc:
            _drop_lock(lock, lock_path)
            if isinstance(exc, OSError):
                raise ProjectError(
                    f"cannot write in this folder ({_reason(exc)}); nothing was exported",
                    parent,
                ) from exc
            raise
        break
    else:  # pragma: no cover - 100 collisions of 37**8 names
        raise ProjectError("cannot find a free name for the partial folder", parent)
    try:
        yield folder
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    finally:
        _drop_lock(lock, lock_path)


def _looks_like_export(folder: Path) -> bool:
    try:
        names = {p.name for p in folder.iterdir()}
    except OSError:
        return False
    return names <= EXPORT_NAMES


def remove_abandoned(parent: Path) -> list[Path]:
    """Remove the partial folders in *parent* left by exports that died; returns them.

    A candidate must be named like a partial folder, be a real folder (not a link), hold
    only what an export writes, and its lock must be free. Lock files left without their
    folder are removed too. Nothing that cannot be removed stops the caller's export.
    """
    removed: list[Path] = []
    try:
        entries = sorted(os.scandir(parent), key=lambda e: e.name)
    except OSError:
        return removed
    for entry in entries:
        if not _PARTIAL_NAME.match(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        folder = Path(entry.path)
        if not _looks_like_export(folder):
            continue
        lock_path = folder.with_name(folder.name + LOCK_SUFFIX)
        lock = FileLock(lock_path, timeout=0)
        try:
            lock.acquire()
        except OSError:  # Timeout (a live export holds it) is an OSError too
            continue
        try:
            if os.path.lexists(folder):
                shutil.rmtree(folder)
                removed.append(folder)
        except OSError:
            pass
        finally:
            _drop_lock(lock, lock_path)
    for entry in entries:
        stem = entry.name.removesuffix(LOCK_SUFFIX)
        if stem == entry.name or not _PARTIAL_NAME.match(stem):
            continue
        lock_path = Path(entry.path)
        if not lock_path.is_file() or lock_path.is_symlink():
            continue  # already removed above, or not a lock file of ours
        if os.path.lexists(lock_path.with_name(stem)):
            continue
        lock = FileLock(lock_path, timeout=0)
        try:
            lock.acquire()
        except OSError:
            continue
        _drop_lock(lock, lock_path)
    return removed
