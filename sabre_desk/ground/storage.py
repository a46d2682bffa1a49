"""Safe reading and writing of project files.

Writes are atomic: a uniquely named temp file in the target's own folder (so two writers
on a shared drive never collide and ``os.replace`` never crosses a filesystem), flushed and
fsynced, then renamed over the target, then the folder fsynced. At every instant the target
is either the complete old file or the complete new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from pydantic import BaseModel, ValidationError

from sabre_desk.ground import limits
from sabre_desk.ground.errors import LockBusyError, ProjectError, StorageError
from sabre_desk.ground.reading import (
    LIMITS,
    describe_kind,
    human_size,
    iter_lines,
    loads,
    open_regular,
    read_json_file,
    read_limited,
)
from sabre_desk.ground.validation_messages import describe_validation_error

TEMP_SUFFIX = ".sabre-tmp"


def _fsync_dir(folder: Path) -> None:
    # Makes the rename itself durable; not every OS lets a folder be opened.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process umask, read without changing it where the OS tells it (Linux ≥ 4.7);
    elsewhere set and restored at once (a file created in between gets 0o077 at worst)."""
    try:
        with Path("/proc/self/status").open(encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _share_as_umask_allows(fd: int) -> None:
    """mkstemp makes files 0600; a project folder is shared by a team, so a file we write
    gets the permissions a plain ``open`` would give it (0666 less the umask)."""
    with contextlib.suppress(OSError, AttributeError):
        os.fchmod(fd, 0o666 & ~current_umask())


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace *path* with *data* so that a crash leaves the old or the new file, never half."""
    path = Path(path)
    folder = path.parent
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=TEMP_SUFFIX, dir=folder)
    except OSError as exc:
        raise StorageError(f"cannot write here ({exc.strerror or exc})", path) from exc
    tmp = Path(tmp_name)
    try:
        try:
            _share_as_umask_allows(fd)
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)  # noqa: PTH105 (tests interrupt exactly this call)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise StorageError(
                f"not saved ({exc.strerror or exc}); the previous version is unchanged", path
            ) from exc
        raise
    _fsync_dir(folder)


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte (os.write may take fewer) and make them durable."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def create_new_file(folder: Path, stem: str, suffix: str, data: bytes) -> Path:
    """Write *data* to a new file ``stem{suffix}`` (or ``stem-2{suffix}`` …) in *folder* that
    no other writer can have taken or be taking: the complete file appears at once under a
    name that did not exist (a hard link of a finished temp file, which fails rather than
    replaces). Two repairs finishing in the same second get two files, never one."""
    tmp: Path | None = None
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{stem}.", suffix=TEMP_SUFFIX, dir=folder)
        tmp = Path(tmp_name)
        try:
            _share_as_umask_allows(fd)
            _write_all(fd, data)
        finally:
            os.close(fd)
        for n in range(1, 1000):
            path = folder / (f"{stem}{suffix}" if n == 1 else f"{stem}-{n}{suffix}")
            try:
                os.link(tmp, path)
            except FileExistsError:
                continue
            except OSError:
                if not _create_exclusively(path, data):
                    continue
            _fsync_dir(folder)
            return path
        raise StorageError("too many files with the same name", folder / f"{stem}{suffix}")
    except OSError as exc:
        raise StorageError(f"cannot write here ({exc.strerror or exc})", folder) from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _create_exclusively(path: Path, data: bytes) -> bool:
    """For filesystems without hard links (FAT, exFAT): O_EXCL creation; False if taken."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        return False
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)
    return True


def remove_orphan_temps(folder: Path, name: str) -> int:
    """Remove temp files a killed writer of *folder*/*name* left behind; returns how many.

    Only safe while holding the lock that every writer of that file takes (``file_lock``):
    then no temp file of it can belong to a write still in progress.
    """
    removed = 0
    try:
        candidates = list(Path(folder).glob(f".{glob_escape(name)}.*{TEMP_SUFFIX}"))
    except OSError:
        return 0
    for tmp in candidates:
        with contextlib.suppress(OSError):
            tmp.unlink()
            removed += 1
    return removed


def glob_escape(name: str) -> str:
    return "".join(f"[{c}]" if c in "*?[" else c for c in name)


