"""Decoded images, loaded on the pool and kept in a small LRU cache.

Keys include the file's size and modification time, so an image replaced on disk (an
accepted repair, another tool) is decoded again instead of shown stale. A request for an
image already being decoded joins that decode instead of starting a second one.
"""

from __future__ import annotations

from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QObject, QThreadPool, Signal

from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.qimage import DisplayImage, decode_for_display
from sabre_desk.gui.workers import Worker

DEFAULT_BUDGET_BYTES = 768 * 1024 * 1024  # ≈ 16 decoded 2048×2048 images plus headroom

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

    def __init__(
        self,
        pool: QThreadPool,
        budget_bytes: int = DEFAULT_BUDGET_BYTES,
        parent: QObject | None = None,
    ):
        super().__init__(parent)
        self.pool = pool
        self.budget = budget_bytes
        self._cache: OrderedDict[Key, DisplayImage] = OrderedDict()
        self._bytes = 0
        self._failures: dict[Key, str] = {}
        self._in_flight: set[Key] = set()
        self._queued: dict[Key, Worker] = {}  # started but maybe still waiting for a thread

    def cached(self, key: Key) -> DisplayImage | None:
        image = self._cache.get(key)
        if image is not None:
            self._cache.move_to_end(key)
        return image

    def failure(self, key: Key) -> str | None:
        return self._failures.get(key)

    def request(self, path: Path) -> Key:
        """Make sure *path* is (being) decoded; ``loaded`` or ``failed`` follows if not cached."""
        key = image_key(path)
        if key in self._cache or key in self._failures or key in self._in_flight:
            return key
        self._in_flight.add(key)
        worker = Worker(decode_for_display, path)
        worker.signals.returned.connect(lambda image, k=key: self._on_returned(k, image))
        worker.signals.errored.connect(lambda exc, k=key: self._on_errored(k, exc))
        worker.signals.finished.connect(lambda k=key: self._queued.pop(k, None))
        self._queued[key] = worker
        worker.start(self.pool)
        return key

    def cancel_except(self, keep: set[Key]) -> int:
        """Drop decodes still waiting for a thread unless in *keep* (the reviewer moved on).

        Flipping quickly through cases would otherwise queue dozens of decodes nobody will
        look at, and the threads doing them compete with the GUI thread.
        """
        dropped = 0
        for key, worker in list(self._queued.items()):
            if key not in keep and worker.withdraw(self.pool):
                del self._queued[key]
                self._in_flight.discard(key)
                dropped += 1
        return dropped

    def _on_returned(self, key: Key, image: DisplayImage) -> None:
        self._in_flight.discard(key)
        self._cache[key] = image
        self._bytes += image.size_in_bytes()
        while self._bytes > self.budget and len(self._cache) > 1:
            _, old = self._cache.popitem(last=False)
            self._bytes -= old.size_in_bytes()
        self.loaded.emit(key, image)

    def _on_errored(self, key: Key, exc: Exception) -> None:
        self._in_flight.discard(key)
        message = exc.message if isinstance(exc, ProjectError) else f"{key[0]}: {exc}"
        self._failures[key] = message
        self.failed.emit(key, message)

    def clear(self) -> None:
        self._cache.clear()
        self._failures.clear()
        self._bytes = 0
