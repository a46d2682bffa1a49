"""Base and Edited side by side, or one above the other (whichever shows them larger), or
the single image; zoom and pan kept in step. Swiping shows the pair in one canvas, the first
image left of a divider and the second right of it.

The zoom and the comparisons are the ``ViewState``'s: the canvases apply what it says (a new
case fitted, a comparison left with the zoom it came with) and report the reviewer's zooms
to it, so no canvas keeps a zoom of its own from an earlier case or mode."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.view_state import Comparison, ViewState
from sabre_desk.gui.desk.canvas.image_canvas import ImageCanvas
from sabre_desk.gui.desk.canvas.keyboard_mark import KeyboardMark

CAPTIONS = {ImageRole.BASE: "Base", ImageRole.EDITED: "Edited", ImageRole.IMAGE: "Image"}


def _elastic(label: QLabel) -> None:
    """A caption never sets the window's width: a long one (a repair's engine and status,
    the swipe's hint) wraps, never widens the window past the screen."""
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    label.setMinimumWidth(1)
    label.setWordWrap(True)  # a second line rather than a cut one


#: How long a painted case stays on screen before the work about it that can wait starts
#: (hashing its images): a reviewer flipping through cases at key-repeat speed leaves each
#: within 30–100 ms, and every case hashed in passing read 8 MB the reviewer never needed
#: (``benchmarks/case_switch.py``: 420 images hashed during a flip of 200 cases, a core busy).
SETTLE_MS = 300
#: How long the canvases keep the frame they show while the images of the case just opened
#: are on their way (a stored preview lands in 10–20 ms): painting "Loading…" at once cost
#: a frame, painted while those images were being decoded, and a second one for them.
LOADING_GRACE_MS = 60


