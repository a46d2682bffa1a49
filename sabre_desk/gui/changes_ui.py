"""The change map in the window: key D overlays what changed on both images, a list of the
changed regions (click one to zoom both images to it), and a background pass that flags the
cases whose changes fall outside the edit in the case list.

Change maps are computed on a one-thread pool: the open case first, the sweep behind it.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import replace

import cv2
import numpy as np
from PySide6.QtCore import QObject, Qt, QThreadPool, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QImage, QKeySequence
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from sabre_desk.core.changes import case_change_map, edit_box
from sabre_desk.core.project import Case, Project
from sabre_desk.core.spec import ImageRole
from sabre_desk.core.workbench import ViewMode, Workbench
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.canvas.compare_view import CompareView
from sabre_desk.gui.image_loader import image_key
from sabre_desk.gui.session import Session
from sabre_desk.gui.workers import Worker
from sabre_desk.imaging.diff import ChangeMap, score_outside

CACHE_SIZE = 24
SWEEP_IDLE_MS = 800  # the sweep waits this long after the reviewer's last case switch
SWEEP_GAP_MS = 30
FOREGROUND, BACKGROUND = 10, 0


def heat_image(result: ChangeMap) -> QImage:
    """The changed pixels coloured by how much they changed, transparent elsewhere."""
    level = np.clip(result.delta / (2.0 * result.threshold), 0.0, 1.0)
    colored = cv2.applyColorMap((level * 255).astype(np.uint8), cv2.COLORMAP_INFERNO)
    rgba = cv2.cvtColor(colored, cv2.COLOR_BGR2RGBA)
    rgba[..., 3] = np.where(result.changed, 150, 0).astype(np.uint8)
    h, w = rgba.shape[:2]
    return QImage(rgba.data, w, h, rgba.strides[0], QImage.Format.Format_RGBA8888).copy()


def compute(case: Case) -> tuple[ChangeMap, QImage]:
    result = case_change_map(case)
    return result, heat_image(result)


def _key(case: Case) -> tuple:
    return (case.case_id, *(image_key(case.images[r]) for r in (ImageRole.BASE, ImageRole.EDITED)))


class ChangesSection(QWidget):
    """The list of changed regions, shown in the case panel while the map is on."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.regions = QListWidget()
        self.regions.setMaximumHeight(80)  # leaves the probe table its rows
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.summary)
        layout.addWidget(self.regions)


class ChangesUi(QObject):
    shown = Signal(str)  # case id whose change map is on screen

    def __init__(
        self, session: Session, compare: CompareView, workbench: Workbench, parent: QObject
    ):
        super().__init__(parent)
        self.session, self.compare, self.workbench = session, compare, workbench
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self._cache: OrderedDict[tuple, tuple[ChangeMap, QImage]] = OrderedDict()
        self._pending: set[tuple] = set()
        self.flags: dict[str, bool] = {}
        self._project: Project | None = None
        self._sweep_queue: list[str] = []
        self._sweep_running: Worker | None = None
        self._sweep_timer = QTimer(self)
        self._sweep_timer.setSingleShot(True)
        self._sweep_timer.timeout.connect(self._sweep_next)
        self.visible = False
        self.section = ChangesSection()
        self.section.hide()
        self.section.regions.itemActivated.connect(self._zoom_to_item)
        self.section.regions.itemClicked.connect(self._zoom_to_item)
        self.action = QAction("Show &Changes (Base → Edited)", parent)
        self.action.setShortcut(QKeySequence("D"))
        self.action.setCheckable(True)
        self.action.toggled.connect(self.set_visible)
        session.opened.connect(lambda _controller: self._stop_sweep())

    # --- showing ----------------------------------------------------------------------------

    def set_visible(self, on: bool) -> None:
        self.visible = on
        if not on:
            for canvas in self.compare.canvases.values():
                canvas.set_overlay(None, [])
            self.section.hide()
            return
        self.refresh()

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
            self.section.summary.setText("Changes are shown for paired (Base/Edited) cases.")
            self.section.regions.clear()
            self.section.show()
            return
        if any(r not in case.images for r in (ImageRole.BASE, ImageRole.EDITED)):
            return
        key = _key(case)
        cached = self._cache.get(key)
        if cached is None:
            self.section.summary.setText("Comparing Base and Edited…")
            self.section.regions.clear()
            self.section.show()
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
        self.section.show()
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
        worker = Worker(compute, case)
        worker.signals.returned.connect(lambda result, k=key, c=case: self._on_done(k, c, result))
        worker.signals.errored.connect(lambda exc, k=key: self._on_error(k, exc))
        worker.start(self.pool, priority)  # the open case goes ahead of the sweep

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

    def sweep(self, project: Project) -> None:
        """Compare every paired case in the background so the case list can flag them.

        One case at a time, and only while the reviewer is not moving between cases: the
        comparison competes for the interpreter with the window, and a reviewer flipping
        through cases must not feel it.
        """
        self._stop_sweep()
        self.flags.clear()
        self._project = project
        self._sweep_queue = [
            e.case_id
            for e in project.entries
            if not e.problem and e.generation_mode == "paired_edit"
        ]
        self._sweep_timer.start(SWEEP_IDLE_MS)

    def note_activity(self) -> None:
        """The reviewer did something: hold the sweep back for a moment."""
        if self._sweep_queue:
            self._sweep_timer.start(SWEEP_IDLE_MS)

    def _sweep_next(self) -> None:
        if self._sweep_running is not None or not self._sweep_queue or self._project is None:
            return
        case_id = self._sweep_queue.pop(0)
        worker = Worker(_sweep_one, self._project, case_id)
        worker.signals.returned.connect(lambda outside, cid=case_id: self._flag(cid, outside))
        worker.signals.finished.connect(self._sweep_done)
        self._sweep_running = worker
        worker.start(self.pool, BACKGROUND)

    def _sweep_done(self) -> None:
        self._sweep_running = None
        if self._sweep_queue:
            self._sweep_timer.start(SWEEP_GAP_MS)

    def _stop_sweep(self) -> None:
        self._sweep_timer.stop()
        self._sweep_queue = []
        if self._sweep_running is not None and self._sweep_running.withdraw(self.pool):
            self._sweep_running = None

    def shutdown(self) -> None:
        self._stop_sweep()
        self.pool.waitForDone(3000)


def _sweep_one(project: Project, case_id: str) -> bool:
    return case_change_map(project.load_case(case_id)).possibly_scene_changed
