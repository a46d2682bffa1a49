"""The SHA-256 of a file, and the memory of it, so that "which image was this judged on?"
costs a stat, not a read, for an image that has not changed.

Screening runs, decisions and releases all name images by content hash. Hashing a 20 MB
image takes ~40 ms; a project of 100,000 cases cannot pay that on every look, so a hash is
remembered against what ``stat`` says of the file (size, modification time in ns, inode,
device). A file rewritten in place keeps its inode but not its mtime; a file replaced by
rename gets a new inode: either way the memory misses and the file is read again.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import IO

CHUNK = 1 << 20
#: Remembered hashes (about 200 bytes each): enough for every image of a 100,000-case project.
MEMORY = 250_000

_Key = tuple[str, int, int, int, int]
_memory: OrderedDict[_Key, str] = OrderedDict()
_lock = threading.Lock()


def hash_stream(handle: IO[bytes]) -> str:
    digest = hashlib.sha256()
    while block := handle.read(CHUNK):
        digest.update(block)
    return digest.hexdigest()


def sha256_file(path: Path) -> str:
    """SHA-256 of a file's bytes, read now (an OSError names the file)."""
    try:
        with path.open("rb") as fh:
            return hash_stream(fh)
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def _key(path: Path) -> _Key:
    st = path.stat()
    return (str(path.absolute()), st.st_size, st.st_mtime_ns, st.st_ino, st.st_dev)


def file_sha256(path: Path) -> str:
    """SHA-256 of *path*, from memory when the file is unchanged since it was last hashed."""
    key = _key(path)
    with _lock:
        known = _memory.get(key)
        if known is not None:
            _memory.move_to_end(key)
            return known
    digest = sha256_file(path)
    if _key(path) == key:  # not rewritten while it was read
        with _lock:
            _memory[key] = digest
            while len(_memory) > MEMORY:
                _memory.popitem(last=False)
    return digest


def remembered_sha256(path: Path) -> str | None:
    """SHA-256 of *path* only if it is remembered and the file is unchanged since; never
    reads the file (None: it would have to be read). For the window, which must not spend
    a frame reading a large image to answer a question a worker will answer shortly."""
    try:
        key = _key(path)
    except OSError:
        return None
    with _lock:
        return _memory.get(key)