#: How long a writer waits for another writer of the same file before giving up.
LOCK_TIMEOUT_S = 15.0


@contextlib.contextmanager
def file_lock(
    path: Path,
    timeout_s: float = LOCK_TIMEOUT_S,
    busy: str = "another window is still saving this file after {s:.0f} s; not saved",
) -> Iterator[None]:
    """Hold the OS lock that guards check-and-replace of *path* (a hidden file beside it).

    Every process that rewrites *path* after checking what is on disk takes this lock, so
    no other writer can slip in between the check and the rename. The lock is released by
    the OS if the holder dies, so a killed window never blocks the others.
    """
    lock_path = path.with_name(f".{path.name}.lock")
    lock = FileLock(lock_path, timeout=timeout_s)
    try:
        lock.acquire()
    except Timeout as exc:
        raise LockBusyError(busy.format(s=timeout_s), path) from exc
    except OSError as exc:
        raise StorageError(f"cannot lock for saving ({exc.strerror or exc})", lock_path) from exc
    try:
        yield
    finally:
        lock.release()


def dumps_json(data: Any) -> bytes:
    """The project's JSON style: UTF-8, two-space indent, trailing newline, stable for diffs."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def atomic_write_model(path: Path, model: BaseModel, kind: str | None = None) -> bytes:
    """Write a pydantic *model* as its reader will read it: the whole object is validated
    again, from the JSON data about to be written, before anything is serialized — its
    fields may have been assigned or copied without validation (``limits``). A model its
    reader would refuse is refused here (StorageError naming the field, nothing written)."""
    data = model.model_dump(mode="json")
    try:
        type(model).model_validate(data)
    except ValidationError as exc:
        reason = describe_validation_error(exc)
        raise StorageError(
            f"not written: {reason}; the previous version is unchanged", path
        ) from exc
    return atomic_write_json(path, data, kind)


def atomic_write_json(path: Path, data: Any, kind: str | None = None) -> bytes:
    """Write *data* as JSON atomically; returns the bytes written (for change detection).

    With *kind* (a key of ``reading.LIMITS``) the bytes are checked against the limit the
    reader of that kind applies: a file over it is refused here (StorageError, nothing
    written) rather than written and then called too large by every later read."""
    payload = dumps_json(data)
    check_size(path, payload, kind)
    atomic_write_bytes(path, payload)
    return payload


def check_size(path: Path, payload: bytes, kind: str | None) -> None:
    """StorageError when *payload* is over what the reader of *kind* accepts."""
    if kind is None:
        return
    limit = LIMITS[kind]
    if len(payload) > limit:
        raise StorageError(
            f"not written: it would be {human_size(len(payload))}, over the "
            f"{human_size(limit)} limit for a {kind} file; the previous version is unchanged",
            path,
        )


def read_json(
    path: Path, kind: str, error: type[ProjectError] = ProjectError, follow_links: bool = True
) -> tuple[Any, bytes]:
    """Read and parse a JSON file of a known kind (bounded, regular files only)."""
    return read_json_file(path, kind, error, follow_links)


def fingerprint(raw: bytes | None) -> str | None:
    """A content hash used to notice that a file changed since we read it."""
    return None if raw is None else hashlib.sha256(raw).hexdigest()


def file_fingerprint(path: Path, kind: str = "review") -> str | None:
    """The fingerprint of the file now on disk (None when there is none)."""
    if not os.path.lexists(path):
        return None
    return fingerprint(read_limited(path, LIMITS[kind], StorageError))


def probe_writable(folder: Path) -> bool:
    """Whether new files can be created in *folder*.

    ``access(2)`` also answers for root: it reports read-only mounts (EROFS) and immutable
    folders (EPERM), so no probe file needs to be written into a shared project folder.
    A disk that fills up later is caught by the writer itself.
    """
    return os.access(folder, os.W_OK | os.X_OK)


# --- history.jsonl -------------------------------------------------------------------

#: A history line is one small event; a longer line is garbage and is never held whole
#: (read or written: ``limits.HISTORY_LINE``).
MAX_HISTORY_LINE = limits.HISTORY_LINE.most
#: Bad lines reported one by one; past this they are only counted.
MAX_HISTORY_PROBLEMS = 20


@dataclass
class History:
    """Entries of a history.jsonl plus why some lines could not be read (reported, skipped)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def append_history(path: Path, entry: dict[str, Any]) -> None:
    """Append one event line; flushed and fsynced so an acknowledged change is on disk.

    If a previous crash left a torn last line (no newline), a newline is written first so
    the torn fragment stays one bad line instead of corrupting this entry too. A write that
    fails part-way (a full disk) is cut back to the old end, so no partial line is left.
    """
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path = Path(path)
    problem = limits.HISTORY_LINE.problem(len(line))
    if problem is not None:  # the reader would skip it as a bad line
        raise StorageError(f"history entry not written: {problem}; nothing was added", path)
    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o666)
    except OSError as exc:
        if path.is_symlink():
            raise StorageError("history is a symbolic link; not written through it", path) from exc
        raise StorageError(f"cannot append to history ({exc.strerror or exc})", path) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise StorageError(
                f"cannot append to history: it is {describe_kind(info.st_mode)}", path
            )
        end = info.st_size
        prefix = b""
        if end > 0 and os.pread(fd, 1, end - 1) != b"\n":
            prefix = b"\n"
        try:
            _write_all(fd, prefix + line + b"\n")
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, end)
            raise StorageError(
                f"cannot append to history ({exc.strerror or exc}); nothing was added", path
            ) from exc
    finally:
        os.close(fd)


