"""The repair tools: the repair dock, the job pool, and the preview comparison.

While a repair is selected in the panel, the workbench is in repair-comparison mode and the
two canvases show the current image and the preview side by side (zoom and pan in step);
choosing nothing returns to reviewing. The window shows what this asks for
(``show_files_requested``, ``redisplay_requested``); this holds no window.

A repair that lands on the open case is shown at once, unless the reviewer has already gone
back to the case from a preview of the same box: a slow engine's better result, landing
after its quick preview was looked at and left, waits in the panel's list (the status bar
says so) rather than pulling the reviewer back into a comparison they left.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QWidget

from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import Box, RepairRecord
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.repair_landing import Landing, RepairLandings
from sabre_desk.core.desk.view_state import Comparison
from sabre_desk.core.desk.workbench import ViewMode, Workbench
from sabre_desk.core.repair import comparison, repairs
from sabre_desk.ground.errors import RepairError
from sabre_desk.gui.desk.canvas.compare_view import CAPTIONS, CompareView
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.machinery.process_jobs import ProcessJobs
from sabre_desk.gui.repair.repair_jobs import RepairJob, RepairJobs
from sabre_desk.gui.repair.repair_panel import RepairPanel
from sabre_desk.settings import Settings

LEFT, RIGHT = ImageRole.BASE, ImageRole.EDITED  # the two canvases used for a comparison


class RepairUi(QObject):
    show_files_requested = Signal(object, object)  # {role: path or None}, [Box] to draw
    redisplay_requested = Signal()  # show the open case's own images again
    #: a comparison left: select this box (case id, image role, where) once shown again
    box_reselect_requested = Signal(str, object, object)

    def __init__(
        self,
        session: Session,
        compare: CompareView,
        workbench: Workbench,
        settings: Settings,
        processes: ProcessJobs,
        parent: QWidget,
    ):
        super().__init__(parent)
        self.session, self.compare, self.workbench, self.settings = (
            session,
            compare,
            workbench,
            settings,
        )
        self.jobs = RepairJobs(settings.pool_size, processes, self)
        self.jobs.landed.connect(self._on_landed)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(
            lambda job: session.say(f"Repair of {job.case_id} cancelled", 5000)
        )
        self.jobs.started.connect(self._on_started)
        self.dock = QDockWidget("Repair", parent)
        self.dock.setObjectName("dock_repair")
        self.panel: RepairPanel | None = None
        self.previewing: RepairRecord | None = None
        self._previewing_case = ""  # the case of the repair previewed (the reviewer may be
        # on another case by the time the comparison ends)
        self._zoom_box: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0)
        self._zoom_in = False  # another repair shown: zoom in on its box once painted
        #: which landed repair opens the comparison (core/desk: the rule has no Qt in it)
        self.landings = RepairLandings()
        self.run_action = QAction("&Repair the Selected Box", parent)
        self.run_action.setShortcut(QKeySequence("Ctrl+R"))
        self.run_action.triggered.connect(self.run)
        self.accept_action = QAction("&Accept the Repair Shown", parent)
        self.accept_action.setShortcut(QKeySequence("Ctrl+Return"))
        self.accept_action.triggered.connect(self.accept)
        for role, canvas in compare.canvases.items():
            canvas.box_selected.connect(lambda i, r=role: self._on_box_selected(r, i))
        session.opened.connect(self.attach)
        workbench.mode_changed.connect(self._on_mode_changed)

    def attach(self, controller: CaseController) -> None:
        self.jobs.shutdown()
        self.panel = RepairPanel(controller, self.jobs, self.settings, self.selected_box)
        self.panel.preview_selected.connect(self.show_preview)
        self.dock.setWidget(self.panel)
        controller.image_replaced.connect(self._on_image_replaced)
        controller.review_changed.connect(self._on_review_changed)
        controller.preview_landed.connect(self._on_preview_landed)

    def _on_box_selected(self, role: ImageRole, index: int) -> None:
        """The box selected (or just drawn) is the one a repair repairs, on its image."""
        if self.panel is None:
            return
        if index >= 0 and self.previewing is None:
            self.panel.choose_role(role)
        self.panel.refresh()

    def selected_box(self, role: ImageRole) -> tuple[float, float, float, float] | None:
        controller = self.session.controller
        if controller is None or controller.case is None or self.previewing is not None:
            return None
        index = self.compare.canvases[role].selected_box
        boxes = controller.case.review.boxes_on(role)
        return boxes[index].box if 0 <= index < len(boxes) else None

    def run(self) -> None:
        """Ctrl+R: repair the selected box; in a repair comparison, where no box can be
        selected, the shown result's box again, as Repair again does (the patch-based
        engine's next fill of it)."""
        if self.panel is not None:
            self.dock.raise_()
            if self.previewing is not None and self.panel.again.isEnabled():
                self.panel.again.click()
            elif not self.panel.run_repair():  # why, where the reviewer is looking
                self.session.say_here(f"Not repaired: {self.panel.problem}", 6000)

    def accept(self) -> None:
        """Ctrl+Return: accept the repair shown beside the image, as its button does."""
        if self.panel is not None and self.previewing is not None and self.panel.accept.isEnabled():
            self.panel.accept.click()
        else:
            self.session.say_here("No repair preview to accept is shown", 4000)

    # --- jobs ---------------------------------------------------------------------------------

    def _on_landed(self, job: RepairJob, record: RepairRecord, summary: str) -> None:
        if self.session.controller is not None:
            self.session.controller.land_preview(job.case_id, record, summary)

    def _on_started(self, job: RepairJob) -> None:
        """A new repair on a case: its results are shown when they land, whatever was left."""
        self.landings.started(job.case_id)

    def _on_preview_landed(self, case_id: str, record: RepairRecord, summary: str) -> None:
        case = self.session.case
        landing = self.landings.landing(case_id, record, case.case_id if case else None)
        if self.panel is None:
            landing = Landing.ELSEWHERE
        hint = (
            "; choose it in the Repair panel's list to compare" if landing is Landing.LIST else ""
        )
        self.session.say(f"Repair {record.id} of {case_id} is ready: {summary}{hint}", 10000)
        if landing is not Landing.ELSEWHERE and self.panel is not None:
            self.dock.raise_()
            if landing is Landing.SHOW and case is not None:
                # the best result of the box so far, whatever order they arrived in: a
                # quick preview landing late never replaces the better result
                landed = next((r for r in case.review.repairs if r.id == record.id), record)
                self.panel.select_repair(comparison.to_show(case.review.repairs, landed).id)

    def _on_failed(self, job: RepairJob, message: str) -> None:
        self.session.say(f"Repair of {job.case_id} failed: {message}", 15000)
        case = self.session.case
        if self.panel is not None and case is not None and case.case_id == job.case_id:
            self.panel.status.setText(f"Failed: {message}")

    # --- preview comparison ------------------------------------------------------------------

    def show_preview(self, record: RepairRecord | None) -> None:
        case = self.session.case
        if record is None or case is None:
            self._leave_preview(redraw=True)
            return
        role = ImageRole(record.image_role)
        if self.panel is not None:
            # the tab names the image this repair is of (Repair again repairs its box
            # there): it said "Edited" over a comparison of a Base repair picked from the list
            self.panel.choose_role(role)
        # The same repair shown again (accepted, reverted, undone), or another of the same
        # box (a slow engine's result after its quick preview): the reviewer keeps the zoom
        # they were judging it at (the view state's); a repair of another box opens zoomed
        # in on its box. Leaving the comparison gives back the zoom the case had.
        shown = self.previewing
        self._zoom_in = not RepairLandings.same_box(shown, record)
        self.previewing, self._previewing_case = record, case.case_id
        self.workbench.set_mode(ViewMode.REPAIR_COMPARISON)
        self.compare.state.enter(Comparison.REPAIR)
        compare = self.compare
        compare.show_roles((LEFT, RIGHT))
        compare.captions[LEFT].setText(f"{role.value.capitalize()} (current)")
        compare.captions[RIGHT].setText(self._caption(case, record))
        current = case.images.get(role)
        try:
            preview: Path | None = repairs.stored_file(case, record.preview)
        except RepairError as exc:
            self.session.say(exc.message, 10_000)
            preview = None
        self._zoom_box = record.box
        compare.all_painted.connect(self._zoom_to_repair, Qt.ConnectionType.SingleShotConnection)
        self.show_files_requested.emit(
            {LEFT: current, RIGHT: preview},
            [Box(image_role=r, label="repair", box=record.box) for r in (LEFT, RIGHT)],
        )

    @staticmethod
    def _caption(case: Case, record: RepairRecord) -> str:
        """The preview's caption: which repair, by what, in what state now."""
        box = comparison.results_of(case.review.repairs, record)
        digest = comparison.image_digest(case.images.get(ImageRole(record.image_role)))
        label = comparison.caption_state(record, box, digest)
        return f"Repair {record.id} · {comparison.made_by(record)} · {label}"

    def _on_review_changed(self, aspect: Aspect) -> None:
        """The result compared changed state without its image changing (discarded,
        restored): its caption says so, as the list does. It went on saying "preview" over a
        result the list called "discarded"."""
        if aspect not in (Aspect.REPAIRS, Aspect.ALL):
            return
        case, shown = self.session.case, self.previewing
        if shown is None or case is None or case.case_id != self._previewing_case:
            return
        record = next((r for r in case.review.repairs if r.id == shown.id), None)
        if record is not None:
            self.compare.captions[RIGHT].setText(self._caption(case, record))

    def leave_comparison(self) -> bool:
        """Esc: out of the repair comparison whole (both views show the case's own images
        and boxes again, at the zoom the case had), as "Back to the case" does. False when
        no comparison was shown."""
        if self.previewing is None or self.panel is None:
            return False
        self.panel.previews.setCurrentRow(-1)
        return True

    def _zoom_to_repair(self) -> None:
        """Like DLEBench's crops: both sides zoomed in on the repaired region."""
        if self.previewing is not None and self._zoom_in:
            self._zoom_in = False
            self.compare.canvases[LEFT].zoom_to(self._zoom_box)

    def _leave_preview(self, redraw: bool = False) -> None:
        left, case_id = self.previewing, self._previewing_case
        if left is None:
            return
        self.workbench.set_mode(ViewMode.REVIEWING)
        if redraw and self.session.case is not None:
            # the box the comparison was about is selected again, as it was before it
            role = ImageRole(left.image_role)
            self.box_reselect_requested.emit(case_id, role, left.box)
            self.redisplay_requested.emit()

    def _on_mode_changed(self, mode: ViewMode) -> None:
        """Back to reviewing, for whatever reason (a case switch, a panel choice)."""
        if mode is ViewMode.REVIEWING and self.previewing is not None:
            self.landings.comparison_left(self._previewing_case, self.previewing)
            self.previewing = None
            self.compare.state.leave(Comparison.REPAIR)
            for role, caption in self.compare.captions.items():
                caption.setText(CAPTIONS[role])

    def _on_image_replaced(self, role: ImageRole) -> None:
        if self.previewing is not None and self.panel is not None:
            record = self.panel.selected_repair()
            self.show_preview(record)
        else:
            self.redisplay_requested.emit()
