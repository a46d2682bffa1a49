"""A box being drawn, moved or resized with the mouse, kept on the image (scene pixels)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF


def clamped(rect: QRectF, bounds: QRectF) -> QRectF:
    return rect.normalized().intersected(bounds)


def moved(rect: QRectF, delta: QPointF, bounds: QRectF) -> QRectF:
    """*rect* moved by *delta*, as far as it can go without leaving *bounds*."""
    dx = max(bounds.left() - rect.left(), min(bounds.right() - rect.right(), delta.x()))
    dy = max(bounds.top() - rect.top(), min(bounds.bottom() - rect.bottom(), delta.y()))
    return rect.translated(dx, dy)


def resized(rect: QRectF, handle: str, delta: QPointF, bounds: QRectF) -> QRectF:
    """*rect* with the edges named by *handle* ("l", "r", "t", "b" or corners) moved."""
    r = QRectF(rect)
    if "l" in handle:
        r.setLeft(r.left() + delta.x())
    if "r" in handle:
        r.setRight(r.right() + delta.x())
    if "t" in handle:
        r.setTop(r.top() + delta.y())
    if "b" in handle:
        r.setBottom(r.bottom() + delta.y())
    return clamped(r, bounds)
