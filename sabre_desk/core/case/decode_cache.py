"""Which images decode fully, remembered by the files' identity.

Deciding that a case is valid means decoding every one of its images (a truncated PNG has
a perfect header), which costs tens of milliseconds an image: fine for one case, minutes
for 100,000. So each verdict is kept in a small SQLite file in the per-user cache folder
(``…/sabre-desk/projects/<name>-<hash of its path>/validity.sqlite``: checking a project
never writes into it, and each member of a team keeps their own), keyed by the image's path
in the project and what ``stat`` says of it (inode, size, modification and change times in
ns). An image rewritten in any way gets a
new identity and is decoded again; the same file is never decoded twice.

It is a cache: any failure to open, read or write it is a miss (the image is decoded), never
an error, and deleting it loses nothing but time. SQLite is in the standard library and
takes care of several windows and commands using it at once.

The window decodes a case's images to show them; that decode is a verdict too
(``decoding``), so the check of the case on screen does not decode each image a second
time: a check of a file being decoded for the screen waits for that decode's outcome. On two
cores, the second decode competed with the window for the cores and the interpreter lock at
every case switch.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.preview_cache import stamp, user_cache_folder
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.io import check_decodes

CACHE_NAME = "validity.sqlite"
#: Bumped when what "decodes" means changes (a new limit, a new decoder): old verdicts
#: are then never read.
RULES_VERSION = 2
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS decoded ("
    " path TEXT PRIMARY KEY, identity TEXT NOT NULL, reason TEXT)"
)


def identity(path: Path) -> str | None:
    """The image's identity now (None: no file)."""
    found = stamp(path)
    if found is None:
        return None
    return "{}:{ino}:{size}:{mtime_ns}:{ctime_ns}".format(RULES_VERSION, **found)


#: How long a check waits for a decode made for the screen before decoding itself (a
#: decode of the largest image accepted takes a few seconds).
WAIT_FOR_DECODE_S = 30.0


@dataclass
class _Decoding:
    """A decode under way elsewhere: the identity of the file it reads, and its end."""

    identity: str
    done: threading.Event = field(default_factory=threading.Event)


class DecodeCache:
    """Decode verdicts of one project's images; safe to share between threads."""

    def __init__(self, root: Path, file: Path | None):
        self.root = Path(root).absolute()
        self.file = file
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._broken = file is None
        #: decodes made for the screen, under way, by key
        self._decoding: dict[str, _Decoding] = {}

    @classmethod
    def for_project(cls, root: Path) -> DecodeCache:
        return cls(root, user_cache_folder(root) / CACHE_NAME)

    @classmethod
    def disabled(cls, root: Path) -> DecodeCache:
        """Every image decoded every time (``validate --no-cache``)."""
        return cls(root, None)

    # --- the file ----------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is not None or self._broken or self.file is None:
            return self._db
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            if self.file.is_symlink():
                raise OSError("the cache file is a link; nothing is written through it")
            db = sqlite3.connect(self.file, timeout=5, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            db.commit()
        except (sqlite3.Error, OSError):
            self._broken = True
            return None
        self._db = db
        return db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._db.close()
                self._db = None

    def _key(self, path: Path) -> str:
        try:
            return Path(path).absolute().relative_to(self.root).as_posix()
        except ValueError:
            return str(Path(path).absolute())

    # --- verdicts ----------------------------------------------------------------------

    def _lookup(self, key: str) -> tuple[str, str | None] | None:
        with self._lock:
            db = self._connect()
            if db is None:
                return None
            try:
                row = db.execute(
                    "SELECT identity, reason FROM decoded WHERE path = ?", (key,)
                ).fetchone()
            except sqlite3.Error:
                return None
        return None if row is None else (str(row[0]), row[1])

    def _store(self, key: str, found: str, reason: str | None) -> None:
        with self._lock:
            db = self._connect()
            if db is None:
                return
            try:
                db.execute(
                    "INSERT OR REPLACE INTO decoded (path, identity, reason) VALUES (?, ?, ?)",
                    (key, found, reason),
                )
                db.commit()
            except sqlite3.Error:
                with contextlib.suppress(sqlite3.Error):
                    db.rollback()

    @contextlib.contextmanager
    def decoding(self, path: Path) -> Iterator[None]:
        """Around a full decode of *path* made elsewhere (for the screen): an ImageError
        out of it is the file's verdict, a clean exit that it decodes; a ``check`` of the
        same file meanwhile waits for the outcome instead of decoding it again."""
        key, found = self._key(path), identity(path)
        if found is None:
            yield
            return
        mine = _Decoding(found)
        with self._lock:
            self._decoding.setdefault(key, mine)
        try:
            yield
        except ImageError as exc:
            if found == identity(path):
                self._store(key, found, exc.reason)
            raise
        else:
            if found == identity(path):  # not replaced while decoding
                self._store(key, found, None)
        finally:
            with self._lock:
                if self._decoding.get(key) is mine:
                    del self._decoding[key]
            mine.done.set()

    def _wait_for_screen(self, key: str, found: str) -> None:
        with self._lock:
            under_way = self._decoding.get(key)
        if under_way is not None and under_way.identity == found:
            under_way.done.wait(WAIT_FOR_DECODE_S)

    def check(self, path: Path) -> None:
        """Raise ImageError unless the image at *path* decodes fully (decoded only when
        this file, as it is now, was never decoded before, here or for the screen)."""
        key, found = self._key(path), identity(path)
        if found is not None:
            self._wait_for_screen(key, found)
            known = self._lookup(key)
            if known is not None and known[0] == found:
                if known[1] is not None:
                    raise ImageError(known[1], path)
                return
        try:
            check_decodes(path)
        except ImageError as exc:
            if found is not None and found == identity(path):
                self._store(key, found, exc.reason)
            raise
        if found is not None and found == identity(path):  # not replaced while decoding
            self._store(key, found, None)

    def known_failures(self) -> Iterator[tuple[Path, str]]:
        """(image, reason) for every image whose last decode failed and that is still the
        same file: what the window marks invalid before it has looked at a case."""
        with self._lock:
            db = self._connect()
            if db is None:
                return
            try:
                rows = db.execute(
                    "SELECT path, identity, reason FROM decoded WHERE reason IS NOT NULL"
                ).fetchall()
            except sqlite3.Error:
                return
        for key, found, reason in rows:
            path = self.root / key
            if identity(path) == found:
                yield path, str(reason)
