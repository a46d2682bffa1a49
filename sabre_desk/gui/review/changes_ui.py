"""The change map in the window: key D overlays what changed on both images, a list of the
changed regions (click one to zoom both images to it), and a background pass that flags the
cases whose changes fall outside the edit in the case list.

Change maps are computed in worker processes (the comparison holds the interpreter for
much of its time): the open case first, the sweep behind it, one case at a time.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import ViewMode, Workbench
from sabre_desk.core.repair.changes import change_map_and_heat, edit_box, sweep_case
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.fit_rows import keep_fitted
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.idle_sweep import IdleSweep
from sabre_desk.gui.machinery.image_loader import image_key
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.imaging.diff import ChangeMap, score_outside

CACHE_SIZE = 24
ONE_IMAGE = "Changes are shown for paired (Base/Edited) cases; this one has a single image."
FOREGROUND, BACKGROUND = 10, 0


def heat_image(rgba: np.ndarray) -> QImage:
    h, w = rgba.shape[:2]
    return QImage(rgba.data, w, h, rgba.strides[0], QImage.Format.Format_RGBA8888).copy()


def _key(case: Case) -> tuple:
    return (case.case_id, *(image_key(case.images[r]) for r in (ImageRole.BASE, ImageRole.EDITED)))


class ChangesSection(QWidget):
    """The list of changed regions, shown in the case panel while the map is on."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.regions = QListWidget()
        keep_fitted(self.regions)  # in the case panel's scrolling pane: no scrollbar of its own
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.regions)


