"""A swipe comparison: the other image of the pair shown left of a divider the reviewer
drags across, this image right of it, in one canvas at full size.

Blink (hold V) answers "did anything change?"; the swipe answers "where exactly does the
change begin?", by moving an edge across the spot. The other image lies above this one,
clipped to the part left of the divider, so both share the view, the zoom and the boxes.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsRectItem, QGraphicsScene

from sabre_desk.gui.desk.canvas.pixmap_item import LeveledPixmapItem
from sabre_desk.gui.machinery.qimage import DisplayImage

#: Above the image and the change heat (5), below region outlines (8) and boxes (10).
SWIPE_Z = 6
DIVIDER_Z = 9
#: How near the divider (in screen pixels) a press grabs it rather than the image.
GRAB_PX = 12


class SwipeLayer:
    """The other image, clipped at *split* (a share of the width), and the divider line."""

    def __init__(self, scene: QGraphicsScene, image: DisplayImage, split: float):
        self.image = image
        self.width, self.height = image.width, image.height
        self._clip = QGraphicsRectItem()
        self._clip.setPen(QPen(Qt.PenStyle.NoPen))
        self._clip.setFlag(QGraphicsItem.GraphicsItemFlag.ItemClipsChildrenToShape)
        self._clip.setZValue(SWIPE_Z)
        LeveledPixmapItem(image).setParentItem(self._clip)
        pen = QPen(QColor("#ffd54f"), 2)
        pen.setCosmetic(True)  # the same 2 screen pixels at any zoom
        self._divider = QGraphicsLineItem()
        self._divider.setPen(pen)
        self._divider.setZValue(DIVIDER_Z)
        scene.addItem(self._clip)
        scene.addItem(self._divider)
        self.split = 0.5
        self.move_to(split)

    def move_to(self, split: float) -> None:
        self.split = min(max(split, 0.0), 1.0)
        x = self.split * self.width
        self._clip.setRect(QRectF(0, 0, x, self.height))
        self._divider.setLine(QLineF(x, 0, x, self.height))

    def remove(self) -> None:
        for item in (self._clip, self._divider):
            scene = item.scene()
            if scene is not None:
                scene.removeItem(item)
