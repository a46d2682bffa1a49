"""The boxes on the canvases: drawing, editing, nudging and deleting one is a command of the
open case's controller; what the canvases show is the case's boxes, or the boxes of a repair
comparison while one is shown (never editable there).

It gets the session and the canvases, never the window; the window tells it when a
comparison starts (``show_overlay``), when a case is shown again (``clear_overlay``) and when
an image has landed on a canvas (``refresh``).
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint

from sabre_desk.core.case.review import Box
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.boxes import DEFAULT_LABELS
from sabre_desk.core.desk.case_editor import Aspect
from sabre_desk.core.desk.workbench import ViewMode, Workbench
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import CaseController
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.review.box_menu import box_menu
from sabre_desk.imaging.geometry import Rect


class BoxesUi(QObject):
    def __init__(self, session: Session, compare: CompareView, workbench: Workbench) -> None:
        super().__init__(compare)
        self.session, self.compare = session, compare
        #: boxes shown instead of the case's (a repair comparison), by image
        self.overlay: dict[ImageRole, list[Box]] | None = None
        #: the box to select once the case's image of that role is shown again: (case, role,
        #: where the box is), from a comparison left (``select_when_shown``)
        self._reselect: tuple[str, ImageRole, Rect] | None = None
        for role, canvas in compare.canvases.items():
            canvas.box_created.connect(lambda box, r=role: self._on_created(r, box))
            canvas.box_edited.connect(lambda i, box, r=role: self._on_changed(r, i, box, False))
            canvas.box_nudged.connect(lambda i, box, r=role: self._on_changed(r, i, box, True))
            canvas.box_delete_requested.connect(lambda i, r=role: self._on_deleted(r, i))
            canvas.box_menu_requested.connect(
                lambda i, pos, r=role: self._on_menu_requested(r, i, pos)
            )
        workbench.mode_changed.connect(self._on_mode_changed)
        session.opened.connect(self._on_opened)

    def _on_opened(self, controller: CaseController) -> None:
        controller.box_focus.connect(self._on_box_focus)
        controller.review_changed.connect(self._on_review_changed)

    # --- what the window tells --------------------------------------------------------------

    def show_overlay(self, boxes: list[Box], roles: list[ImageRole]) -> None:
        """A comparison shows *boxes* on the images of *roles* instead of the case's."""
        self.overlay = {role: [b for b in boxes if b.image_role is role] for role in roles}

    def clear_overlay(self) -> None:
        self.overlay = None

    def select_when_shown(self, case_id: str, role: ImageRole, box: Rect) -> None:
        """Once *case_id*'s *role* image is shown again, select its box at *box* (the box a
        repair comparison just left was about), if it is still there: Ctrl+R and the
        arrows then act on it, as before the comparison."""
        self._reselect = (case_id, role, box)

    def refresh(self, role: ImageRole, fresh: bool = False) -> None:
        """Redraw the boxes of *role*, keeping the selection; *fresh*: a newly shown image,
        nothing selected yet but the box a comparison just left was about."""
        case = self.session.case
        if case is None:
            return
        canvas = self.compare.canvases[role]
        if self.overlay is not None:
            canvas.set_boxes(self.overlay.get(role, []), -1)
            return
        boxes = case.review.boxes_on(role)
        selected = -1 if fresh or canvas.selected_box >= len(boxes) else canvas.selected_box
        wanted = self._reselect
        if fresh and wanted is not None and wanted[1] is role:
            self._reselect = None
            where = [tuple(b.box) for b in boxes]
            if wanted[0] == case.case_id and wanted[2] in where:
                selected = where.index(wanted[2])
        canvas.set_boxes(boxes, selected)

    # --- the canvases and the controller ------------------------------------------------------

    def _on_created(self, role: ImageRole, box: Rect) -> None:
        if self.session.controller is not None:
            self.session.controller.add_box(role, box, DEFAULT_LABELS[role])

    def _on_changed(self, role: ImageRole, index: int, box: Rect, nudge: bool) -> None:
        if self.session.controller is not None:
            self.session.controller.change_box(role, index, box, nudge)

    def _on_deleted(self, role: ImageRole, index: int) -> None:
        if self.session.controller is not None:
            self.session.controller.remove_box(role, index)

    def _on_menu_requested(self, role: ImageRole, index: int, pos: QPoint) -> None:
        if self.session.controller is not None:
            box_menu(self.session.controller, role, index, pos, self.compare)

    def _on_mode_changed(self, mode: ViewMode) -> None:
        """Boxes can be drawn and edited only while reviewing, never on a comparison."""
        reviewing = mode is ViewMode.REVIEWING
        for canvas in self.compare.canvases.values():
            canvas.boxes_editable = reviewing
        if reviewing:
            self.overlay = None

    def _on_box_focus(self, role: ImageRole, index: int) -> None:
        """The box a change names (one just drawn, or brought back by an undo) is selected."""
        case = self.session.case
        if case is not None and self.overlay is None:
            self.compare.canvases[role].set_boxes(case.review.boxes_on(role), index)

    def _on_review_changed(self, aspect: Aspect) -> None:
        case = self.session.case
        if aspect in (Aspect.BOXES, Aspect.ALL) and case is not None and self.overlay is None:
            for role in case.spec.image_roles:
                self.refresh(role)
