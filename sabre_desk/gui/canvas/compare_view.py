"""Base and Edited side by side, or one above the other (whichever shows them larger), or
the single image; zoom and pan kept in step. Swiping shows the pair in one canvas, the first
image left of a divider and the second right of it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QVBoxLayout, QWidget

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.canvas.image_canvas import ImageCanvas

CAPTIONS = {ImageRole.BASE: "Base", ImageRole.EDITED: "Edited", ImageRole.IMAGE: "Image"}


class CompareView(QWidget):
    all_painted = Signal()  # every visible image (or its placeholder) has been painted

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.canvases: dict[ImageRole, ImageCanvas] = {}
        self.captions: dict[ImageRole, QLabel] = {}
        self._columns: dict[ImageRole, QWidget] = {}
        self.sync = True
        self._syncing = False
        self._unpainted: set[ImageRole] = set()  # roles whose final content is not yet painted
        self._final: set[ImageRole] = set()  # roles whose final content (image/error) is set
        self._aspect: float | None = None  # width / height of the pair being shown
        self._shown: tuple[ImageRole, ...] = ()
        self.swiping = False
        self._caption_before: dict[ImageRole, str] = {}  # while V is held
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        self.swipe_label = QLabel()
        self.swipe_label.setObjectName("imageCaption")
        self.swipe_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.swipe_label.hide()
        outer.addWidget(self.swipe_label)
        row = QBoxLayout(QBoxLayout.Direction.LeftToRight)
        row.setSpacing(4)
        outer.addLayout(row, 1)
        self._row = row
        for role in ImageRole:
            column = QWidget()
            layout = QVBoxLayout(column)
            layout.setContentsMargins(0, 0, 0, 0)
            layout.setSpacing(2)
            caption = QLabel(CAPTIONS[role])
            caption.setObjectName("imageCaption")
            caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
            canvas = ImageCanvas()
            canvas.setObjectName(f"canvas_{role.value}")
            canvas.view_changed.connect(lambda r=role: self._on_view_changed(r))
            canvas.painted.connect(lambda r=role: self._on_painted(r))
            canvas.image_changed.connect(self._update_swipe)
            canvas.blink.connect(lambda on, r=role: self._blink(r, on))
            layout.addWidget(caption)
            layout.addWidget(canvas, 1)
            row.addWidget(column, 1)
            self.canvases[role], self.captions[role], self._columns[role] = canvas, caption, column
        self.show_roles(())

    def show_roles(self, roles: tuple[ImageRole, ...]) -> None:
        shown = roles or (ImageRole.BASE, ImageRole.EDITED)
        had_focus = any(c.hasFocus() for c in self.canvases.values())
        for role, column in self._columns.items():
            column.setVisible(role in shown and not (self._swipes(shown) and role is shown[0]))
        if had_focus:
            # Hiding the focused canvas would hand the keyboard to the filter box, and the
            # reviewer's next decision key would be typed there instead.
            self.canvases[shown[0]].setFocus()
        self._unpainted = set(roles)
        self._final = set()
        self._shown = shown
        self._choose_direction()
        self._update_swipe()

    def set_swiping(self, on: bool) -> None:
        """One canvas with a divider for a pair (the first image left of it), or two."""
        self.swiping = on
        self.show_roles(self._shown)

    def _swipes(self, shown: tuple[ImageRole, ...]) -> bool:
        return self.swiping and len(shown) == 2

    def _update_swipe(self) -> None:
        shown = self._shown
        swiping = self._swipes(shown)
        self.swipe_label.setVisible(swiping)
        if swiping:
            left, right = (self.captions[r].text() for r in (shown[0], shown[-1]))
            self.swipe_label.setText(
                f"◂ {left}  |  {right} ▸   (drag the divider, or press Left/Right; W ends)"
            )
        for role, canvas in self.canvases.items():
            wanted = self._swipes(shown) and role is shown[-1]
            under = self.canvases[shown[0]].display_image if wanted else None
            if under is not canvas.swipe_image:
                canvas.set_swipe(under)

    def _blink(self, role: ImageRole, on: bool) -> None:
        """V held on one image of a pair shows the other in its place, same view and boxes:
        what changed between them jumps out (a blink comparator); letting go shows it back.
        The same on a repair comparison: the current image and the preview."""
        canvas, caption = self.canvases[role], self.captions[role]
        if not on:
            canvas.show_instead(None)
            caption.setText(self._caption_before.pop(role, caption.text()))
            return
        others = [r for r in self._shown if r is not role]
        image = self.canvases[others[0]].display_image if len(others) == 1 else None
        if image is not None and canvas.show_instead(image):
            self._caption_before.setdefault(role, caption.text())
            caption.setText(f"{self.captions[others[0]].text()} (while V is held)")

    def set_aspect(self, aspect: float | None) -> None:
        """The shown pair's width/height: wide images of a pair go one above the other when
        that shows them larger than side by side (two landscape images side by side sit at
        half size with most of the canvas empty)."""
        self._aspect = aspect
        self._choose_direction()

    @property
    def stacked(self) -> bool:
        return self._row.direction() is QBoxLayout.Direction.TopToBottom

    def _choose_direction(self) -> None:
        two = len(self._shown) == 2
        width, height = max(self.width(), 1), max(self.height(), 1)
        stacked = False
        if two and self._aspect:
            # The scale each image can have in each arrangement (captions ignored).
            side = min(width / 2 / self._aspect, height)
            above = min(width / self._aspect, height / 2)
            stacked = above > side * 1.1  # a clear gain only: no flipping at the balance
        direction = (
            QBoxLayout.Direction.TopToBottom if stacked else QBoxLayout.Direction.LeftToRight
        )
        if self._row.direction() is not direction:
            self._row.setDirection(direction)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._choose_direction()

    def expect_paint(self, role: ImageRole) -> None:
        """The final content of *role* (its image or its error) has been set."""
        self._final.add(role)
        if self._columns[role].isHidden():  # swiped under the other: never painted
            self._on_painted(role)

    def _on_painted(self, role: ImageRole) -> None:
        if role in self._final and role in self._unpainted:
            self._unpainted.discard(role)
            if not self._unpainted:
                self.all_painted.emit()

    @property
    def visible_roles(self) -> list[ImageRole]:
        return [r for r, c in self._columns.items() if c.isVisible()]

    @property
    def view_scale(self) -> float | None:
        """The zoom images are shown at now (the most detailed canvas's; None before any
        image): the next case's are read at the level such a view needs."""
        canvases = [self.canvases[r] for r in self.visible_roles]
        return max((c.screen_zoom for c in canvases if c.image_size), default=None)

    def _on_view_changed(self, source: ImageRole) -> None:
        if not self.sync or self._syncing:
            return
        self._syncing = True
        try:
            state = self.canvases[source].view_state()
            for role in self.visible_roles:
                if role is not source:
                    self.canvases[role].apply_view_state(state)
        finally:
            self._syncing = False

    def fit(self) -> None:
        for role in self.visible_roles:
            self.canvases[role].fit()

    def actual_size(self) -> None:
        for role in self.visible_roles:
            self.canvases[role].actual_size()

    def zoom_by(self, factor: float) -> None:
        for role in self.visible_roles:
            self.canvases[role].zoom_by(factor)
            if self.sync:
                break  # the others follow

    def active_canvas(self) -> ImageCanvas | None:
        """The canvas with keyboard focus, else the last one shown (Edited of a pair)."""
        visible = [self.canvases[r] for r in self.visible_roles]
        focused = [c for c in visible if c.hasFocus()]
        shown = focused or visible
        return shown[-1] if shown else None

    def focused_box(self) -> tuple[ImageRole, int] | None:
        """The selected box of the canvas with focus, else of any canvas."""
        canvases = sorted(self.canvases.items(), key=lambda rc: not rc[1].hasFocus())
        for role, canvas in canvases:
            if canvas.isVisible() and canvas.selected_box >= 0:
                return role, canvas.selected_box
        return None
