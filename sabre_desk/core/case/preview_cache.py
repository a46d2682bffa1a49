"""The preview cache: every image's reduced display levels on disk, so a jump to any case
shows both images in a few milliseconds instead of decoding two full images.

Where: ``<project>/.sabre-desk-cache/previews/`` (beside ``cases/``, never inside it, so
indexing, validation and export never see it), or, for a project that cannot be written, a
folder of its own in the per-user cache folder. The folder carries a ``CACHEDIR.TAG`` (backup
tools skip it) and a ``.gitignore``; deleting it loses nothing but time.

Which: a preview file is named after what ``stat`` says of its source (inode, size,
modification and change times, in ns), so finding it costs one ``stat`` and no read of the
source. An image rewritten or replaced (an accepted repair, another tool) gets a new name
and its old preview is never read again; the file also records the source's SHA-256, which
``verify`` checks against the image (the window does after showing a preview).

Whose: every preview is signed with a secret of the user's (``preview.key`` in the per-user
cache folder) and named with it, so a preview someone else put in a shared project folder is
never shown (a crafted file naming case A's image but holding case B's pixels is a miss),
and two people sharing a project keep their own previews instead of discarding each
other's. The shard folders ``previews/<xx>`` are never followed when they are links: a link
there is replaced by a real folder before anything is written, and read as a miss.

How much: at most ``limit_bytes``; past it the least recently used previews (by
modification time, refreshed on every use) are removed. Every failure to read or write is a
miss, never an error: the window then decodes the image itself.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat as stat_module
import threading
from dataclasses import dataclass
from pathlib import Path

from platformdirs import user_cache_dir

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.errors import ImageError, ProjectError
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.ground.reading import read_limited
from sabre_desk.ground.storage import TEMP_SUFFIX, atomic_write_bytes, probe_writable
from sabre_desk.imaging.io import find_image, load_bgra
from sabre_desk.imaging.preview_file import (
    Preview,
    decode_preview,
    encode_preview,
    preview_levels,
    signed_header,
)
from sabre_desk.imaging.pyramid import Level, screen_levels

#: The cache folder at the root of a writable project.
PROJECT_CACHE_DIR = ".sabre-desk-cache"
PREVIEWS_DIR = "previews"
SUFFIX = ".preview"
#: Moves the per-user cache folder (tests, portable installs), like SABRE_DESK_CONFIG_DIR.
CACHE_ENV = "SABRE_DESK_CACHE_DIR"
DEFAULT_LIMIT_BYTES = 2 * 1024**3
#: A preview file larger than this is not one (a 1600-pixel JPEG is well under 2 MB).
MAX_PREVIEW_BYTES = 32 * 1024**2
#: Pruning goes this far under the limit, so it does not run again at the next write.
PRUNE_TO = 0.9
CACHEDIR_TAG = (
    b"Signature: 8a477f597d28d172789f06886806bc55\n"
    b"# This folder holds sabre-desk's previews; it can be deleted at any time.\n"
)

Stamp = dict[str, int]
KEY_NAME = "preview.key"
KEY_BYTES = 32
_keys: dict[Path, bytes] = {}
_keys_lock = threading.Lock()


def preview_key() -> bytes:
    """This user's secret that signs their previews, made once in the per-user cache folder
    (0600). When it cannot be kept there, a secret for this process only (its previews are
    then made again by the next one: a cache, nothing lost)."""
    path = user_cache_root() / KEY_NAME
    with _keys_lock:
        if path not in _keys:
            _keys[path] = _load_or_make_key(path) or secrets.token_bytes(KEY_BYTES)
        return _keys[path]


def _load_or_make_key(path: Path) -> bytes | None:
    for _ in range(2):
        try:
            key = read_limited(path, 1024, ProjectError, follow_links=False)
            return key if len(key) == KEY_BYTES else None
        except ProjectError:
            pass
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue  # another process made it meanwhile: read theirs
        except OSError:
            return None
        key = secrets.token_bytes(KEY_BYTES)
        try:
            os.write(fd, key)
            os.fsync(fd)
        except OSError:
            return None
        finally:
            os.close(fd)
        return key
    return None


def real_folder(folder: Path) -> bool:
    """Whether *folder* is a folder itself, not a link to one (nothing follows a link)."""
    try:
        return stat_module.S_ISDIR(os.lstat(folder).st_mode)
    except OSError:
        return False


def user_cache_root() -> Path:
    override = os.environ.get(CACHE_ENV)
    return Path(override) if override else Path(user_cache_dir("sabre-desk", appauthor=False))


def cache_folder(project_root: Path, read_only: bool | None = None) -> Path:
    """The preview folder of the project at *project_root*.

    In the project when it can be written (and neither cache folder is a link: nothing is
    written through one), else in the per-user cache folder, under a name derived from the
    project's absolute path.
    """
    root = Path(project_root).absolute()
    if read_only is None:
        read_only = not probe_writable(root)
    own = root / PROJECT_CACHE_DIR
    if not read_only and not own.is_symlink() and not (own / PREVIEWS_DIR).is_symlink():
        return own / PREVIEWS_DIR
    return user_cache_folder(root) / PREVIEWS_DIR


def user_cache_folder(project_root: Path) -> Path:
    """The project's own folder in the per-user cache folder, named after its absolute
    path (what is cached there is this user's, never written into the project)."""
    root = Path(project_root).absolute()
    digest = hashlib.sha256(str(root).encode()).hexdigest()[:20]
    return user_cache_root() / "projects" / f"{root.name[:40]}-{digest}"


def stamp(path: Path) -> Stamp | None:
    """What ``stat`` says of *path* that changes whenever its bytes do (None: no file)."""
    try:
        st = path.stat()
    except OSError:
        return None
    return {
        "ino": st.st_ino,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
    }


@dataclass(frozen=True)
class CacheInfo:
    folder: Path
    files: int
    bytes: int
    limit_bytes: int


class PreviewStore:
    """Reads and writes the previews of one project; safe to use from several threads and
    processes at once (every write is atomic, every read checked)."""

    def __init__(
        self, folder: Path, limit_bytes: int = DEFAULT_LIMIT_BYTES, key: bytes | None = None
    ):
        self.folder = Path(folder)
        self.limit_bytes = limit_bytes
        self.key = key if key is not None else preview_key()
        self._key_id = hashlib.sha256(b"sabre-desk preview name:" + self.key).hexdigest()[:16]
        self._lock = threading.Lock()
        self._bytes: int | None = None  # what the folder holds, counted once, then kept

    @classmethod
    def for_project(
        cls, root: Path, read_only: bool | None = None, limit_bytes: int = DEFAULT_LIMIT_BYTES
    ) -> PreviewStore:
        return cls(cache_folder(root, read_only), limit_bytes)

    def __reduce__(self) -> tuple[type[PreviewStore], tuple[Path, int, bytes]]:
        # Sent to worker processes as what it is: a folder, a limit and the signing key.
        return (PreviewStore, (self.folder, self.limit_bytes, self.key))

    def file_for(self, source: Stamp) -> Path:
        name = hashlib.sha256(
            "{key}:{ino}:{size}:{mtime_ns}:{ctime_ns}".format(key=self._key_id, **source).encode()
        ).hexdigest()
        return self.folder / name[:2] / f"{name[2:34]}{SUFFIX}"

    # --- reading ------------------------------------------------------------------------

    def read(self, path: Path, view_scale: float | None = None) -> Preview | None:
        """The preview of the image at *path* as it is now, or None (a miss); with
        *view_scale*, only the level that paints a view at that zoom."""
        source = stamp(path)
        if source is None:
            return None
        file = self.file_for(source)
        data = self._read_bytes(file)
        if data is None:
            return None
        try:
            preview = decode_preview(data, source, view_scale, self.key)
        except (ValueError, RecursionError, MemoryError):
            preview = None
        if preview is None:
            self._discard(file)  # corrupt, truncated or a collision: made again later
            return None
        with contextlib.suppress(OSError):
            os.utime(file)  # recently used: pruned last
        return preview

    def has(self, path: Path) -> bool:
        """Whether a preview of *path* as it is now is stored (its header is checked)."""
        source = stamp(path)
        if source is None:
            return False
        data = self._read_bytes(self.file_for(source))
        found = signed_header(data, self.key) if data is not None else None
        return found is not None and found[0].get("source") == source

    def _read_bytes(self, file: Path) -> bytes | None:
        if not (real_folder(self.folder) and real_folder(file.parent)):
            return None  # a link in the cache is never followed
        try:
            return read_limited(file, MAX_PREVIEW_BYTES, ProjectError, follow_links=False)
        except ProjectError:
            return None

    def verify(self, path: Path) -> bool:
        """False when the stored preview of *path* was made from other bytes than the file
        holds now (it is then removed); True when it matches or there is none."""
        source = stamp(path)
        if source is None:
            return True
        file = self.file_for(source)
        data = self._read_bytes(file)
        found = signed_header(data, self.key) if data is not None else None
        if found is None:
            return True
        try:
            matches = file_sha256(path) == found[0].get("sha256")
        except OSError:
            return True
        if not matches:
            self._discard(file)
        return matches

    # --- writing ------------------------------------------------------------------------

    def write(
        self, path: Path, size: tuple[int, int], levels: list[Level], source: Stamp, sha256: str
    ) -> bool:
        """Store the preview of *path* (full *size* as displayed) made from display *levels*
        of its bytes as *source* describes them; False when there is nothing to store or it
        cannot be written (a full disk, a read-only folder: the cache is only a shortcut)."""
        if stamp(path) != source:
            return False  # changed while it was decoded: this preview is already stale
        kept = preview_levels(levels)
        if not kept:
            return False
        data = encode_preview(size[0], size[1], kept, source, sha256, self.key)
        file = self.file_for(source)
        try:
            self._prepare(file.parent)
            atomic_write_bytes(file, data)
        except (ProjectError, OSError):
            return False
        self._account(len(data))
        return True

    def make(self, path: Path) -> bool:
        """Decode *path* and store its preview unless one is there; True when written."""
        if self.has(path):
            return False
        source = stamp(path)
        if source is None:
            return False
        sha256 = file_sha256(path)
        levels = screen_levels(load_bgra(path))
        full = levels[0][1]
        return self.write(path, (full.shape[1], full.shape[0]), levels, source, sha256)

    def _prepare(self, folder: Path) -> None:
        """Make the shard *folder*; a link in its place (to anywhere) is removed first, and
        a cache folder that is itself a link is refused: nothing is written through one."""
        if os.path.lexists(self.folder) and not real_folder(self.folder):
            raise ProjectError("the preview folder is a link; not written through", self.folder)
        if folder.is_symlink():
            folder.unlink()
        if real_folder(folder):
            return
        folder.mkdir(parents=True, exist_ok=True)
        top = self.folder.parent
        for name, data in (("CACHEDIR.TAG", CACHEDIR_TAG), (".gitignore", b"*\n")):
            if not (top / name).exists():
                with contextlib.suppress(ProjectError):
                    atomic_write_bytes(top / name, data)

    def _account(self, added: int) -> None:
        with self._lock:
            if self._bytes is None:
                self._bytes = sum(size for _, size, _ in self._files())
            else:
                self._bytes += added
            over = self._bytes > self.limit_bytes
        if over:
            self.prune()

    # --- the whole cache ----------------------------------------------------------------

    def _files(self) -> list[tuple[Path, int, int]]:
        """Every preview file (and temp file) as (path, size, mtime_ns)."""
        found: list[tuple[Path, int, int]] = []
        try:
            shards = list(os.scandir(self.folder))
        except OSError:
            return found
        for shard in shards:
            if not shard.is_dir(follow_symlinks=False):
                continue
            try:
                entries = list(os.scandir(shard.path))
            except OSError:
                continue
            for entry in entries:
                if entry.name.endswith((SUFFIX, TEMP_SUFFIX)) and entry.is_file(
                    follow_symlinks=False
                ):
                    with contextlib.suppress(OSError):
                        st = entry.stat(follow_symlinks=False)
                        found.append((Path(entry.path), st.st_size, st.st_mtime_ns))
        return found

    def info(self) -> CacheInfo:
        files = self._files()
        return CacheInfo(self.folder, len(files), sum(s for _, s, _ in files), self.limit_bytes)

    def prune(self) -> int:
        """Remove the least recently used previews until the cache is under its limit."""
        files = sorted(self._files(), key=lambda f: f[2])
        total = sum(size for _, size, _ in files)
        removed = 0
        for file, size, _ in files:
            if total <= self.limit_bytes * PRUNE_TO:
                break
            if self._discard(file):
                total -= size
                removed += 1
        with self._lock:
            self._bytes = total
        return removed

    def clear(self) -> int:
        """Remove every preview; returns how many files were removed."""
        removed = sum(1 for file, _, _ in self._files() if self._discard(file))
        for shard in sorted({f.parent for f, _, _ in self._files()} | self._shards()):
            with contextlib.suppress(OSError):
                shard.rmdir()
        with self._lock:
            self._bytes = 0
        return removed

    def _shards(self) -> set[Path]:
        try:
            return {Path(e.path) for e in os.scandir(self.folder) if e.is_dir()}
        except OSError:
            return set()

    @staticmethod
    def _discard(file: Path) -> bool:
        try:
            file.unlink()
        except OSError:
            return False
        return True


def make_case_previews(store: PreviewStore, folder: Path) -> int:
    """Store the missing previews of one case's images; how many were written."""
    made = 0
    for role in ImageRole:
        path = find_image(folder, role.value)
        if path is not None and not path.is_symlink():
            try:
                made += store.make(path)
            except (ImageError, OSError):  # no preview for a broken image; validate says why
                continue
    return made
