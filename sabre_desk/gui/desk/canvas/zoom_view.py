"""A view of one image that zooms and pans, and says when the reviewer did.

Its zoom is the case's (``core.view_state``): a zoom or pan of the reviewer's is announced
(``view_changed``), one applied for the case (``apply_zoom``: a new case fitted, a mode left)
or a refit to a resized view is not, so the case's zoom is only ever what the reviewer did.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt, Signal
from PySide6.QtGui import QResizeEvent, QTransform, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from sabre_desk.core.desk.view_state import Zoom

ZOOM_STEP = 1.25
MIN_ZOOM, MAX_ZOOM = 0.02, 40.0


class ZoomView(QGraphicsView):
    view_changed = Signal()  # the reviewer zoomed or panned

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        # A zoomed view keeps its centre when the layout resizes it (a swipe ended, a panel
        # shown): the spot the reviewer was looking at stays in the middle.
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self._fit_mode = True
        self._quiet = False  # a zoom applied for the case: no view change to announce

    @property
    def image_size(self) -> tuple[int, int] | None:
        """The image shown (width, height), None when none is; the subclass knows."""
        return None

    def check_detail(self) -> None:
        """Called after each zoom: the subclass fetches more pixels if the zoom needs them."""

    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def fit(self) -> None:
        if self.image_size is None:
            return
        self._fit_mode = True
        self.resetTransform()
        self.fitInView(self.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
        self._after_zoom()

    def zoom_to(self, box: tuple[float, float, float, float], context: float = 2.0) -> None:
        """Show a normalized box with *context* times its size around it."""
        size = self.image_size
        if size is None:
            return
        w, h = size
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2 * w, (y0 + y1) / 2 * h
        half_w = max((x1 - x0) * w * (1 + context) / 2, 16.0)
        half_h = max((y1 - y0) * h * (1 + context) / 2, 16.0)
        view = self.viewport().rect()
        zoom = min(view.width() / (2 * half_w), view.height() / (2 * half_h))
        self._fit_mode = False
        self.setTransform(QTransform.fromScale(zoom, zoom))
        self.centerOn(QPointF(cx, cy))
        self._after_zoom()

    def actual_size(self) -> None:
        """One image pixel per physical screen pixel (sharp on high-DPI screens too)."""
        self.set_zoom(1.0 / self.devicePixelRatioF())

    @property
    def screen_zoom(self) -> float:
        """Image pixels to physical screen pixels: what "100%" means to the reviewer."""
        return self.zoom * self.devicePixelRatioF()

    def set_zoom(self, zoom: float, anchor_view: QPointF | None = None) -> None:
        """Zoom so the image point under *anchor_view* (default: the centre) stays put."""
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        center_view = QPointF(self.viewport().rect().center())
        anchor_view = anchor_view if anchor_view is not None else center_view
        anchor_scene = self.mapToScene(anchor_view.toPoint())
        self._fit_mode = False
        self.setTransform(QTransform.fromScale(zoom, zoom))
        self.centerOn(anchor_scene - (anchor_view - center_view) / zoom)
        self._after_zoom()

    def zoom_by(self, factor: float, anchor_view: QPointF | None = None) -> None:
        self.set_zoom(self.zoom * factor, anchor_view)

    def _after_zoom(self) -> None:
        self._announce()
        self.check_detail()

    def _announce(self) -> None:
        if not self._quiet:
            self.view_changed.emit()

    def _fit_quietly(self) -> None:
        """Fit without announcing a zoom of the reviewer's (a new image, a resized view)."""
        self._quiet = True
        try:
            self.fit()
        finally:
            self._quiet = False

    @property
    def fitted(self) -> bool:
        return self._fit_mode

    def zoom_state(self) -> Zoom | None:
        """The view as the case's zoom: None when fitted, else the image's width on screen
        and the image point at the centre of the view."""
        size = self.image_size
        if size is None or self._fit_mode:
            return None
        center = self.mapToScene(self.viewport().rect().center())
        return Zoom(size[0] * self.zoom, center.x() / size[0], center.y() / size[1])

    def apply_zoom(self, zoom: Zoom | None) -> None:
        """Show the case's zoom (None: fitted) without announcing it as a new one."""
        size = self.image_size
        if size is None:
            return
        if zoom is None:
            self._fit_quietly()
            return
        self._quiet = True
        try:
            z = max(MIN_ZOOM, min(MAX_ZOOM, zoom.width / size[0]))
            self._fit_mode = False
            self.setTransform(QTransform.fromScale(z, z))
            self.centerOn(QPointF(zoom.cx * size[0], zoom.cy * size[1]))
        finally:
            self._quiet = False
        self.check_detail()

    def view_state(self) -> tuple[float, float, float]:
        """(zoom relative to fit, centre x and y as fractions of the image) for syncing."""
        size = self.image_size
        if size is None:
            return (1.0, 0.5, 0.5)
        center = self.mapToScene(self.viewport().rect().center())
        return (self.zoom / self._fit_zoom(), center.x() / size[0], center.y() / size[1])

    def _fit_zoom(self) -> float:
        size = self.image_size
        if size is None:
            return 1.0
        view = self.viewport().rect()
        return max(1e-6, min(view.width() / size[0], view.height() / size[1]))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._fit_mode:
            self._fit_quietly()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._announce()

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(ZOOM_STEP**steps, event.position())
        event.accept()
