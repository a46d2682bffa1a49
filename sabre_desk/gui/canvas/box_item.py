"""A drawn box on an image: colour by label, label text, resize handles when selected.

Geometry lives in the review (normalized, Qt-free); this item only draws it, in image pixel
coordinates (the scene's coordinates), and answers hit tests for the canvas.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
    QGraphicsSimpleTextItem,
    QStyleOptionGraphicsItem,
    QWidget,
)

LABEL_COLORS = {
    "source": QColor("#1e88e5"),
    "target": QColor("#fb8c00"),
    "repair": QColor("#d81b60"),
    "evidence": QColor("#43a047"),
}
OTHER_COLOR = QColor("#8e24aa")
HANDLE_PX = 9  # handle size on screen, whatever the zoom

# Handles as (x, y) fractions of the rectangle; the name says which edges they move.
HANDLES = {
    "tl": (0.0, 0.0),
    "t": (0.5, 0.0),
    "tr": (1.0, 0.0),
    "r": (1.0, 0.5),
    "br": (1.0, 1.0),
    "b": (0.5, 1.0),
    "bl": (0.0, 1.0),
    "l": (0.0, 0.5),
}
HANDLE_CURSORS = {
    "tl": Qt.CursorShape.SizeFDiagCursor,
    "br": Qt.CursorShape.SizeFDiagCursor,
    "tr": Qt.CursorShape.SizeBDiagCursor,
    "bl": Qt.CursorShape.SizeBDiagCursor,
    "t": Qt.CursorShape.SizeVerCursor,
    "b": Qt.CursorShape.SizeVerCursor,
    "l": Qt.CursorShape.SizeHorCursor,
    "r": Qt.CursorShape.SizeHorCursor,
}


def label_color(label: str) -> QColor:
    return LABEL_COLORS.get(label, OTHER_COLOR)


class BoxItem(QGraphicsRectItem):
    def __init__(self, index: int, rect: QRectF, label: str):
        super().__init__(rect)
        self.index = index
        self.label = label
        self.selected = False
        self.setZValue(10)
        self.setAcceptHoverEvents(False)
        self.text = QGraphicsSimpleTextItem(label or "box", self)
        self.text.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.text.setBrush(QBrush(Qt.GlobalColor.white))
        self._place_text()

    def set_geometry(self, rect: QRectF) -> None:
        self.setRect(rect.normalized())
        self._place_text()

    def _place_text(self) -> None:
        self.text.setPos(self.rect().topLeft())

    def set_selected(self, selected: bool) -> None:
        self.selected = selected
        self.update()

    def _scale(self) -> float:
        views = self.scene().views() if self.scene() else []
        return views[0].transform().m11() if views else 1.0

    def handle_rects(self) -> dict[str, QRectF]:
        size = HANDLE_PX / max(self._scale(), 1e-6)
        r = self.rect()
        return {
            name: QRectF(
                r.left() + fx * r.width() - size / 2,
                r.top() + fy * r.height() - size / 2,
                size,
                size,
            )
            for name, (fx, fy) in HANDLES.items()
        }

    def handle_at(self, point: QPointF) -> str | None:
        if not self.selected:
            return None
        for name, rect in self.handle_rects().items():
            if rect.contains(point):
                return name
        return None

    def boundingRect(self) -> QRectF:
        pad = HANDLE_PX / max(self._scale(), 1e-6)
        return self.rect().adjusted(-pad, -pad, pad, pad)

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        color = label_color(self.label)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        outline = QPen(QColor(0, 0, 0, 160), 4)
        outline.setCosmetic(True)
        painter.setPen(outline)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(self.rect())
        pen = QPen(color, 2, Qt.PenStyle.DashLine if self.selected else Qt.PenStyle.SolidLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        fill = QColor(color)
        fill.setAlpha(40 if self.selected else 22)
        painter.setBrush(fill)
        painter.drawRect(self.rect())
        self.text.setBrush(QBrush(color.lighter(160)))
        if self.selected:
            handle_pen = QPen(QColor("white"), 1)
            handle_pen.setCosmetic(True)
            painter.setPen(handle_pen)
            painter.setBrush(color)
            for rect in self.handle_rects().values():
                painter.drawRect(rect)
