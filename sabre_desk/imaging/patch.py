"""Where a repair happens: the box in pixels, the patch rectangle around it, the marker.

Only the patch — never the full image — goes to a generative engine, with a visible marker
around the box so the engine knows what to change (SABRE paper, Section 3.5, Appendix D.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sabre_desk.ground.errors import RepairError

MARKER_COLOR = (255, 0, 0)  # pure red: rare in scenes, easy to detect if left in a reply


@dataclass(frozen=True)
class PixelRect:
    """A half-open pixel rectangle [x0, x1) × [y0, y1)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def slices(self) -> tuple[slice, slice]:
        return slice(self.y0, self.y1), slice(self.x0, self.x1)

    def relative_to(self, outer: PixelRect) -> PixelRect:
        return PixelRect(
            self.x0 - outer.x0, self.y0 - outer.y0, self.x1 - outer.x0, self.y1 - outer.y0
        )

    def around(self, other: PixelRect) -> PixelRect:
        """The smallest rectangle holding both."""
        return PixelRect(
            min(self.x0, other.x0),
            min(self.y0, other.y0),
            max(self.x1, other.x1),
            max(self.y1, other.y1),
        )


def box_to_pixels(box: tuple[float, float, float, float], width: int, height: int) -> PixelRect:
    """A normalized box as the pixels it covers (at least one pixel each way)."""
    x0, y0, x1, y1 = box
    px0 = min(width - 1, max(0, int(np.floor(x0 * width))))
    py0 = min(height - 1, max(0, int(np.floor(y0 * height))))
    px1 = max(px0 + 1, min(width, int(np.ceil(x1 * width))))
    py1 = max(py0 + 1, min(height, int(np.ceil(y1 * height))))
    return PixelRect(px0, py0, px1, py1)


def expand(
    rect: PixelRect, width: int, height: int, margin_fraction: float, min_margin_px: int
) -> PixelRect:
    """Grow *rect* on every side by a context margin and clamp it to the image."""
    mx = max(min_margin_px, round(rect.width * margin_fraction))
    my = max(min_margin_px, round(rect.height * margin_fraction))
    return PixelRect(
        max(0, rect.x0 - mx),
        max(0, rect.y0 - my),
        min(width, rect.x1 + mx),
        min(height, rect.y1 + my),
    )


def crop(image: np.ndarray, rect: PixelRect) -> np.ndarray:
    return image[rect.slices].copy()


def draw_marker(patch: np.ndarray, box: PixelRect, thickness: int | None = None) -> np.ndarray:
    """A copy of *patch* with a red rectangle drawn just outside *box* (patch coordinates)."""
    import cv2  # loaded with the first repair, not with the window

    marked = patch.copy()
    t = thickness or max(2, round(min(patch.shape[:2]) / 150))
    h, w = patch.shape[:2]
    x0, y0 = max(0, box.x0 - t), max(0, box.y0 - t)
    x1, y1 = min(w - 1, box.x1 - 1 + t), min(h - 1, box.y1 - 1 + t)
    cv2.rectangle(marked, (x0, y0), (x1, y1), MARKER_COLOR, t)
    return marked


def marker_path(shape: tuple[int, int], box: PixelRect, thickness: int | None = None) -> np.ndarray:
    """Boolean mask of where the marker was drawn (to look for leftovers in a reply)."""
    import cv2  # loaded with the first repair, not with the window

    path = np.zeros(shape, np.uint8)
    t = thickness or max(2, round(min(shape) / 150))
    h, w = shape
    cv2.rectangle(
        path,
        (max(0, box.x0 - t), max(0, box.y0 - t)),
        (min(w - 1, box.x1 - 1 + t), min(h - 1, box.y1 - 1 + t)),
        1,
        t,
    )
    return path.astype(bool)


def residual_marker_fraction(reply: np.ndarray, path: np.ndarray) -> float:
    """Share of the marker's path where the reply is still strongly marker-red."""
    if not path.any():
        return 0.0
    px = reply[path].astype(np.int16)
    red = (px[:, 0] > 180) & (px[:, 1] < 80) & (px[:, 2] < 80)
    return float(red.mean())


def as_rgb8(image: np.ndarray) -> np.ndarray:
    """Bring grayscale, RGBA and 16-bit arrays to RGB uint8; refuse what cannot be."""
    arr = np.asarray(image)
    if arr.dtype == np.uint16:
        arr = (arr.astype(np.float32) * (255.0 / 65535.0) + 0.5).astype(np.uint8)
    elif arr.dtype == bool:
        arr = arr.astype(np.uint8) * 255
    elif arr.dtype != np.uint8:
        raise RepairError(f"unsupported pixel type {arr.dtype}; expected 8- or 16-bit")
    if arr.ndim == 2:
        return np.repeat(arr[:, :, None], 3, axis=2)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return np.ascontiguousarray(arr)
    if arr.ndim == 3 and arr.shape[2] == 4:
        alpha = arr[:, :, 3:4].astype(np.float32) / 255.0
        rgb = arr[:, :, :3].astype(np.float32) * alpha + 255.0 * (1.0 - alpha)
        return np.asarray(rgb + 0.5).astype(np.uint8)
    if arr.ndim == 3 and arr.shape[2] == 1:
        return np.repeat(arr, 3, axis=2)
    raise RepairError(f"unsupported image layout {arr.shape}; expected H×W, H×W×3 or H×W×4")
