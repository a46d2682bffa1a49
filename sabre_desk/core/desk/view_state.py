"""How the open case's images are viewed, Qt-free: its zoom and the comparisons shown.

One place decides the zoom, so it cannot drift: a case opens fitted (another case's zoom
never carries over, whatever was switched on and off before); a comparison entered (a
swipe, a blink, a repair beside the image) remembers the zoom it came with and gives it back
when left; leaving a comparison ends every comparison entered inside it. A swipe stays on
from case to case (the reviewer chose to look that way), a repair comparison belongs to its
case and ends with it. The canvases apply what this says and report the reviewer's zooms
to it; Sync applies the one zoom to both images of a pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sabre_desk.core.jobs.events import Event


@dataclass(frozen=True)
class Zoom:
    """A zoom the reviewer chose: the image's width on screen in view pixels, and the image
    point (as fractions of its width and height) at the centre of the view. Two images of a
    pair at one Zoom are shown at the same size, centred on the same spot."""

    width: float
    cx: float = 0.5
    cy: float = 0.5


class Comparison(StrEnum):
    """A way of looking at the case beyond side by side, each entered and left."""

    SWIPE = "swipe"  # the pair in one canvas, split by a divider (W)
    BLINK = "blink"  # the other image in place while V is held
    REPAIR = "repair"  # the image beside a repair's preview
    STACKED = "stacked"  # the pair one above the other (wide images)


#: Comparisons that belong to the case they were entered on: they end when it is left.
CASE_BOUND = frozenset({Comparison.REPAIR, Comparison.BLINK})


class ViewState:
    """The open case's zoom (None: fitted) and the stack of comparisons entered."""

    def __init__(self) -> None:
        self.case_id: str | None = None
        self.zoom: Zoom | None = None
        #: (comparison, the zoom it came with), oldest first
        self._stack: list[tuple[Comparison, Zoom | None]] = []
        self.zoom_changed: Event[[]] = Event()
        self.comparison_changed: Event[[]] = Event()

    @property
    def fitted(self) -> bool:
        return self.zoom is None

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        return tuple(c for c, _ in self._stack)

    @property
    def repairing(self) -> bool:
        return Comparison.REPAIR in self.comparisons

    @property
    def swiping(self) -> bool:
        return Comparison.SWIPE in self.comparisons

    def open_case(self, case_id: str) -> None:
        """Show *case_id*: fitted unless it is the case shown already (shown again after a
        comparison or a replaced image), without the comparisons bound to the case left."""
        if case_id == self.case_id:
            return
        self._reset(case_id)

    def close(self) -> None:
        """No case shown (another project opens): nothing of the last one is kept."""
        self._reset(None)

    def _reset(self, case_id: str | None) -> None:
        self.case_id = case_id
        kept: list[tuple[Comparison, Zoom | None]] = [
            (c, None) for c in self.comparisons if c not in CASE_BOUND
        ]
        changed = len(kept) != len(self._stack)
        self._stack = kept  # on this case, each came with the fitted view
        self._set(None)
        if changed:
            self.comparison_changed.emit()

    def set_zoom(self, zoom: Zoom | None) -> None:
        """The reviewer zoomed (None: fitted again)."""
        self._set(zoom)

    def enter(self, comparison: Comparison) -> None:
        if comparison in self.comparisons:
            return
        self._stack.append((comparison, self.zoom))
        self.comparison_changed.emit()

    def leave(self, comparison: Comparison) -> None:
        """End *comparison* and those entered inside it; the zoom it came with is back."""
        at = next((i for i, (c, _) in enumerate(self._stack) if c is comparison), None)
        if at is None:
            return
        zoom = self._stack[at][1]
        del self._stack[at:]
        self._set(zoom)
        self.comparison_changed.emit()

    def _set(self, zoom: Zoom | None) -> None:
        if zoom != self.zoom:
            self.zoom = zoom
            self.zoom_changed.emit()
