"""Bounded reading: only regular files, only up to a size, JSON only up to a depth.

A project folder comes from other people and other programs (a synced drive, a zip, a
generation pipeline). Whatever lies in it, a read must end quickly with the file's content
or one clear reason: a FIFO named ``spec.json`` must not block a command forever, a link to
``/dev/zero`` must not fill the memory, JSON nested 100,000 deep must not blow the stack.
Every read of a project file goes through here.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from sabre_desk.ground.errors import ProjectError

KB, MB = 1 << 10, 1 << 20

#: Largest file of each kind read whole into memory. Generous for real files (a spec is a
#: few KB, a review with many repairs a few hundred KB), small enough for a laptop.
#: The one table of limits: the readers refuse a file over its kind's limit and the writers
#: (``storage.atomic_write_json(..., kind=...)``) refuse to write one, so nothing the app
#: writes can be a file its own reader calls too large. docs/PROJECT_FORMAT.md lists it.
LIMITS: dict[str, int] = {
    "manifest": 1 * MB,
    "spec": 1 * MB,
    "review": 8 * MB,
    "screening": 16 * MB,
    "settings": 1 * MB,
    "primer": 1 * MB,
    "release": 64 * MB,
    "assignments": 64 * MB,
    "lock": 64 * KB,
    "status": 64 * KB,  # a staged case's last failure
    "image record": 1 * MB,  # what made each image of a staged case
    "manifest.sha256": 256 * MB,
    "screening brief": 256 * KB,  # screening.brief.json: the latest run in brief
    "request cache entry": 1 * MB,  # cache/requests/xx/<key>.json: one answer
    "prediction line": 16 * MB,  # one line of a predictions file (``score`` reads them)
    # Not a file: the longest model answer (text) kept anywhere. The prompts ask for a
    # word or a letter in a few tokens; a reply longer than this is a failed call, and only
    # an excerpt of it is kept with the reason.
    "kept answer": 16 * KB,
    # Not a file: the longest accepted specification reply kept in its generation record
    # (a rejected reply is never kept, only its length and the reasons).
    "kept reply": 64 * KB,
    # What a model's reply may weigh on the wire, read with the limit before it is parsed
    # (engines/reply_limits.py): a text answer's envelope (ids, usage, safety ratings) plus
    # ``model reply per token`` bytes for each output token it may use, …
    "model answer": 64 * KB,
    "model reply per token": 32,
    # … a specification (the spec's own limit above, JSON-escaped, plus the envelope), …
    "model spec reply": 3 * MB,
    # … an image (the largest image file accepted, base64 in JSON), …
    "model image reply": 96 * MB,
    # … and a batch job's results (every answer of one job, as one file or one listing; a
    # job of images holds every image it made, so it may be far larger).
    "model batch results": 256 * MB,
    "model image batch results": 4096 * MB,
}
#: How much of an over-long reply is kept beside the reason it was refused.
EXCERPT_CHARS = 80
#: Deepest JSON nesting accepted: the formats nest four or five levels.
MAX_JSON_DEPTH = 64

_KIND_NAMES = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def describe_kind(mode: int) -> str:
    return _KIND_NAMES.get(stat.S_IFMT(mode), "not a regular file")


def folder_problem(path: Path | str) -> str | None:
    """Why *path* cannot be opened as a folder (a project, a release), in a person's words,
    or None: a path that names nothing is missing, a file is not a folder."""
    try:
        mode = Path(path).stat().st_mode
    except FileNotFoundError:
        return "does not exist"
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISDIR(mode):
        kind = "a file" if stat.S_ISREG(mode) else describe_kind(mode)
        return f"is {kind}, not a folder"
    return None


def human_size(size: int) -> str:
    if size >= MB:
        return f"{size / MB:,.1f} MB"
    if size >= KB:
        return f"{size / KB:,.1f} KB"
    return f"{size} bytes"


@contextlib.contextmanager
def open_regular(
    path: Path | str,
    error: type[ProjectError] = ProjectError,
    follow_links: bool = True,
    missing: str = "file is missing",
) -> Iterator[tuple[IO[bytes], int]]:
    """Open *path* for reading only if it is a regular file; yields (file, size).

    Opened non-blocking so that a FIFO cannot stall the open itself, then checked with
    ``fstat`` on the open descriptor (no gap between the check and the read). A symbolic
    link is followed only when *follow_links*; either way what it leads to must be a
    regular file.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError as exc:
        raise error(missing, path) from exc
    except OSError as exc:
        if not follow_links and Path(path).is_symlink():
            raise error("is a symbolic link; links are not followed here", path) from exc
        raise error(f"cannot read ({exc.strerror or exc})", path) from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"is {describe_kind(info.st_mode)}, not a regular file; not read", path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle, info.st_size


def read_limited(
    path: Path | str,
    limit: int,
    error: type[ProjectError] = ProjectError,
    follow_links: bool = True,
) -> bytes:
    """The whole content of a regular file of at most *limit* bytes, or *error*.

    The size is checked before reading and again while reading (a file that grows, or a
    filesystem that reports 0 for everything, cannot make us read more than *limit*).
    """
    with open_regular(path, error, follow_links) as (handle, size):
        if size > limit:
            raise error(
                f"file is too large ({human_size(size)}; the limit is {human_size(limit)})",
                path,
            )
        try:
            data = read_upto(handle.read, size, limit)
        except OSError as exc:
            raise error(f"cannot read ({exc.strerror or exc})", path) from exc
    if len(data) > limit:
        raise error(f"file is too large (over {human_size(limit)})", path)
    return data


