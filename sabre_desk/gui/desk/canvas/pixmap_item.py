"""An image item that paints from the pyramid level closest to the on-screen size.

At fit-to-window zoom a 2048-pixel image is shown some 600 pixels wide; smoothly scaling
the full image on every repaint costs tens of milliseconds on the GUI thread, scaling the
512-pixel level costs one or two. Magnified, pixels are drawn as sharp squares.

The item may start from a preview (no full-resolution level) and be given the full image
later (``upgrade``): its geometry is the full image's from the start, so nothing moves.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from sabre_desk.gui.machinery.qimage import DisplayImage

#: A level this much coarser than the screen still looks sharp (rounding of the fit zoom).
DETAIL_SLACK = 1.02


class LeveledPixmapItem(QGraphicsItem):
    def __init__(self, image: DisplayImage):
        super().__init__()
        self.width, self.height = image.width, image.height
        self._levels: list[tuple[float, QPixmap]] = []
        self.upgrade(image)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def upgrade(self, image: DisplayImage) -> None:
        """Paint from *image*'s levels from now on (the same image, more detailed)."""
        self.image = image
        self._levels = [(scale, QPixmap.fromImage(img)) for scale, img in image.levels]
        self.update()

    @property
    def top_scale(self) -> float:
        return self._levels[0][0] if self._levels else 0.0

    def lacks_detail(self, device_scale: float) -> bool:
        """Whether the screen shows more pixels than the best level held has."""
        return device_scale > self.top_scale * DETAIL_SLACK

    def boundingRect(self) -> QRectF:
        return QRectF(0, 0, self.width, self.height)

    def pixmap_for(self, device_scale: float) -> tuple[float, QPixmap]:
        """The smallest level still at least as detailed as the screen needs (the most
        detailed one held when none is)."""
        chosen = self._levels[0]
        for scale, pixmap in self._levels:
            if scale >= device_scale:
                chosen = (scale, pixmap)
        return chosen

    def paint(
        self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None
    ) -> None:
        dpr = widget.devicePixelRatioF() if widget is not None else 1.0
        device_scale = painter.worldTransform().m11() * dpr
        scale, pixmap = self.pixmap_for(device_scale)
        painter.setRenderHint(
            QPainter.RenderHint.SmoothPixmapTransform, device_scale < 1.0 or scale < 1.0
        )
        exposed = option.exposedRect.intersected(self.boundingRect())
        source = QRectF(
            exposed.left() * scale,
            exposed.top() * scale,
            exposed.width() * scale,
            exposed.height() * scale,
        )
        painter.drawPixmap(exposed, pixmap, source)
