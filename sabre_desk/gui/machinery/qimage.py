"""Decoded images ready for the screen, prepared on a worker thread.

Everything expensive happens off the GUI thread: decoding, conversion to the pixel format
QPixmap uses natively (so ``QPixmap.fromImage`` is a copy, not a conversion), and a small
pyramid of smoothly reduced copies, so painting a 2048×2048 image at fit-to-window zoom
scales a 512-pixel level instead of 4 million pixels on every repaint.

An image may be held without its full-resolution level: a *preview* (the reduced levels,
from the preview cache on disk, or kept after the reviewer left the case). It has the full
image's width and height, so boxes, zoom and pan are the same whichever is shown.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PySide6.QtGui import QImage

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.preview_cache import PreviewStore, stamp
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.imaging.io import load_bgra
from sabre_desk.imaging.preview_file import Preview, preview_levels
from sabre_desk.imaging.pyramid import Level, screen_levels


@dataclass
class DisplayImage:
    """An image's levels as (scale, image), largest first, and its full size. Scale 1.0 is
    the full-resolution image; a preview has only the reduced levels.

    The QImages share memory with the numpy buffers kept in ``_buffers``; QPixmap makes
    its own copy when the image is shown.
    """

    width: int
    height: int
    levels: list[tuple[float, QImage]] = field(default_factory=list)
    _buffers: list[np.ndarray] = field(default_factory=list, repr=False)
    #: what its preview is to be made of, (source stamp, SHA-256, reduced levels) (None:
    #: stored already); only the levels a preview keeps, so a pending write holds little
    unstored: tuple[dict[str, int], str, list[Level]] | None = field(default=None, repr=False)

    @property
    def full(self) -> QImage | None:
        return self.levels[0][1] if self.levels and self.levels[0][0] >= 1.0 else None

    @property
    def top_scale(self) -> float:
        """The most detailed level held: 1.0 with the full image, less for a preview."""
        return self.levels[0][0] if self.levels else 0.0

    @property
    def is_preview(self) -> bool:
        return self.top_scale < 1.0

    def size_in_bytes(self) -> int:
        return sum(img.sizeInBytes() for _, img in self.levels)

    def preview(self) -> DisplayImage:
        """The same image without its full-resolution level (shares the reduced ones)."""
        if not self.is_preview and len(self.levels) > 1:
            return DisplayImage(self.width, self.height, self.levels[1:], self._buffers[1:])
        return self


def _wrap_bgra(bgra: np.ndarray) -> QImage:
    h, w = bgra.shape[:2]
    return QImage(bgra.data, w, h, bgra.strides[0], QImage.Format.Format_RGB32)


def from_levels(width: int, height: int, levels: list[Level]) -> DisplayImage:
    return DisplayImage(
        width,
        height,
        [(scale, _wrap_bgra(px)) for scale, px in levels],
        [px for _, px in levels],
    )


def decode_for_display(path: Path) -> DisplayImage:
    """Decode (EXIF orientation applied) and prepare for painting; runs on a worker."""
    bgra = load_bgra(path)
    return from_levels(bgra.shape[1], bgra.shape[0], screen_levels(bgra))


def preview_image(preview: Preview) -> DisplayImage:
    return from_levels(preview.width, preview.height, preview.levels)


def load_for_display(
    path: Path,
    store: PreviewStore | None,
    full: bool,
    view_scale: float | None = None,
    verdicts: DecodeCache | None = None,
) -> DisplayImage:
    """The stored preview of *path* when there is one and *full* is not asked for (only its
    level for a view at *view_scale*), else the decoded image (marked ``unstored`` when its
    preview is still to be written). A full decode is also the file's verdict in
    *verdicts* (the case's validity check does not decode it again)."""
    if store is not None and not full:
        preview = store.read(path, view_scale)
        if preview is not None:
            return preview_image(preview)
    source = stamp(path) if store is not None else None
    with verdicts.decoding(path) if verdicts is not None else contextlib.nullcontext():
        image = decode_for_display(path)
    if source is not None and store is not None and not store.has(path):
        # Hashing a few MB the decoder has just read costs milliseconds, on this worker.
        levels = zip([s for s, _ in image.levels], image._buffers, strict=True)
        image.unstored = (source, file_sha256(path), preview_levels(list(levels)))
    return image