class ChangesUi(QObject):
    shown = Signal(str)  # case id whose change map is on screen

    def __init__(
        self,
        session: Session,
        compare: CompareView,
        workbench: Workbench,
        jobs: ProcessJobs,
        parent: QObject,
    ):
        super().__init__(parent)
        self.session, self.compare, self.workbench, self.jobs = session, compare, workbench, jobs
        self._cache: OrderedDict[tuple, tuple[ChangeMap, QImage]] = OrderedDict()
        self._pending: set[tuple] = set()
        self.flags: dict[str, bool] = {}
        self.idle_sweep = IdleSweep(
            lambda fn, args, done: jobs.submit(fn, args, done, BACKGROUND),
            sweep_case,
            self._on_swept,
            parent=self,
        )
        self.visible = False
        self.section = ChangesSection()
        self.section.hide()
        self.section.regions.itemActivated.connect(self._zoom_to_item)
        self.section.regions.itemClicked.connect(self._zoom_to_item)
        self.action = QAction("Show &Changes (Base → Edited)", parent)
        self.action.setShortcut(QKeySequence("D"))
        self.action.setCheckable(True)
        self.action.toggled.connect(self.set_visible)
        session.opened.connect(lambda _controller: self.idle_sweep.stop())

    # --- showing ----------------------------------------------------------------------------

    def set_visible(self, on: bool) -> None:
        self.visible = on
        if not on:
            for canvas in self.compare.canvases.values():
                canvas.set_overlay(None, [])
            self.section.hide()
            return
        self.refresh()

    def _show_section(self) -> None:
        """The regions list, in the case panel: never a window of its own (before a project
        is open the section has no panel to be in)."""
        if self.section.parentWidget() is not None:
            self.section.show()

    def _current(self) -> Case | None:
        case = self.session.case
        if case is None or ImageRole.BASE not in case.spec.image_roles:
            return None
        if self.workbench.mode is not ViewMode.REVIEWING:
            return None  # a repair comparison is on screen, not Base and Edited
        return case

    def refresh(self) -> None:
        if not self.visible:
            return
        case = self._current()
        if case is None:
            if self.session.case is not None and self.workbench.mode is ViewMode.REVIEWING:
                self.session.say_here(ONE_IMAGE, 5000)  # said where the reviewer looks
            self.section.summary.setText(ONE_IMAGE)
            self.section.regions.clear()
            self._show_section()
            return
        if any(r not in case.images for r in (ImageRole.BASE, ImageRole.EDITED)):
            return
        key = _key(case)
        cached = self._cache.get(key)
        if cached is None:
            self.section.summary.setText("Comparing Base and Edited…")
            self.section.regions.clear()
            self._show_section()
            self._request(case, key, FOREGROUND)
            return
        self._cache.move_to_end(key)
        result, heat = cached
        box, source = edit_box(case)
        score_outside(result, box, source)  # the reviewer's box may have moved since
        self._show(case, result, heat)

    def _show(self, case: Case, result: ChangeMap, heat: QImage) -> None:
        regions = [(r.box, r.outside) for r in result.regions]
        self.compare.canvases[ImageRole.EDITED].set_overlay(heat, regions)
        self.compare.canvases[ImageRole.BASE].set_overlay(None, regions)
        lines = [f"{len(result.regions)} changed region(s)"]
        if result.edit_box is not None:
            lines.append(
                f"{result.outside_share:.0%} of the change lies outside the edit "
                f"({result.edit_box_source})"
            )
        if result.possibly_scene_changed:
            lines.append(
                "<b style='color:#e53935'>possibly “Scene changed”</b> — a hint, check it yourself"
            )
        lines += result.notes
        self.section.summary.setText("<br>".join(lines))
        self.section.regions.clear()
        for i, region in enumerate(result.regions, 1):
            where = "outside the edit" if region.outside else "inside the edit"
            item = QListWidgetItem(f"Region {i} · {region.area:.1%} of the image · {where}")
            item.setData(Qt.ItemDataRole.UserRole, region.box)
            item.setForeground(QColor("#e53935" if region.outside else "#0277bd"))
            self.section.regions.addItem(item)
        self._show_section()
        self.shown.emit(case.case_id)

    def _zoom_to_item(self, item: QListWidgetItem) -> None:
        box = item.data(Qt.ItemDataRole.UserRole)
        if box:
            self.compare.sync = True  # side by side, like DLEBench's crops
            self.compare.canvases[ImageRole.EDITED].zoom_to(tuple(box), context=1.0)

    # --- computing --------------------------------------------------------------------------

    def _request(self, case: Case, key: tuple, priority: int) -> None:
        if key in self._pending:
            return
        self._pending.add(key)

        def done(result: tuple[ChangeMap, np.ndarray] | None, error: Exception | None) -> None:
            if error is not None or result is None:
                self._on_error(key, error or RuntimeError("no result"))
            else:
                self._on_done(key, case, (result[0], heat_image(result[1])))

        self.jobs.submit(change_map_and_heat, (case,), done, priority)  # the open case first

    def _on_done(self, key: tuple, case: Case, result: tuple[ChangeMap, QImage]) -> None:
        self._pending.discard(key)
        self._cache[key] = result
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        self._flag(case.case_id, result[0].possibly_scene_changed)
        current = self._current()
        if current is not None and _key(current) == key:
            self.refresh()

    def _on_error(self, key: tuple, exc: Exception) -> None:
        self._pending.discard(key)
        current = self._current()
        if current is not None and _key(current) == key and self.visible:
            message = exc.message if isinstance(exc, ProjectError) else str(exc)
            self.section.summary.setText(f"Could not compare: {message}")

    def _flag(self, case_id: str, outside: bool) -> None:
        self.flags[case_id] = outside
        project = self.session.project
        entry = project.entry(case_id) if project else None
        if project is not None and entry is not None and entry.changes_outside != outside:
            entry = replace(entry, changes_outside=outside)
            project.replace_entry(entry)
            self.workbench.update_entry(entry)

    def _on_swept(self, args: tuple[str, str, str], outside: bool | None) -> None:
        if outside is not None:
            self._flag(args[2], outside)

    def sweep(self, project: Project) -> None:
        """Compare every paired case in the background so the case list can flag them.

        One case at a time, and only while the reviewer is not moving between cases: a
        reviewer flipping through cases must not feel it.
        """
        self.flags.clear()
        root, reviewer = str(project.root), project.reviewer
        self.idle_sweep.start(
            (root, reviewer, e.case_id)
            for e in project.entries
            if not e.problem and e.generation_mode == "paired_edit"
        )

    def shutdown(self) -> None:
        self.idle_sweep.stop()
