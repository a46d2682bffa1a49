"""One image, zoomable and pannable, with the box tool.

Scene coordinates are image pixels (EXIF orientation already applied by the decoder), so a
box drawn here is normalized by the same width and height every other tool uses.

Mouse: drag on the image draws a box (a click only focuses), drag a box to move it,
drag a handle to resize it; wheel zooms around the cursor; middle button, or Space held,
pans. Keys: B drops a box in the middle of the view, Tab selects the next box, arrows move
it (Shift: faster, Alt: resize), Delete removes it, Escape deselects.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
)
from PySide6.QtWidgets import QGraphicsScene, QGraphicsView, QWidget

from sabre_desk.core.case.review import Box
from sabre_desk.gui.desk.canvas import rect_ops
from sabre_desk.gui.desk.canvas.box_item import HANDLE_CURSORS, BoxItem
from sabre_desk.gui.desk.canvas.overlay_items import heat_item, region_item
from sabre_desk.gui.desk.canvas.pixmap_item import LeveledPixmapItem
from sabre_desk.gui.desk.canvas.swipe import SwipeLayer
from sabre_desk.gui.desk.canvas.zoom_view import ZoomView
from sabre_desk.gui.machinery.qimage import DisplayImage
from sabre_desk.imaging import geometry as box_geometry

CLICK_SLOP_PX = 4  # a press and release closer than this (on screen) is a click
ARROW_STEPS = {
    Qt.Key.Key_Left: (-1, 0),
    Qt.Key.Key_Right: (1, 0),
    Qt.Key.Key_Up: (0, -1),
    Qt.Key.Key_Down: (0, 1),
}


#: Left/Right move the swipe divider by 5 % of the width (Shift: 1 %) when no box is selected.
SWIPE_KEYS = {Qt.Key.Key_Left: -0.05, Qt.Key.Key_Right: 0.05}


class ImageCanvas(ZoomView):
    box_created = Signal(tuple)  # normalized (x0, y0, x1, y1)
    box_edited = Signal(int, tuple)  # index in the review's boxes of this role, new box
    box_nudged = Signal(int, tuple)  # the same, from an arrow key (merged into one undo)
    box_delete_requested = Signal(int)
    box_selected = Signal(int)  # -1: none
    box_menu_requested = Signal(int, object)  # index, global QPoint
    cursor_moved = Signal(object)  # (x, y) image pixel or None when outside
    painted = Signal()
    blink = Signal(bool)  # V held down (True) or let go: show the other image in place
    #: a new image (or a message instead of one) is shown: every item drawn over the old
    #: one is gone
    image_changed = Signal()
    detail_needed = Signal()  # the zoom shows more pixels than the preview shown has

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHints(QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#2b2d30"))
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self._pixmap_item: LeveledPixmapItem | None = None
        self._own_pixmap: LeveledPixmapItem | None = None  # set aside during a blink
        self._display: DisplayImage | None = None
        self._swipe: SwipeLayer | None = None
        self.swipe_split = 0.5  # kept from case to case, like the zoom
        self._message = ""
        self._boxes: list[BoxItem] = []
        self._selected = -1
        self._pending_paint = False
        self._space = False
        # current mouse gesture: ("draw" | "move" | "resize:<handle>" | "pan", start, rect0)
        self._gesture: tuple[str, QPointF, QRectF] | None = None
        self._press_view = QPointF()
        self._draft: BoxItem | None = None
        self._overlay_items: list = []  # change heat and regions: drawn, never edited
        #: False while the canvas shows something other than the case's own image (a repair
        #: comparison): boxes are drawn but can be neither drawn, moved nor deleted
        self.boxes_editable = True

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
        self._boxes, self._draft, self._overlay_items = [], None, []
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
        self._pixmap_item, self._boxes, self._draft = None, [], None
        self._own_pixmap = None
        self._display, self._swipe = None, None
        self._message = text
        self._selected = -1
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

    # --- boxes -----------------------------------------------------------------------------

    def set_boxes(self, boxes: list[Box], selected: int = -1) -> None:
        """Show the review's boxes for this image (replacing what is drawn)."""
        for item in self._boxes:
            self.scene().removeItem(item)
        self._boxes = []
        size = self.image_size
        if size is None:
            return
        w, h = size
        for i, box in enumerate(boxes):
            x0, y0, x1, y1 = box_geometry.to_pixels(box.box, w, h)
            item = BoxItem(i, QRectF(QPointF(x0, y0), QPointF(x1, y1)), box.label)
            self.scene().addItem(item)
            self._boxes.append(item)
        index = selected if selected < len(self._boxes) else -1
        # A new selection is announced (a box just drawn is the one the Repair panel
        # repairs); the same one redrawn is not.
        self._select(index, emit=index != self._selected)

    @property
    def box_count(self) -> int:
        return len(self._boxes)

    @property
    def selected_box(self) -> int:
        return self._selected

    def _select(self, index: int, emit: bool = True) -> None:
        self._selected = index
        for item in self._boxes:
            item.set_selected(item.index == index)
        if emit:
            self.box_selected.emit(index)

    def _box_at(self, scene_pos: QPointF) -> tuple[BoxItem | None, str | None]:
        if 0 <= self._selected < len(self._boxes):
            item = self._boxes[self._selected]
            handle = item.handle_at(scene_pos)
            if handle:
                return item, handle
        for item in reversed(self._boxes):  # topmost (last drawn) first
            if item.rect().contains(scene_pos):
                return item, None
        return None, None

    def _normalized(self, rect: QRectF) -> tuple[float, float, float, float]:
        w, h = self.image_size or (1, 1)
        r = rect.normalized()
        return box_geometry.normalize((r.left(), r.top(), r.right(), r.bottom()), w, h)

    # --- mouse -----------------------------------------------------------------------------

    def _scene(self, event: QMouseEvent) -> QPointF:
        return self.mapToScene(event.position().toPoint())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self._pixmap_item is None:
            return
        pos = self._scene(event)
        self._press_view = event.position()
        pan = event.button() == Qt.MouseButton.MiddleButton or (
            event.button() == Qt.MouseButton.LeftButton and self._space
        )
        if pan:
            self._gesture = ("pan", event.position(), QRectF())
            self.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)
            return
        if self._swipe is not None and event.button() == Qt.MouseButton.LeftButton:
            # While swiping, a drag anywhere moves the divider; boxes stay as they are.
            self._gesture = ("swipe", pos, QRectF())
            self.move_swipe(pos.x() / self._swipe.width)
            return
        if not self.boxes_editable:
            return
        if event.button() == Qt.MouseButton.RightButton:
            item, _ = self._box_at(pos)
            if item is not None:
                self._select(item.index)
                self.box_menu_requested.emit(item.index, event.globalPosition().toPoint())
            return
        if event.button() != Qt.MouseButton.LeftButton:
            return
        item, handle = self._box_at(pos)
        if item is not None:
            self._select(item.index)
            kind = f"resize:{handle}" if handle else "move"
            self._gesture = (kind, pos, QRectF(item.rect()))
            return
        self._select(-1)
        if self._bounds().contains(pos):  # boxes start on the image, not on the margin
            self._gesture = ("draw", pos, QRectF())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        pos = self._scene(event)
        size = self.image_size
        inside = size is not None and 0 <= pos.x() < size[0] and 0 <= pos.y() < size[1]
        self.cursor_moved.emit((int(pos.x()), int(pos.y())) if inside else None)
        if self._gesture is None:
            self._hover_cursor(pos)
            return
        kind, start, rect0 = self._gesture
        if kind == "swipe" and self._swipe is not None:
            self.move_swipe(pos.x() / self._swipe.width)
            return
        if kind == "pan":
            delta = event.position() - start
            self._gesture = ("pan", event.position(), rect0)
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - int(delta.x()))
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - int(delta.y()))
            return
        if kind == "draw":
            if self._draft is None:
                if (event.position() - self._press_view).manhattanLength() < CLICK_SLOP_PX:
                    return
                self._draft = BoxItem(-1, QRectF(start, pos), "")
                self._draft.set_selected(True)
                self.scene().addItem(self._draft)
            self._draft.set_geometry(rect_ops.clamped(QRectF(start, pos), self._bounds()))
            return
        item = self._boxes[self._selected]
        delta = pos - start
        if kind == "move":
            item.set_geometry(rect_ops.moved(rect0, delta, self._bounds()))
        else:
            item.set_geometry(rect_ops.resized(rect0, kind.split(":", 1)[1], delta, self._bounds()))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        gesture, self._gesture = self._gesture, None
        if gesture is None:
            return
        kind, _, rect0 = gesture
        if kind in ("pan", "swipe"):
            self.viewport().setCursor(Qt.CursorShape.CrossCursor)
            return
        if kind == "draw":
            if self._draft is None:
                # A click only focuses and deselects: a box comes from a drag or from B,
                # never from a click meant to focus or to pan.
                self._select(-1)
            else:
                rect = self._draft.rect()
                self.scene().removeItem(self._draft)
                self._draft = None
                self.box_created.emit(self._normalized(rect))
            return
        item = self._boxes[self._selected]
        if item.rect() != rect0:
            self.box_edited.emit(item.index, self._normalized(item.rect()))

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        item, _ = self._box_at(self._scene(event))
        if item is None:
            self.fit()

    def _hover_cursor(self, pos: QPointF) -> None:
        item, handle = self._box_at(pos)
        if handle:
            self.viewport().setCursor(HANDLE_CURSORS[handle])
        elif item is not None:
            self.viewport().setCursor(Qt.CursorShape.SizeAllCursor)
        else:
            self.viewport().setCursor(
                Qt.CursorShape.OpenHandCursor if self._space else Qt.CursorShape.CrossCursor
            )

    def _bounds(self) -> QRectF:
        w, h = self.image_size or (1, 1)
        return QRectF(0, 0, w, h)

    # --- keys ------------------------------------------------------------------------------

    def focusNextPrevChild(self, next: bool) -> bool:
        """Tab cycles this image's boxes (as the shortcuts promise) instead of moving the
        keyboard to the next widget; with no box it moves on as usual."""
        if self._boxes and self.boxes_editable:
            return False  # the Tab reaches keyPressEvent
        return super().focusNextPrevChild(next)

    def event(self, event: QEvent) -> bool:
        """Esc with a box selected deselects it here, before the window's Esc (back to the
        image and the Case tab) can take it."""
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() == Qt.Key.Key_Escape
            and self._selected >= 0
        ):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_V and not event.modifiers():
            if not event.isAutoRepeat():
                self.blink.emit(True)
            return
        swipe_step = SWIPE_KEYS.get(Qt.Key(event.key()))
        if self._swipe is not None and swipe_step is not None and self._selected < 0:
            fine = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
            self.move_swipe(self._swipe.split + swipe_step * (0.2 if fine else 1.0))
            return
        if not self.boxes_editable and event.key() != Qt.Key.Key_Space:
            super().keyPressEvent(event)
            return
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self._selected >= 0:
            self.box_delete_requested.emit(self._selected)
            return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            return
        if event.key() == Qt.Key.Key_Escape and self._selected >= 0:
            self._select(-1)
            return
        if event.key() == Qt.Key.Key_Tab and self._boxes:
            self._select((self._selected + 1) % len(self._boxes))
            return
        step = ARROW_STEPS.get(Qt.Key(event.key()))
        if step is not None and 0 <= self._selected < len(self._boxes):
            self._nudge(step, event.modifiers())
            return
        super().keyPressEvent(event)

    def drop_box_at_center(self) -> None:
        """Keyboard drawing: a default box in the middle of what is in view."""
        size = self.image_size
        if size is None or not self.boxes_editable:
            return
        center = self.mapToScene(self.viewport().rect().center())
        x = min(max(center.x(), 0.0), size[0] - 1.0)
        y = min(max(center.y(), 0.0), size[1] - 1.0)
        self.box_created.emit(box_geometry.click_box(x, y, *size))

    def _nudge(self, step: tuple[int, int], modifiers: Qt.KeyboardModifier) -> None:
        """Arrows move the selected box by one screen pixel (Shift: ten); with Alt they
        move its right/bottom edge instead, to resize it."""
        item = self._boxes[self._selected]
        factor = (10.0 if modifiers & Qt.KeyboardModifier.ShiftModifier else 1.0) / self.zoom
        delta = QPointF(step[0] * factor, step[1] * factor)
        if modifiers & Qt.KeyboardModifier.AltModifier:
            rect = rect_ops.resized(item.rect(), "br", delta, self._bounds())
        else:
            rect = rect_ops.moved(item.rect(), delta, self._bounds())
        if rect != item.rect() and rect.width() > 0 and rect.height() > 0:
            item.set_geometry(rect)
            self.box_nudged.emit(item.index, self._normalized(rect))

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_V and not event.isAutoRepeat():
            self.blink.emit(False)
            return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(Qt.CursorShape.CrossCursor)
            return
        super().keyReleaseEvent(event)
