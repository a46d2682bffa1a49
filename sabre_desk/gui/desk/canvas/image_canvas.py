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
    QKeyEvent,
    QMouseEvent,
    QPainter,
)
from PySide6.QtWidgets import QGraphicsView, QWidget

from sabre_desk.core.case.review import Box
from sabre_desk.gui.desk.canvas import rect_ops
from sabre_desk.gui.desk.canvas.box_item import HANDLE_CURSORS, BoxItem
from sabre_desk.gui.desk.canvas.image_layer import ImageLayer
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


class ImageCanvas(ImageLayer):
    """The image with the box tool: boxes drawn, selected, moved, resized by mouse and keys."""

    box_created = Signal(tuple)  # normalized (x0, y0, x1, y1)
    box_edited = Signal(int, tuple)  # index in the review's boxes of this role, new box
    box_nudged = Signal(int, tuple)  # the same, from an arrow key (merged into one undo)
    box_delete_requested = Signal(int)
    box_selected = Signal(int)  # -1: none
    box_menu_requested = Signal(int, object)  # index, global QPoint
    cursor_moved = Signal(object)  # (x, y) image pixel or None when outside
    blink = Signal(bool)  # V held down (True) or let go: show the other image in place

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setRenderHints(QPainter.RenderHint.SmoothPixmapTransform)
        self.setBackgroundBrush(QColor("#2b2d30"))
        self.setMouseTracking(True)
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self._boxes: list[BoxItem] = []
        self._selected = -1
        self._space = False
        # current mouse gesture: ("draw" | "move" | "resize:<handle>" | "pan", start, rect0)
        self._gesture: tuple[str, QPointF, QRectF] | None = None
        self._press_view = QPointF()
        self._draft: BoxItem | None = None
        #: False while the canvas shows something other than the case's own image (a repair
        #: comparison): boxes are drawn but can be neither drawn, moved nor deleted
        self.boxes_editable = True

    def _drop_boxes(self, deselect: bool) -> None:
        self._boxes, self._draft = [], None
        if deselect:
            self._selected = -1

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
