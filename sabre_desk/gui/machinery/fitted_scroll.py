"""A pane of settings that is as tall as its content where there is room and scrolls where
there is not, so a laptop screen keeps the parts below it (a list, the action buttons) in
view and a tall screen shows no empty band inside it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QWidget


class FittedScroll(QScrollArea):
    """Wraps ``content``: never taller than it, never shorter than ``least`` pixels."""

    def __init__(self, content: QWidget, least: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._least = least
        self._content = content  # before setWidget: the area filters the content's events
        self.setWidget(content)
        self.setMinimumHeight(least)
        content.installEventFilter(self)
        self._fit()

    def _needed(self) -> int:
        content = self._content
        width = self.viewport().width() if self.isVisible() else content.sizeHint().width()
        height = content.heightForWidth(width)
        if height < 0:  # a layout without height-for-width
            height = content.sizeHint().height()
        return max(self._least, height + 2 * self.frameWidth())

    def _fit(self) -> None:
        needed = self._needed()
        if needed != self.maximumHeight():
            self.setMaximumHeight(needed)
            self.updateGeometry()

    def _width(self, content_width: int) -> int:
        """As wide as the content with room for the scroll bar: nothing cut at the right."""
        bar = self.verticalScrollBar().sizeHint().width()
        return content_width + bar + 2 * self.frameWidth()

    def minimumSizeHint(self) -> QSize:
        return QSize(self._width(self._content.minimumSizeHint().width()), self._least)

    def sizeHint(self) -> QSize:
        return QSize(self._width(self._content.sizeHint().width()), self._needed())

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._content and event.type() in (
            QEvent.Type.LayoutRequest,
            QEvent.Type.Resize,
            QEvent.Type.Show,
            QEvent.Type.Hide,
        ):
            self._fit()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()  # a narrower pane wraps its labels: more height needed
