"""The open case's images on the two canvases: asked for, painted as they land, read ahead.

A jump paints one frame for its case: the canvases keep their old frame until the images
land (``hold_frame``), decodes queued for other cases are taken back, and worker processes
pause until the case is painted. Once it is, the cases beside it are decoded ahead and their
previews made. Results for a case already left are dropped: only keys still waited for are
painted. A repair comparison shows other files on the same canvases (``show_files``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Box
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import ViewMode, Workbench
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.image_loader import ImageLoader, Key, image_key
from sabre_desk.gui.machinery.preview_sweep import PreviewSweep
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.gui.machinery.qimage import DisplayImage
from sabre_desk.gui.machinery.soon import call_soon
from sabre_desk.gui.review.boxes_ui import BoxesUi
from sabre_desk.gui.review.full_resolution import FullResolution

PREFETCH_NEIGHBOURS = 2  # cases decoded ahead on each side of the current one
PREVIEWS_AHEAD = 12  # cases each side whose previews the sweep makes first


class CaseDisplay(QObject):
    images_shown = Signal(str)  # case id, once its images (or placeholders) are painted
    painted = Signal()  # a frame of the open case (or of no case) is on the screen
    opening = Signal()  # a case is being put on the canvases: the reviewer is moving

    def __init__(
        self,
        session: Session,
        workbench: Workbench,
        compare: CompareView,
        loader: ImageLoader,
        jobs: ProcessJobs,
        previews: PreviewSweep,
        boxes: BoxesUi,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.session, self.workbench, self.compare = session, workbench, compare
        self.loader, self.jobs, self.previews, self.boxes = loader, jobs, previews, boxes
        self.full_res = FullResolution(loader, compare, self)
        self._waiting: dict[Key, ImageRole] = {}
        self._shown_case: str | None = None
        loader.loaded.connect(self._on_image_loaded)
        loader.failed.connect(self._on_image_failed)
        loader.stale.connect(lambda _key: self.redisplay_case())
        compare.all_painted.connect(self._on_all_painted)

    def ask_for_images(self, project: Project, case_id: str) -> list[Key]:
        """Ask for the images of *case_id* as wanted on screen now (none for a case whose
        folder is not safe to read); their keys."""
        entry = project.entry(case_id)
        if entry is None or not entry.is_valid:
            return []
        return self.loader.request_folder(entry.folder, now=True)

    def forget(self) -> None:
        """Nothing more is painted for what was asked (the window closes)."""
        self._waiting.clear()

    def redisplay_case(self) -> None:
        """Show the open case's images again (after a comparison, or an image replaced)."""
        controller = self.session.controller
        if controller is not None and controller.case is not None:
            self.case_loaded(controller.case)

    def show_files(self, files: dict[ImageRole, Path | None], boxes: list[Box]) -> None:
        """Show arbitrary image files on the canvases (a repair comparison), with *boxes*."""
        self._waiting.clear()
        self.boxes.show_overlay(boxes, list(files))
        for role, path in files.items():
            canvas = self.compare.canvases[role]
            if path is None:
                self.compare.expect_paint(role)
                canvas.show_message("⚠ the image is missing")
                continue
            key = self.loader.request(path)
            image = self.loader.cached(key)
            if image is not None:
                self._show_image(role, key, image)
            else:
                self._waiting[key] = role
                canvas.show_message("Loading…")

    def case_loaded(self, case: Case) -> None:
        self.workbench.set_current(case.case_id)
        self.workbench.set_mode(ViewMode.REVIEWING)  # a case opens to be reviewed
        self.boxes.clear_overlay()
        self.opening.emit()
        self._waiting.clear()
        self._shown_case = case.case_id
        roles = case.spec.image_roles
        self.compare.open_case(case.case_id)  # fitted, unless shown again
        info = case.image_info.get(roles[0])
        self.compare.set_aspect(info.width / info.height if info and info.height else None)
        self.compare.show_roles(roles)
        current = {image_key(case.images[r]) for r in roles if r in case.images}
        self.loader.cancel_except(current)
        self.jobs.hold()  # the case on screen first; released once it is painted
        self.compare.hold_frame()  # one frame for the case, with its images if they come soon
        for role in roles:
            canvas = self.compare.canvases[role]
            if role in case.image_problems:
                self.compare.expect_paint(role)
                canvas.show_message(f"⚠ {case.image_problems[role].message}")
                continue
            key = self.loader.request(case.images[role], now=True)
            image = self.loader.cached(key)
            failure = self.loader.failure(key)
            if image is not None:
                self._show_image(role, key, image)
            elif failure is not None:
                self.compare.expect_paint(role)
                canvas.show_message(f"⚠ {failure}")
            else:
                self._waiting[key] = role
                canvas.show_message("Loading…")

    def case_failed(self, case_id: str, _message: str) -> None:
        self._waiting.clear()
        self._shown_case = case_id
        self.compare.open_case(case_id)
        self.compare.show_roles((ImageRole.BASE, ImageRole.EDITED))
        for role in (ImageRole.BASE, ImageRole.EDITED):
            self.compare.expect_paint(role)
            self.compare.canvases[role].show_message("This case cannot be opened.")

    def _show_image(self, role: ImageRole, key: Key, image: DisplayImage) -> None:
        canvas = self.compare.canvases[role]
        self.compare.expect_paint(role)
        canvas.set_image(image)
        self.full_res.shown(role, key)
        self.boxes.refresh(role, fresh=True)

    def _on_image_loaded(self, key: Key, image: DisplayImage) -> None:
        role = self._waiting.pop(key, None)
        if role is not None:  # otherwise a prefetch, or a case already left
            self._show_image(role, key, image)

    def _on_image_failed(self, key: Key, message: str) -> None:
        role = self._waiting.pop(key, None)
        if role is not None:
            self.compare.expect_paint(role)
            self.compare.canvases[role].show_message(f"⚠ {message}")

    def _on_all_painted(self) -> None:
        # Inside the paint of the frame: what follows is done once the frame is on the
        # screen (reading ahead, done here, kept it from there by 4 ms).
        call_soon(self, partial(self._after_painted, self._shown_case))

    def _after_painted(self, case_id: str | None) -> None:
        if case_id != self._shown_case:
            return  # another case was opened meanwhile: its own paint follows
        self.jobs.release()
        self.painted.emit()
        if case_id is None:
            return
        if self.session.controller is not None:
            self.session.controller.case_shown(case_id)
        self.images_shown.emit(case_id)
        self._prefetch(case_id)  # only now: a quick flip queues no decode nobody will see

    def _prefetch(self, case_id: str) -> None:
        for entry in self.workbench.neighbours(case_id, PREFETCH_NEIGHBOURS):
            if entry.is_valid:
                self.loader.request_folder(entry.folder)
        ahead = self.workbench.neighbours(case_id, PREVIEWS_AHEAD)[2 * PREFETCH_NEIGHBOURS :]
        self.previews.ahead([e.folder for e in ahead if e.is_valid])  # found by later jumps