def read_upto(read: Callable[[int], bytes], size: int, limit: int) -> bytes:
    """Up to limit + 1 bytes from *read*, asking for what ``fstat`` said is there (a buffer
    of the limit's size for every small file would cost a large allocation each time)."""
    chunks = [read(min(size, limit) + 1)]
    total = len(chunks[0])
    while chunks[-1] and total <= limit and total > size:
        # The file grew since fstat (or its size is not reported): keep reading, bounded.
        chunks.append(read(min(limit + 1 - total, MB)))
        total += len(chunks[-1])
    return b"".join(chunks)


def json_depth_problem(value: Any, limit: int = MAX_JSON_DEPTH) -> str | None:
    """Why *value* nests too deeply, or None. Iterative, so it cannot overflow itself."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return f"JSON is nested more than {limit} levels deep"
        stack.extend((child, depth + 1) for child in children)
    return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:24]} is out of range")
    return value


def loads(text: str | bytes) -> Any:
    """``json.loads`` for data from elsewhere: strict JSON (no NaN or Infinity, finite
    numbers), at most MAX_JSON_DEPTH deep, and every failure a ValueError with a reason a
    person can read (a 5,000-digit integer, 100,000 brackets, a torn line)."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"corrupt JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise ValueError(f"JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None
    except ValueError as exc:  # a huge integer, a constant, a number out of range
        raise ValueError(f"unreadable JSON: {str(exc)[:160]}") from None
    problem = json_depth_problem(data)
    if problem:
        raise ValueError(problem)
    return data


def parse_json(raw: bytes, path: Path | str, error: type[ProjectError] = ProjectError) -> Any:
    """Parse JSON bytes, raising *error* that names the file, the line and the reason."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (bad byte at offset {exc.start})", path) from exc
    try:
        return loads(text)
    except ValueError as exc:
        raise error(str(exc), path) from None


def read_json_file(
    path: Path | str,
    kind: str,
    error: type[ProjectError] = ProjectError,
    follow_links: bool = True,
) -> tuple[Any, bytes]:
    """Read and parse one JSON file of a known *kind* (see LIMITS); returns (data, raw)."""
    raw = read_limited(path, LIMITS[kind], error, follow_links)
    return parse_json(raw, path, error), raw


def iter_lines(
    path: Path | str, max_line: int, error: type[ProjectError] = ProjectError
) -> Iterator[tuple[int, bytes | None]]:
    """(line number, line) for each non-empty line of a regular file, in bounded memory.

    A line longer than *max_line* is yielded as None (its content is never held whole),
    so a garbage file of any size is skimmed with constant memory.
    """
    with open_regular(path, error) as (handle, _):
        yield from iter_stream_lines(handle, max_line, path, error)


def iter_stream_lines(
    handle: IO[bytes],
    max_line: int,
    where: Path | str,
    error: type[ProjectError] = ProjectError,
) -> Iterator[tuple[int, bytes | None]]:
    """``iter_lines`` of an open stream (standard input, a pipe), named *where* in errors."""
    number = 0
    while True:
        try:
            line = handle.readline(max_line + 1)
        except OSError as exc:
            raise error(f"cannot read ({exc.strerror or exc})", where) from exc
        if not line:
            return
        number += 1
        if len(line) > max_line and not line.endswith(b"\n"):
            # Skip the rest of an over-long line without keeping it.
            while True:
                rest = handle.readline(MB)
                if not rest or rest.endswith(b"\n"):
                    break
            yield number, None
            continue
        if line.strip():
            yield number, line.rstrip(b"\r\n")


class QuickReadError(ValueError):
    """A file the index cannot read (not regular, too large); the message is the reason."""


class LinkFoundError(QuickReadError):
    """``quick_json(..., follow_links=False)`` met a symbolic link (the caller decides)."""


def quick_json(path: str, limit: int, follow_links: bool = True) -> Any:
    """Parse a small JSON file (the index's hot loop); None when absent, ValueError if bad.

    The hot loop of indexing, so plain ``os`` calls; still only regular files of at most
    *limit* bytes are read (a FIFO or a link to a device would block or never end). Without
    *follow_links* a symbolic link is not opened: LinkFoundError.
    """
    flags = _QUICK_FLAGS if follow_links else _QUICK_FLAGS | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if not follow_links and Path(path).is_symlink():
            raise LinkFoundError("is a symbolic link") from exc
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise QuickReadError(f"is {describe_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise QuickReadError(
                f"file is too large ({human_size(info.st_size)}; the limit is {human_size(limit)})"
            )
        raw = read_upto(functools.partial(os.read, fd), info.st_size, limit)
    finally:
        os.close(fd)
    if len(raw) > limit:
        raise QuickReadError(f"file is too large (over {human_size(limit)})")
    try:
        return json.loads(raw)
    except RecursionError:
        raise QuickReadError(f"JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None


_QUICK_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def short_reason(exc: Exception) -> str:
    """Why a file could not be read or parsed, in one line."""
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (bad byte at offset {exc.start})"
    if isinstance(exc, json.JSONDecodeError):
        return f"corrupt JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    return str(exc)
