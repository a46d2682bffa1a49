"""Read-only layers over an image: the change heat map and the changed regions."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem

OUTSIDE_COLOR = QColor("#e53935")
INSIDE_COLOR = QColor("#29b6f6")


def heat_item(heat: QImage, width: int, height: int) -> QGraphicsPixmapItem:
    """The heat image (made at the comparison's size) stretched over the full image."""
    item = QGraphicsPixmapItem(QPixmap.fromImage(heat))
    item.setTransformationMode(Qt.TransformationMode.SmoothTransformation)
    item.setScale(width / max(1, heat.width()))
    item.setZValue(5)
    item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    return item


def region_item(rect: QRectF, outside: bool) -> QGraphicsRectItem:
    item = QGraphicsRectItem(rect)
    pen = QPen(OUTSIDE_COLOR if outside else INSIDE_COLOR, 2, Qt.PenStyle.DashLine)
    pen.setCosmetic(True)
    item.setPen(pen)
    item.setZValue(8)
    item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    return item
