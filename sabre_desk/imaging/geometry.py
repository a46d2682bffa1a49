"""Box geometry: normalized [x0, y0, x1, y1] boxes and the image pixels they cover.

Boxes are stored relative to the image as displayed (EXIF orientation applied), so the
same box lands on the same pixels in every tool and at every image resolution. Pure
arithmetic: the review's Box model and the spec's review_box both check boxes here.
"""

from __future__ import annotations

Rect = tuple[float, float, float, float]

#: Smallest box side, in pixels, so a stray click never makes an invisible box.
MIN_SIDE_PX = 2.0
#: A box dropped with B is this fraction of the image's shorter side.
CLICK_BOX_FRACTION = 0.12
BOX_RULE = "0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1"


def is_unit_box(values: tuple[float, ...] | list[float]) -> bool:
    """Whether four numbers are a normalized box inside the image (the one rule)."""
    if len(values) != 4:
        return False
    x0, y0, x1, y1 = values
    return 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1


def _clamp(v: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, v))


def normalize(rect_px: Rect, width: int, height: int) -> Rect:
    """Pixel rectangle (any corner order) → normalized box clamped to the image."""
    x0, y0, x1, y1 = rect_px
    x0, x1 = sorted((_clamp(x0, 0, width), _clamp(x1, 0, width)))
    y0, y1 = sorted((_clamp(y0, 0, height), _clamp(y1, 0, height)))
    if x1 - x0 < MIN_SIDE_PX:
        x0, x1 = _widen(x0, x1, width)
    if y1 - y0 < MIN_SIDE_PX:
        y0, y1 = _widen(y0, y1, height)
    return (
        round(x0 / width, 6),
        round(y0 / height, 6),
        round(x1 / width, 6),
        round(y1 / height, 6),
    )


def _widen(a: float, b: float, limit: float) -> tuple[float, float]:
    mid = (a + b) / 2
    half = min(MIN_SIDE_PX, limit) / 2
    lo = _clamp(mid - half, 0, limit - 2 * half)
    return lo, lo + 2 * half


def to_pixels(box: Rect, width: int, height: int) -> Rect:
    x0, y0, x1, y1 = box
    return (x0 * width, y0 * height, x1 * width, y1 * height)


def click_box(x: float, y: float, width: int, height: int) -> Rect:
    """The default box dropped at a point (B: the middle of the view), kept inside."""
    side = CLICK_BOX_FRACTION * min(width, height)
    x0 = _clamp(x - side / 2, 0, width - side)
    y0 = _clamp(y - side / 2, 0, height - side)
    return normalize((x0, y0, x0 + side, y0 + side), width, height)


def parse_box(text: str) -> Rect:
    """'x0,y0,x1,y1' (normalized, as on the command line or in a spec attribute) → a box.

    Raises ValueError saying what a box must look like.
    """
    try:
        values = [float(v) for v in text.replace(" ", "").split(",")]
    except ValueError:
        values = []
    if is_unit_box(values):
        x0, y0, x1, y1 = values
        return (x0, y0, x1, y1)
    raise ValueError(f"{text!r} is not a box: give four numbers x0,y0,x1,y1 with {BOX_RULE}")
