"""Images for the screen, loaded on the pool and kept in a small LRU cache.

Previews first: a request is answered from the preview cache on disk when it can be (a few
milliseconds), and the full image is decoded only when asked for (the zoom needs it) or
when there is no preview yet (then its preview is written behind it). In memory, every
image is held as its preview; the full-resolution level is kept only for the images of the
case on screen and of the last cases zoomed into.

The images of the case on screen (``now``) are decoded side by side, one thread each, and
each is shown as it lands: a jump to a case never shown costs about the slower of its two
decodes, not their sum. Neighbours read ahead stay on the pool that leaves the window a
core of its own.

Keys include the file's size and modification time, so an image replaced on disk (an
accepted repair, another tool) is loaded again instead of shown stale. A request for an
image already being loaded joins that load instead of starting a second one.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal, Slot

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.preview_cache import PreviewStore, stamp
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.machinery.qimage import DisplayImage, load_for_display
from sabre_desk.gui.machinery.workers import Worker, screen_pool
from sabre_desk.imaging.io import find_image

DEFAULT_BUDGET_BYTES = 512 * 1024 * 1024
PREVIEW_THREADS = 2
#: How often (at most) the budget is asked again of its source (free memory changes).
BUDGET_REFRESH_S = 2.0
#: Full images kept for the images last zoomed into (two cases of a pair).
ZOOMED_KEPT = 4

Key = tuple[str, int, int]


def image_key(path: Path) -> Key:
    try:
        st = path.stat()
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_mtime_ns, st.st_size)


class ImageLoader(QObject):
    loaded = Signal(object, object)  # Key, DisplayImage
    failed = Signal(object, str)  # Key, message a person can act on
    stale = Signal(object)  # Key of an image on screen whose stored preview was wrong

    def __init__(
        self,
        pool: QThreadPool,
        budget: Callable[[], int] = lambda: DEFAULT_BUDGET_BYTES,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.pool = pool
        # Writing and checking previews (GIL-free: OpenCV's encoder, hashlib) on a thread of
        # their own: they never delay a decode, and never pile up behind one.
        self.background = QThreadPool(self)
        self.background.setMaxThreadCount(1)
        # Reading a stored preview takes a few milliseconds, mostly in OpenCV's JPEG decoder
        # (GIL-free): the two images of a pair are read at once, on both cores; so are the
        # two images of a case on screen that has no previews yet (decoded in full).
        self.previews = screen_pool(self, PREVIEW_THREADS)
        self._budget_source = budget
        self.budget = budget()
        self._budget_at = time.monotonic()
        self.store: PreviewStore | None = None
        #: the open project's decode verdicts: a full decode here is one
        self.verdicts: DecodeCache | None = None
        #: the zoom the canvases show images at now (None: not known); a preview is read
        #: only at the level such a view needs
        self.view_scale: Callable[[], float | None] = lambda: None
        self._cache: OrderedDict[Key, DisplayImage] = OrderedDict()
        self._bytes = 0
        self._failures: dict[Key, str] = {}
        self._in_flight: dict[Key, bool] = {}  # key → the full image was asked for
        self._queued: dict[Key, Worker] = {}  # started but maybe still waiting for a thread
        self._current: set[Key] = set()  # the images on screen: their full level is kept
        #: previews read and not yet checked against their images: each is checked once the
        #: reviewer settles on its case (a case flipped past is not, unless it comes back)
        self._unchecked: set[Key] = set()
        self._zoomed: deque[Key] = deque(maxlen=ZOOMED_KEPT)

    @property
    def held_bytes(self) -> int:
        return self._bytes

    def set_store(self, store: PreviewStore | None) -> None:
        """The open project's preview cache (None: decode everything)."""
        self.store = store

    def cached(self, key: Key) -> DisplayImage | None:
        """The most detailed version held of *key* (maybe only its preview)."""
        image = self._cache.get(key)
        if image is not None:
            self._cache.move_to_end(key)
        return image

    def failure(self, key: Key) -> str | None:
        return self._failures.get(key)

    def request(self, path: Path, full: bool = False, now: bool = False) -> Key:
        """Make sure *path* is (being) loaded, as its full image when *full*; ``loaded`` or
        ``failed`` follows unless it is held already. *now*: it is wanted on screen now
        (not read ahead), and is decoded beside the other image of its case."""
        key = image_key(path)
        if full and key not in self._zoomed:
            self._zoomed.append(key)
        held = self._cache.get(key)
        if key in self._failures or (held is not None and (not full or not held.is_preview)):
            return key
        if key in self._in_flight and (self._in_flight[key] or not full):
            queued = self._queued.get(key)
            if now and not full and queued is not None and queued.withdraw():
                self._start(key, path, False, self.previews)  # read ahead, wanted now
            return key
        self._in_flight[key] = full
        on_screen = now or self._has_preview(path)  # both cores: the reviewer waits for it
        self._start(key, path, full, self.previews if on_screen and not full else self.pool)
        return key

    def _start(self, key: Key, path: Path, full: bool, pool: QThreadPool) -> None:
        worker = Worker(_load, key, path, self.store, full, self.view_scale(), self.verdicts)
        # Bound methods, not lambdas: a method of a loader that is gone is not called (a
        # window closed while a decode was still on its way).
        worker.returned.connect(self._on_result)
        self._queued[key] = worker
        worker.start(pool)

    def request_folder(self, folder: Path, now: bool = False) -> list[Key]:
        """Request every image of a case folder: a case about to be shown (*now*; Base
        first), or a neighbour read ahead."""
        paths = (find_image(folder, role.value) for role in ImageRole)
        return [self.request(path, now=now) for path in paths if path is not None]

    def cancel_except(self, keep: set[Key]) -> int:
        """The images in *keep* are the ones on screen now: drop decodes still waiting for a
        thread for any other (the reviewer moved on), and keep only the full images of
        these and of the last ones zoomed into.

        Flipping quickly through cases would otherwise queue dozens of decodes nobody will
        look at, and the threads doing them compete with the GUI thread.
        """
        self._current = set(keep)
        if time.monotonic() - self._budget_at > BUDGET_REFRESH_S:
            self.budget, self._budget_at = self._budget_source(), time.monotonic()
        dropped = 0
        for key, worker in list(self._queued.items()):
            if key not in keep and worker.withdraw():
                del self._queued[key]
                self._in_flight.pop(key, None)
                dropped += 1
        for key, image in list(self._cache.items()):
            if not image.is_preview and not self._keeps_full(key):
                self._put(key, image.preview())
        return dropped

    def check_previews(self) -> None:
        """The case on screen has settled: its previews are checked against their images now
        (hashing them while it was being shown, or while the reviewer flips past it, would
        compete with the window for the cores)."""
        due = self._unchecked & self._current
        self._unchecked -= due
        if self.store is not None:
            for key in sorted(due):
                checker = Worker(_check, key, self.store)
                checker.returned.connect(self._on_checked)
                checker.start(self.background)

    def _has_preview(self, path: Path) -> bool:
        source = stamp(path) if self.store is not None else None
        return (
            source is not None and self.store is not None and self.store.file_for(source).exists()
        )

    def _keeps_full(self, key: Key) -> bool:
        return key in self._current or key in self._zoomed

    @Slot(object)
    def _on_result(self, result: tuple[Key, DisplayImage | Exception]) -> None:
        key, image = result
        self._queued.pop(key, None)
        if isinstance(image, Exception):
            self._on_errored(key, image)
        else:
            self._on_returned(key, image)

    def _on_returned(self, key: Key, image: DisplayImage) -> None:
        self._in_flight.pop(key, None)
        if image.unstored is not None and self.store is not None:
            source, sha256, levels = image.unstored
            image.unstored = None
            size = (image.width, image.height)
            writer = Worker(self.store.write, Path(key[0]), size, levels, source, sha256)
            writer.start(self.background)
        elif image.is_preview and self.store is not None:
            self._unchecked.add(key)
        held = self._cache.get(key)
        if held is None or image.top_scale >= held.top_scale:
            self._put(key, image if self._keeps_full(key) else image.preview())
        self.loaded.emit(key, image)

    def _put(self, key: Key, image: DisplayImage) -> None:
        old = self._cache.pop(key, None)
        if old is not None:
            self._bytes -= old.size_in_bytes()
        self._cache[key] = image
        self._bytes += image.size_in_bytes()
        while self._bytes > self.budget and len(self._cache) > 1:
            gone, evicted = self._cache.popitem(last=False)
            self._bytes -= evicted.size_in_bytes()
            self._unchecked.discard(gone)  # read again (and checked) if it is shown again

    @Slot(object)
    def _on_checked(self, result: tuple[Key, bool]) -> None:
        """A stored preview was made from other bytes than the file holds (its ``stat``
        was kept while its content changed): forget it and have it loaded again."""
        key, matches = result
        held = self._cache.get(key)
        if not matches and held is not None and held.is_preview:
            self._bytes -= held.size_in_bytes()
            del self._cache[key]
            if key in self._current:
                self.stale.emit(key)

    def _on_errored(self, key: Key, exc: Exception) -> None:
        self._in_flight.pop(key, None)
        message = exc.message if isinstance(exc, ProjectError) else f"{key[0]}: {exc}"
        self._failures[key] = message
        self.failed.emit(key, message)

    def clear(self) -> None:
        self._cache.clear()
        self._failures.clear()
        self._zoomed.clear()
        self._unchecked.clear()
        self._bytes = 0


def _load(
    key: Key,
    path: Path,
    store: PreviewStore | None,
    full: bool,
    view_scale: float | None,
    verdicts: DecodeCache | None,
) -> tuple[Key, DisplayImage | Exception]:
    try:
        return key, load_for_display(path, store, full, view_scale, verdicts)
    except Exception as exc:  # reported for this key, in ``failed``
        return key, exc


def _check(key: Key, store: PreviewStore) -> tuple[Key, bool]:
    return key, store.verify(Path(key[0]))
