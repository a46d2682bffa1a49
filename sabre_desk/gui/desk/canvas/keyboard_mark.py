"""Which image the keyboard acts on, marked on screen, and the key that moves it.

B draws its box, Ctrl+R repairs, the arrows move a box on the image with the keyboard. With
two images side by side a reviewer could not tell which one that was, and no key moved it:
after a click on Base, the next box and repair landed on Base. Here the caption of the image
with the keyboard is highlighted (a colour only: nothing moves or resizes, so no zoom
shifts), and ``to_other`` hands the keyboard to the other image shown.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas

MARKED = "background: palette(highlight); color: palette(highlighted-text);"


class KeyboardMark(QObject):
    """Marks the caption of the canvas with the keyboard; moves the keyboard between them."""

    def __init__(
        self,
        canvases: dict[ImageRole, ImageCanvas],
        captions: dict[ImageRole, QLabel],
        visible: Callable[[], list[ImageRole]],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._canvases, self._captions, self._visible = canvases, captions, visible
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.focusChanged.connect(self._on_focus_changed)

    def role(self) -> ImageRole | None:
        """The image the keyboard is on, or None (a text field, the list, another window)."""
        return next((r for r, c in self._canvases.items() if c.hasFocus()), None)

    def marked(self) -> ImageRole | None:
        """The image whose caption is highlighted (what the reviewer sees)."""
        return next((r for r, c in self._captions.items() if c.styleSheet() == MARKED), None)

    def to_other(self) -> ImageRole | None:
        """The keyboard to the next image shown (Base ↔ Edited); from elsewhere, to the last
        one shown (Edited of a pair). Returns the image it is on now."""
        shown = self._visible()
        if not shown:
            return None
        now = self.role()
        target = shown[(shown.index(now) + 1) % len(shown)] if now in shown else shown[-1]
        self._canvases[target].setFocus()
        self._mark()
        return target

    def _on_focus_changed(self, _old: QWidget | None, _new: QWidget | None) -> None:
        self._mark()

    def _mark(self) -> None:
        on = self.role()
        for role, caption in self._captions.items():
            style = MARKED if role is on else ""
            if caption.styleSheet() != style:
                caption.setStyleSheet(style)
