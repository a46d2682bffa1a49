"""The window's repair wiring: the repair dock, the job pool, and the preview comparison.

While a repair is selected in the panel, the two canvases show the current image and the
preview side by side (zoom and pan in step); choosing nothing returns to the case.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget

from sabre_desk.core import repairs
from sabre_desk.core.review import Box, RepairRecord
from sabre_desk.core.spec import ImageRole
from sabre_desk.ground.errors import RepairError
from sabre_desk.gui.controller import CaseController
from sabre_desk.gui.repair_jobs import RepairJob, RepairJobs
from sabre_desk.gui.widgets.repair_panel import RepairPanel

if TYPE_CHECKING:
    from sabre_desk.gui.main_window import MainWindow

LEFT, RIGHT = ImageRole.BASE, ImageRole.EDITED  # the two canvases used for a comparison


class RepairUi(QObject):
    def __init__(self, window: MainWindow):
        super().__init__(window)
        self.w = window
        self.jobs = RepairJobs(window.settings.pool_size, self)
        self.jobs.landed.connect(self._on_landed)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(
            lambda job: window.statusBar().showMessage(f"Repair of {job.case_id} cancelled", 5000)
        )
        self.dock = QDockWidget("Repair", window)
        self.dock.setObjectName("dock_repair")
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        window.tabifyDockWidget(window.case_panel_dock, self.dock)
        window.case_panel_dock.raise_()
        self.panel: RepairPanel | None = None
        self.previewing: RepairRecord | None = None
        self._zoom_box: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
        self.run_action = QAction("&Repair the Selected Box", window)
        self.run_action.setShortcut(QKeySequence("Ctrl+R"))
        self.run_action.triggered.connect(self.run)
        for canvas in window.compare.canvases.values():
            canvas.box_selected.connect(lambda _i: self.panel and self.panel.refresh())

    def attach(self, controller: CaseController) -> None:
        self.jobs.shutdown()
        self.panel = RepairPanel(controller, self.jobs, self.w.settings, self.selected_box)
        self.panel.preview_selected.connect(self.show_preview)
        self.dock.setWidget(self.panel)
        controller.image_replaced.connect(self._on_image_replaced)
        controller.case_loaded.connect(lambda _case: self._leave_preview())

    def selected_box(self, role: ImageRole) -> tuple[float, float, float, float] | None:
        controller = self.w.controller
        if controller is None or controller.case is None or self.previewing is not None:
            return None
        index = self.w.compare.canvases[role].selected_box
        boxes = controller.case.review.boxes_on(role)
        return boxes[index].box if 0 <= index < len(boxes) else None

    def run(self) -> None:
        if self.panel is not None:
            self.dock.raise_()
            self.panel.run_repair()

    # --- jobs ---------------------------------------------------------------------------------

    def _on_landed(self, job: RepairJob, record: RepairRecord, outcome: object) -> None:
        controller = self.w.controller
        if controller is None or not controller.land_preview(job.case_id, record):
            return
        self.w.statusBar().showMessage(
            f"Repair {record.id} of {job.case_id} is ready: {outcome.summary()}", 10000
        )
        if controller.case is not None and controller.case.case_id == job.case_id and self.panel:
            self.dock.raise_()
            self.panel.select_repair(record.id)

    def _on_failed(self, job: RepairJob, message: str) -> None:
        self.w.statusBar().showMessage(f"Repair of {job.case_id} failed: {message}", 15000)
        if (
            self.panel is not None
            and self.w.controller
            and self.w.controller.case
            and (self.w.controller.case.case_id == job.case_id)
        ):
            self.panel.status.setText(f"Failed: {message}")

    # --- preview comparison ------------------------------------------------------------------

    def show_preview(self, record: RepairRecord | None) -> None:
        controller = self.w.controller
        if record is None or controller is None or controller.case is None:
            self._leave_preview(redraw=True)
            return
        case = controller.case
        role = ImageRole(record.image_role)
        self.previewing = record
        compare = self.w.compare
        compare.show_roles((LEFT, RIGHT))
        label = {"accepted": "now the image", "reverted": "reverted"}.get(record.status, "preview")
        compare.captions[LEFT].setText(f"{role.value.capitalize()} (current)")
        compare.captions[RIGHT].setText(f"Repair {record.id} · {record.engine} · {label}")
        current = case.images.get(role)
        try:
            preview: Path | None = repairs.stored_file(case, record.preview)
        except RepairError as exc:
            self.w.statusBar().showMessage(exc.message, 10_000)
            preview = None
        self._zoom_box = record.box
        self.w.compare.all_painted.connect(
            self._zoom_to_repair, Qt.ConnectionType.SingleShotConnection
        )
        self.w.show_files(
            {LEFT: current, RIGHT: preview},
            [Box(image_role=r, label="repair", box=record.box) for r in (LEFT, RIGHT)],
        )

    def _zoom_to_repair(self) -> None:
        """Like DLEBench's crops: both sides zoomed in on the repaired region."""
        if self.previewing is not None:
            self.w.compare.canvases[LEFT].zoom_to(self._zoom_box)

    def _leave_preview(self, redraw: bool = False) -> None:
        if self.previewing is None:
            return
        self.previewing = None
        for role, caption in self.w.compare.captions.items():
            caption.setText(
                {ImageRole.BASE: "Base", ImageRole.EDITED: "Edited", ImageRole.IMAGE: "Image"}[role]
            )
        controller = self.w.controller
        if redraw and controller is not None and controller.case is not None:
            self.w.redisplay_case()

    def _on_image_replaced(self, role: ImageRole) -> None:
        if self.previewing is not None and self.panel is not None:
            record = self.panel.selected_repair()
            self.show_preview(record)
        else:
            self.w.redisplay_case()