class CompareView(QWidget):
    all_painted = Signal()  # every visible image (or its placeholder) has been painted
    settled = Signal()  # ...and the case has stayed on screen for SETTLE_MS since
    swipe_changed = Signal(bool)  # the swipe began or ended (W, or its comparison ended)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.canvases: dict[ImageRole, ImageCanvas] = {}
        self.captions: dict[ImageRole, QLabel] = {}
        self._columns: dict[ImageRole, QWidget] = {}
        self.sync = True
        self.state = ViewState()
        self.state.zoom_changed.connect(self._on_zoom_changed)
        self.state.comparison_changed.connect(self._on_comparisons_changed)
        self._recording = False  # a zoom of the reviewer's is being written to the state
        self._syncing = False
        self._unpainted: set[ImageRole] = set()  # roles whose final content is not yet painted
        self._final: set[ImageRole] = set()  # roles whose final content (image/error) is set
        self._aspect: float | None = None  # width / height of the pair being shown
        self._shown: tuple[ImageRole, ...] = ()
        self._swiping = False  # as laid out now
        self._caption_before: dict[ImageRole, str] = {}  # while V is held
        self._settle = QTimer(self)
        self._settle.setSingleShot(True)
        self._settle.setInterval(SETTLE_MS)
        self._settle.timeout.connect(self.settled)
        self._grace = QTimer(self)
        self._grace.setSingleShot(True)
        self._grace.timeout.connect(self._paint_again)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(2)
        self.swipe_label = QLabel()
        self.swipe_label.setObjectName("imageCaption")
        self.swipe_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.swipe_label.hide()
        _elastic(self.swipe_label)
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
            _elastic(caption)
            # Hidden while swiping with its room kept: V held shows it, the image unmoved.
            policy = caption.sizePolicy()
            policy.setRetainSizeWhenHidden(True)
            caption.setSizePolicy(policy)
            canvas = ImageCanvas()
            canvas.setObjectName(f"canvas_{role.value}")
            canvas.view_changed.connect(lambda r=role: self._on_view_changed(r))
            canvas.painted.connect(lambda r=role: self._on_painted(r))
            canvas.image_changed.connect(lambda r=role: self._on_image_changed(r))
            canvas.blink.connect(lambda on, r=role: self._blink(r, on))
            layout.addWidget(caption)
            layout.addWidget(canvas, 1)
            row.addWidget(column, 1)
            self.canvases[role], self.captions[role], self._columns[role] = canvas, caption, column
        #: which image the keyboard acts on, marked; O moves it to the other image
        self.keyboard = KeyboardMark(self.canvases, self.captions, lambda: self.visible_roles, self)
        self.show_roles(())

    def show_roles(self, roles: tuple[ImageRole, ...]) -> None:
        shown = roles or (ImageRole.BASE, ImageRole.EDITED)
        focused = next((r for r, c in self.canvases.items() if c.hasFocus()), None)
        for role, column in self._columns.items():
            column.setVisible(role in shown and not (self._swipes(shown) and role is shown[0]))
        if focused is not None and self._columns[focused].isHidden():
            # Hiding the focused canvas would hand the keyboard to the filter box, and the
            # reviewer's next decision key would be typed there instead.
            self.canvases[shown[-1] if self._swipes(shown) else shown[0]].setFocus()
        self._unpainted = set(roles)
        self._final = set()
        self._shown = shown
        self._choose_direction()
        self._update_swipe()

    # --- the view state ------------------------------------------------------------------

    @property
    def swiping(self) -> bool:
        return self.state.swiping

    def open_case(self, case_id: str) -> None:
        """*case_id* is shown: fitted, unless it is the case shown already."""
        self._settle.stop()  # the case left before it settled
        self.state.open_case(case_id)

    def set_swiping(self, on: bool) -> None:
        """One canvas with a divider for a pair (the first image left of it), or two."""
        if on:
            self.state.enter(Comparison.SWIPE)
        else:
            self.state.leave(Comparison.SWIPE)

    def _on_comparisons_changed(self) -> None:
        if self.state.swiping != self._swiping:
            self._swiping = self.state.swiping
            self.show_roles(self._shown)
            self._apply_zoom()
            self.swipe_changed.emit(self._swiping)

    def _on_zoom_changed(self) -> None:
        if not self._recording:  # the state's own change: a case opened, a mode left
            self._apply_zoom()

    def _apply_zoom(self, roles: list[ImageRole] | None = None) -> None:
        self._syncing = True
        try:
            for role in self.visible_roles if roles is None else roles:
                self.canvases[role].apply_zoom(self.state.zoom)
        finally:
            self._syncing = False

    def _on_image_changed(self, role: ImageRole) -> None:
        """A new image shows the case's zoom, whatever its canvas showed before."""
        self._apply_zoom([role])
        self._update_swipe()

    def _swipes(self, shown: tuple[ImageRole, ...]) -> bool:
        return self._swiping and len(shown) == 2

    def _update_swipe(self) -> None:
        shown = self._shown
        swiping = self._swipes(shown)
        self.swipe_label.setVisible(swiping)
        if swiping:
            left, right = (self.captions[r].text() for r in (shown[0], shown[-1]))
            self.swipe_label.setText(
                f"◂ {left}  |  {right} ▸   (drag the divider, or press Left/Right; W ends)"
            )
        for role, caption in self.captions.items():
            # The line above names both images: the swiped canvas's own caption ("Edited")
            # would say it shows one (it comes back while V is held, naming what shows).
            caption.setVisible(not (swiping and role is shown[-1]))
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
            self.state.leave(Comparison.BLINK)
            canvas.show_instead(None)
            caption.setText(self._caption_before.pop(role, caption.text()))
            self._update_swipe()
            return
        others = [r for r in self._shown if r is not role]
        image = self.canvases[others[0]].display_image if len(others) == 1 else None
        if image is not None and canvas.show_instead(image):
            self.state.enter(Comparison.BLINK)
            self._caption_before.setdefault(role, caption.text())
            caption.setText(f"{self.captions[others[0]].text()} (while V is held)")
            caption.show()

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

    def hold_frame(self) -> None:
        """The images of the case being opened are on their way: the canvases paint
        nothing until each has its final content (its image, or why it has none), or for
        LOADING_GRACE_MS at most; then "Loading…" shows where an image is still missing."""
        for canvas in self.canvases.values():
            canvas.viewport().setUpdatesEnabled(False)
        self._grace.start(LOADING_GRACE_MS)
        self._release_when_final()

    def _paint_again(self) -> None:
        self._grace.stop()
        for canvas in self.canvases.values():
            if not canvas.viewport().updatesEnabled():
                canvas.viewport().setUpdatesEnabled(True)  # and paints it again

    def _release_when_final(self) -> None:
        if self._grace.isActive() and self._unpainted <= self._final:
            self._paint_again()

    def expect_paint(self, role: ImageRole) -> None:
        """The final content of *role* (its image or its error) has been set."""
        self._final.add(role)
        if self._columns[role].isHidden():  # swiped under the other: never painted
            self._on_painted(role)
        self._release_when_final()

    def _on_painted(self, role: ImageRole) -> None:
        if role in self._final and role in self._unpainted:
            self._unpainted.discard(role)
            if not self._unpainted:
                self.all_painted.emit()
                self._settle.start()

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
        """The reviewer zoomed or panned *source*: that is the case's zoom now, and with
        Sync the other image shows it too (the same size on screen, the same spot)."""
        if self._syncing or source not in self.visible_roles:
            return
        canvas = self.canvases[source]
        if canvas.image_size is None:
            return
        self._recording = True
        try:
            self.state.set_zoom(canvas.zoom_state())
        finally:
            self._recording = False
        if self.sync:
            self._apply_zoom([r for r in self.visible_roles if r is not source])

    def fit(self) -> None:
        for role in self.visible_roles:
            self.canvases[role].fit()

    def actual_size(self) -> None:
        for role in self.visible_roles:
            self.canvases[role].actual_size()
            if self.sync:
                break  # the others follow, at the same size on screen

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
