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
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.errors import ProjectError, StorageError

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
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
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


def dumps_json(data: Any) -> bytes:
    """The project's JSON style: UTF-8, two-space indent, trailing newline, stable for diffs."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def atomic_write_json(path: Path, data: Any) -> bytes:
    """Write *data* as JSON atomically; returns the bytes written (for change detection)."""
    payload = dumps_json(data)
    atomic_write_bytes(path, payload)
    return payload


def decode_json_bytes(raw: bytes, path: Path, error: type[ProjectError] = ProjectError) -> Any:
    """Parse JSON bytes, raising *error* that names the file, the line and the reason."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (bad byte at offset {exc.start})", path) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"corrupt JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", path
        ) from exc


def read_json(path: Path, error: type[ProjectError] = ProjectError) -> tuple[Any, bytes]:
    """Read and parse a JSON file; returns (data, raw bytes)."""
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise error("file is missing", path) from exc
    except OSError as exc:
        raise error(f"cannot read ({exc.strerror or exc})", path) from exc
    return decode_json_bytes(raw, path, error), raw


def fingerprint(raw: bytes | None) -> str | None:
    """A content hash used to notice that a file changed since we read it."""
    return None if raw is None else hashlib.sha256(raw).hexdigest()


def file_fingerprint(path: Path) -> str | None:
    try:
        return fingerprint(Path(path).read_bytes())
    except FileNotFoundError:
        return None


def probe_writable(folder: Path) -> bool:
    """Whether new files can be created in *folder*.

    ``access(2)`` also answers for root: it reports read-only mounts (EROFS) and immutable
    folders (EPERM), so no probe file needs to be written into a shared project folder.
    A disk that fills up later is caught by the writer itself.
    """
    return os.access(folder, os.W_OK | os.X_OK)


# --- history.jsonl -------------------------------------------------------------------


@dataclass
class History:
    """Entries of a history.jsonl plus why some lines could not be read (reported, skipped)."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def append_history(path: Path, entry: dict[str, Any]) -> None:
    """Append one event line; flushed and fsynced so an acknowledged change is on disk.

    If a previous crash left a torn last line (no newline), a newline is written first so
    the torn fragment stays one bad line instead of corrupting this entry too.
    """
    line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path = Path(path)
    try:
        with path.open("ab+") as fh:
            prefix = b""
            if fh.seek(0, os.SEEK_END) > 0:
                fh.seek(-1, os.SEEK_END)
                if fh.read(1) != b"\n":
                    prefix = b"\n"
            fh.write(prefix + line + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise StorageError(f"cannot append to history ({exc.strerror or exc})", path) from exc


def iter_history_lines(raw: bytes) -> Iterator[tuple[int, bytes]]:
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if line.strip():
            yield number, line


def read_history(path: Path) -> History:
    """Read history.jsonl; a torn or corrupt line is skipped and reported, never fatal."""
    history = History()
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return history
    except OSError as exc:
        history.problems.append(f"cannot read ({exc.strerror or exc})")
        return history
    torn_tail = bool(raw) and not raw.endswith(b"\n")
    lines = list(iter_history_lines(raw))
    for index, (number, line) in enumerate(lines):
        try:
            entry = json.loads(line.decode("utf-8"))
            if not isinstance(entry, dict):
                raise ValueError("not an object")
        except (UnicodeDecodeError, ValueError):
            last = index == len(lines) - 1
            kind = "torn last line (an interrupted write)" if last and torn_tail else "bad line"
            history.problems.append(f"line {number}: {kind}, skipped")
            continue
        history.entries.append(entry)
    return history