def read_history(path: Path) -> History:
    """Read history.jsonl in bounded memory; bad or torn lines are skipped and reported.

    Reports at most MAX_HISTORY_PROBLEMS lines one by one and counts the rest, and stops
    parsing once that many were bad (a file of garbage is then only counted), so a huge or
    hostile file costs one pass over its bytes and a few lines of output.
    """
    history = History()
    if not os.path.lexists(path):
        return history
    bad = 0
    last_bad: int | None = None
    last_number = 0
    try:
        for number, line in iter_lines(path, MAX_HISTORY_LINE, StorageError):
            last_number = number
            if bad >= MAX_HISTORY_PROBLEMS:
                bad += 1  # only counted from here on
                continue
            entry: Any = None
            if line is not None:
                try:
                    entry = loads(line.decode("utf-8"))
                except ValueError:  # UnicodeDecodeError is one too
                    entry = None
            if isinstance(entry, dict):
                history.entries.append(entry)
                continue
            bad += 1
            last_bad = number
            why = "line too long" if line is None else "bad line"
            history.problems.append(f"line {number}: {why}, skipped")
    except StorageError as exc:
        history.problems.append(exc.reason)
        return history
    if bad > MAX_HISTORY_PROBLEMS:
        history.problems.append(
            f"{bad - MAX_HISTORY_PROBLEMS} more bad lines of {last_number:,} (not listed)"
        )
    elif last_bad is not None and last_bad == last_number and _torn_tail(path):
        history.problems[-1] = f"line {last_bad}: torn last line (an interrupted write), skipped"
    return history


def _torn_tail(path: Path) -> bool:
    try:
        with open_regular(path, StorageError) as (handle, size):
            if size == 0:
                return False
            handle.seek(size - 1)
            return handle.read(1) != b"\n"
    except StorageError:
        return False


def new_backup_folder(parent: Path, prefix: str, stamp: str) -> Path:
    """A new folder ``<prefix><stamp>`` in *parent* (``-2``, ``-3`` … when a run of the same
    second made one): each run that rewrites files keeps their old bytes in a folder of its
    own, never in another run's. Raises StorageError naming *parent* (a link is never
    written through; a folder that cannot be made leaves nothing changed)."""
    if parent.is_symlink():
        raise StorageError("is a symbolic link; nothing is written through it", parent)
    try:
        parent.mkdir(exist_ok=True)
        for n in range(1, 1000):
            folder = parent / f"{prefix}{stamp}{'' if n == 1 else f'-{n}'}"
            try:
                folder.mkdir()
            except FileExistsError:
                continue
            return folder
    except OSError as exc:
        reason = f"cannot make the backup folder ({exc.strerror or exc}); nothing was changed"
        raise StorageError(reason, parent) from exc
    raise StorageError("too many backups in the same second", parent)
