"""A drawn box on an image: colour by label, label text, resize handles when selected.

Geometry lives in the review (normalized, Qt-free); this item only draws it, in image pixel
coordinates (the scene's coordinates), and answers hit tests for the canvas.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsRectItem,
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


class LabelPlate(QGraphicsItem):
    """A box's label as white text on a plate of its colour: readable on any image, the
    same size at every zoom."""

    def __init__(self, text: str, parent: QGraphicsItem):
        super().__init__(parent)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self._font = QFont()
        self._font.setBold(True)
        self._font.setPointSizeF(max(7.0, self._font.pointSizeF() - 1))
        self.color = OTHER_COLOR
        self.set_text(text)

    def set_text(self, text: str) -> None:
        self.prepareGeometryChange()
        self.label = text
        metrics = QFontMetricsF(self._font)
        self._rect = QRectF(
            0, -metrics.height() - 2, metrics.horizontalAdvance(text) + 8, metrics.height() + 2
        )

    def boundingRect(self) -> QRectF:
        return self._rect

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        plate = QColor(self.color).darker(130)
        plate.setAlpha(225)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(plate)
        painter.drawRoundedRect(self._rect, 3, 3)
        painter.setPen(QColor("white"))
        painter.setFont(self._font)
        painter.drawText(
            self._rect.adjusted(4, 0, -4, 0), Qt.AlignmentFlag.AlignVCenter, self.label
        )


class BoxItem(QGraphicsRectItem):
    def __init__(self, index: int, rect: QRectF, label: str):
        super().__init__(rect)
        self.index = index
        self.label = label
        self.selected = False
        self.setZValue(10)
        self.setAcceptHoverEvents(False)
        self.text = LabelPlate(label or "box", self)
        self.text.color = label_color(label)
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
        scale = max(self._scale(), 1e-6)
        r = self.rect()
        # Handles shrink with a small box so they never hide it (a third of its side).
        on_screen = min(r.width(), r.height()) * scale
        size = max(3.0, min(HANDLE_PX, on_screen / 3)) / scale
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
        if self.label == "repair":
            painter.setBrush(Qt.BrushStyle.NoBrush)  # a repair is judged by its true colours
        else:
            fill = QColor(color)
            fill.setAlpha(40 if self.selected else 22)
            painter.setBrush(fill)
        painter.drawRect(self.rect())
        if self.selected:
            handle_pen = QPen(QColor("white"), 1)
            handle_pen.setCosmetic(True)
            painter.setPen(handle_pen)
            painter.setBrush(color)
            for rect in self.handle_rects().values():
                painter.drawRect(rect)
