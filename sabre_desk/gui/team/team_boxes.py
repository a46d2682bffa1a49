"""The other reviewers' boxes over an image, each reviewer in a colour of their own.

Drawn, never edited: dashed outlines with "reviewer: label" plates, under one's own boxes.
The colour of a reviewer is the same on every case and in the case panel (``TeamColors``).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsRectItem

from sabre_desk.core.case.review import Box
from sabre_desk.gui.desk.canvas.box_item import LabelPlate
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.imaging import geometry

#: Distinct from the label colours of one's own boxes (blue, orange, magenta, green).
PALETTE = ["#00acc1", "#c0ca33", "#8d6e63", "#5c6bc0", "#f06292", "#26a69a", "#ffb300", "#78909c"]


class TeamColors:
    """A colour per reviewer, handed out in the order reviewers are first seen (the names
    the project knows first, sorted), so it stays the same while the project is open."""

    def __init__(self, known: list[str] | None = None):
        self._colors: dict[str, QColor] = {}
        for name in sorted(known or []):
            self.of(name)

    def of(self, reviewer: str) -> QColor:
        color = self._colors.get(reviewer)
        if color is None:
            color = QColor(PALETTE[len(self._colors) % len(PALETTE)])
            self._colors[reviewer] = color
        return color


class OtherBoxes:
    """The layer of others' boxes on one canvas; redrawn whenever the canvas clears."""

    def __init__(self, canvas: ImageCanvas):
        self.canvas = canvas
        self._wanted: list[tuple[str, QColor, Box]] = []
        self.items: list[QGraphicsRectItem] = []
        canvas.image_changed.connect(self._on_cleared)

    def show(self, boxes: list[tuple[str, QColor, Box]]) -> None:
        """*boxes*: (reviewer, colour, box) to draw; [] hides the layer."""
        self._wanted = boxes
        self._draw()

    def _on_cleared(self) -> None:
        self.items = []  # the scene deleted them
        self._draw()

    def _draw(self) -> None:
        scene = self.canvas.scene()
        for item in self.items:
            scene.removeItem(item)
        self.items = []
        size = self.canvas.image_size
        if size is None:
            return
        width, height = size
        for reviewer, color, box in self._wanted:
            x0, y0, x1, y1 = geometry.to_pixels(box.box, width, height)
            item = QGraphicsRectItem(QRectF(QPointF(x0, y0), QPointF(x1, y1)))
            pen = QPen(color, 2, Qt.PenStyle.DashLine)
            pen.setCosmetic(True)
            item.setPen(pen)
            item.setZValue(9)  # under one's own boxes (10), over the change map
            item.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            plate = LabelPlate(f"{reviewer}: {box.label or 'box'}", item)
            plate.color = color
            plate.setPos(item.rect().bottomLeft())  # inside the box: one's own label is on top
            scene.addItem(item)
            self.items.append(item)
