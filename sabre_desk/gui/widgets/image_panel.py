"""One image with a caption: shows a placeholder while loading and the reason on failure."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget


class ImageView(QWidget):
    """Paints a QImage scaled to fit, keeping its aspect ratio, crisp on high-DPI screens."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._pixmap: QPixmap | None = None
        self._message = ""
        self.setMinimumSize(160, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage) -> None:
        self._pixmap = QPixmap.fromImage(image)
        self._message = ""
        self.update()

    def set_message(self, text: str) -> None:
        self._pixmap = None
        self._message = text
        self.update()

    @property
    def has_image(self) -> bool:
        return self._pixmap is not None

    @property
    def image_size(self) -> tuple[int, int] | None:
        return None if self._pixmap is None else (self._pixmap.width(), self._pixmap.height())

    @property
    def message(self) -> str:
        return self._message

    def sizeHint(self) -> QSize:
        return QSize(480, 360)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), self.palette().dark())
        if self._pixmap is None:
            painter.setPen(self.palette().brightText().color())
            painter.drawText(
                self.rect().adjusted(12, 12, -12, -12),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                self._message,
            )
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        size = self._pixmap.size().scaled(self.size(), Qt.AspectRatioMode.KeepAspectRatio)
        x = (self.width() - size.width()) // 2
        y = (self.height() - size.height()) // 2
        painter.drawPixmap(x, y, size.width(), size.height(), self._pixmap)


class ImagePanel(QWidget):
    def __init__(self, caption: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.caption = QLabel(caption)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setObjectName("imageCaption")
        self.view = ImageView()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.caption)
        layout.addWidget(self.view, 1)
