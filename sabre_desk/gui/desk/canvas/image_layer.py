"""One image in a zoomable, pannable view: the image, a more detailed version of it as the
zoom asks for one, the change map over it, a blink's or a swipe's other image, or a message
in its place.

The box tool (``ImageCanvas``) is built on this; what is drawn here is never edited, and a
new image or message drops the boxes drawn over the old one (``_drop_boxes``).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QWidget

from sabre_desk.gui.desk.canvas.overlay_items import heat_item, region_item
from sabre_desk.gui.desk.canvas.pixmap_item import LeveledPixmapItem
from sabre_desk.gui.desk.canvas.swipe import SwipeLayer
from sabre_desk.gui.desk.canvas.zoom_view import ZoomView
from sabre_desk.gui.machinery.qimage import DisplayImage


class ImageLayer(ZoomView):
    """The image shown, and everything drawn over it that is not edited."""

    painted = Signal()
    #: a new image (or a message instead of one) is shown: every item drawn over the old
    #: one is gone
    image_changed = Signal()
    detail_needed = Signal()  # the zoom shows more pixels than the preview shown has

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self._pixmap_item: LeveledPixmapItem | None = None
        self._own_pixmap: LeveledPixmapItem | None = None  # set aside during a blink
        self._display: DisplayImage | None = None
        self._swipe: SwipeLayer | None = None
        self.swipe_split = 0.5  # kept from case to case, like the zoom
        self._message = ""
        self._pending_paint = False
        self._overlay_items: list[QGraphicsItem] = []  # change heat and regions: never edited

    def _drop_boxes(self, deselect: bool) -> None:
        """The scene was cleared: forget the items drawn over the image (the box tool's)."""

    # --- image ---------------------------------------------------------------------------

    @property
    def image_size(self) -> tuple[int, int] | None:
        if self._pixmap_item is None:
            return None
        return self._pixmap_item.width, self._pixmap_item.height

    @property
    def message(self) -> str:
        return self._message

    def set_overlay(
        self, heat: QImage | None, regions: list[tuple[tuple[float, float, float, float], bool]]
    ) -> None:
        """Show (or with None and no regions, hide) the change heat and region outlines."""
        for item in self._overlay_items:
            self.scene().removeItem(item)
        self._overlay_items = []
        size = self.image_size
        if size is None:
            return
        w, h = size
        if heat is not None:
            self._overlay_items.append(heat_item(heat, w, h))
        for (x0, y0, x1, y1), outside in regions:
            self._overlay_items.append(
                region_item(QRectF(x0 * w, y0 * h, (x1 - x0) * w, (y1 - y0) * h), outside)
            )
        for item in self._overlay_items:
            self.scene().addItem(item)

    @property
    def overlay_regions(self) -> int:
        return sum(1 for item in self._overlay_items if not hasattr(item, "pixmap"))

    @property
    def display_image(self) -> DisplayImage | None:
        """The image this canvas shows as its own (not a blink's stand-in)."""
        return self._display

    def set_image(self, image: DisplayImage) -> None:
        """Show *image* fitted; the view's owner then applies the case's zoom (announced by
        ``image_changed``, never as a zoom of the reviewer's)."""
        self.scene().clear()
        self._display, self._swipe = image, None
        self._overlay_items = []
        self._drop_boxes(deselect=False)
        self._pixmap_item = LeveledPixmapItem(image)
        self._own_pixmap = None
        self.scene().addItem(self._pixmap_item)
        self._message = ""
        self.scene().setSceneRect(QRectF(0, 0, image.width, image.height))
        self._fit_quietly()
        self._pending_paint = True
        self.viewport().update()
        self.image_changed.emit()

    def upgrade_image(self, image: DisplayImage) -> bool:
        """Give the image shown a more detailed version of itself (the full image for its
        preview): same size, so the view, boxes and overlays stay exactly where they are."""
        shown, item = self._display, self._own_pixmap or self._pixmap_item
        if shown is None or item is None or image.width != shown.width:
            return False
        if image.height != shown.height:
            return False
        if image.top_scale > shown.top_scale:
            self._display = image
            item.upgrade(image)  # (during a blink: the own image, shown again later)
        return True

    def check_detail(self) -> None:
        """Ask (``detail_needed``) for the full image if the zoom shows more than is held."""
        if self._display is not None and self._display.is_preview:
            item = self._own_pixmap or self._pixmap_item
            if item is not None and item.lacks_detail(self.screen_zoom):
                self.detail_needed.emit()

    @property
    def swiping(self) -> bool:
        return self._swipe is not None

    @property
    def swipe_image(self) -> DisplayImage | None:
        """The image shown left of the divider, while swiping."""
        return self._swipe.image if self._swipe is not None else None

    def set_swipe(self, other: DisplayImage | None) -> bool:
        """Show *other* left of a divider over this image (a swipe); None ends it. False
        when it cannot: no image here, or one of another size."""
        if self._swipe is not None:
            self._swipe.remove()
            self._swipe = None
        size = self.image_size
        if other is None or size is None or (other.width, other.height) != size:
            self.viewport().update()
            return other is None
        self._swipe = SwipeLayer(self.scene(), other, self.swipe_split)
        self.viewport().update()
        return True

    def move_swipe(self, split: float) -> None:
        if self._swipe is not None:
            self._swipe.move_to(split)
            self.swipe_split = self._swipe.split

    def show_instead(self, image: DisplayImage | None) -> bool:
        """Show *image* in place of this canvas's own, with the same view, boxes and change
        map (a blink); None puts the own image back. False when it cannot (no image, or
        one of another size: a blink must not move a single pixel)."""
        current = self._pixmap_item
        if current is None:
            return False
        if image is None:
            own, self._own_pixmap = self._own_pixmap, None
            if own is None:
                return False
            self.scene().removeItem(current)
            self.scene().addItem(own)
            self._pixmap_item = own
        else:
            if (image.width, image.height) != (current.width, current.height):
                return False
            if self._own_pixmap is None:
                self._own_pixmap = current
            self.scene().removeItem(current)
            other = LeveledPixmapItem(image)
            other.setZValue(current.zValue())
            self.scene().addItem(other)
            self._pixmap_item = other
        self.viewport().update()
        return True

    def show_message(self, text: str) -> None:
        self.scene().clear()
        self._overlay_items = []
        self._pixmap_item = None
        self._drop_boxes(deselect=True)
        self._own_pixmap = None
        self._display, self._swipe = None, None
        self._message = text
        self._pending_paint = True
        self.viewport().update()
        self.image_changed.emit()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._pixmap_item is None and self._message:
            painter = QPainter(self.viewport())
            painter.setPen(QColor("#e0e0e0"))
            painter.drawText(
                self.viewport().rect().adjusted(16, 16, -16, -16),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self._message,
            )
            painter.end()
        if self._pending_paint:
            self._pending_paint = False
            self.painted.emit()
