"""The team in the window: blind review, the others' work on the open case, live updates,
the adjudicator's queue and the Team dialog.

It reads the open case through the session's controller and shows the team's view of it
(``core.team``) in the case panel's team section and as coloured boxes on the canvases;
what other windows write comes in through ``LiveUpdates``. Image hashes are read on a
worker, never on the window's thread: until they are known, staleness shows as it was.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject, QThreadPool
from PySide6.QtGui import QAction, QColor, QKeySequence
from PySide6.QtWidgets import QWidget

from sabre_desk.core.case.binding import Hashes, image_hashes
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Box, Review
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.workbench import ViewMode, Workbench
from sabre_desk.core.team.live import CaseChanges
from sabre_desk.core.team.ratings import adjudicator_rule
from sabre_desk.core.team.team import CaseTeam, case_team, in_queue, queue
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import Aspect, CaseController
from sabre_desk.gui.desk.session import SelectCase, Session
from sabre_desk.gui.machinery.workers import Worker, screen_pool
from sabre_desk.gui.team.live_ui import LiveUpdates
from sabre_desk.gui.team.team_boxes import OtherBoxes, TeamColors
from sabre_desk.gui.team.team_dialog import TeamDialog
from sabre_desk.gui.team.team_section import TeamSection

#: After every image decode waiting in the pool (its priorities are the decoders' own).
HASH_PRIORITY = -1
#: Changes to one's own review that change what the team section shows.
SHOWN_ASPECTS = (Aspect.DECISION, Aspect.NOTES, Aspect.BOXES, Aspect.QUESTION_EDITS, Aspect.ALL)


def _hashes(case: Case) -> tuple[str, Hashes]:
    return case.case_id, image_hashes(case.images) or {}


class TeamUi(QObject):
    def __init__(
        self,
        session: Session,
        compare: CompareView,
        workbench: Workbench,
        select_case: SelectCase,
        decoders: QThreadPool,
        parent: QWidget,
    ):
        super().__init__(parent)
        self.session, self.compare, self.workbench, self.select_case = (
            session,
            compare,
            workbench,
            select_case,
        )
        self.parent_widget = parent
        #: the open case's images are hashed where they are decoded: a pool that leaves the
        #: window a core of its own (a thread of the team's would take it back)
        self.decoders = decoders
        self.pool = QThreadPool(self)  # the adjudicator's queue, cases changed elsewhere
        self.pool.setMaxThreadCount(1)
        # the Team dialog's figures, which take longer, and the user waits for them
        self.summary_pool = screen_pool(self, 1)
        self.section = TeamSection()
        self.layers = {role: OtherBoxes(canvas) for role, canvas in compare.canvases.items()}
        self.colors = TeamColors()
        self.team: CaseTeam | None = None
        self.dialog: TeamDialog | None = None
        self._hashing: tuple[str, Worker] | None = None  # a case whose images are hashed
        self.live = LiveUpdates(workbench.pace, self)
        self.live.case_changed.connect(self._on_case_changed)
        self.live.cases_changed.connect(self._on_cases_changed)
        self.dialog_action = self._action("&Team…", "Ctrl+Shift+T", self.show_dialog)
        self.next_action = self._action(
            "Next &Disagreement to Settle", "Ctrl+Shift+D", self.next_disagreement
        )
        self.reload_action = self._action("&Reload the Team's Reviews", "F5", self.reload)
        session.opened.connect(self._on_opened)
        workbench.mode_changed.connect(lambda _mode: self.refresh())
        compare.settled.connect(self._on_settled)

    def _action(self, text: str, key: str, slot: object) -> QAction:
        action = QAction(text, self.parent_widget)
        action.setShortcut(QKeySequence(key))
        action.triggered.connect(slot)
        return action

    # --- a project, a case ---------------------------------------------------------------------

    def _on_opened(self, controller: CaseController) -> None:
        project = controller.project
        assigned = project.assignments.reviewers if project.assignments else []
        self.colors = TeamColors([*project.manifest.reviewers, *assigned])
        controller.case_loaded.connect(self._on_case_loaded)
        controller.case_failed.connect(lambda _id, _message: self.live.follow_case(None))
        controller.review_changed.connect(
            lambda aspect: self.refresh() if aspect in SHOWN_ASPECTS else None
        )
        controller.others_changed.connect(self.refresh)
        controller.validity_changed.connect(lambda _report: self.refresh())  # why stale
        self.live.follow_project(project)
        if self.dialog is not None:
            self.dialog.close()
            self.dialog = None
        for warning in project.warnings:
            self.session.say(warning.message, 15000)

    def project_indexed(self, project: Project) -> None:
        """The index is whole: an adjudicator's queue is found (on the worker)."""
        if project.is_adjudicator:
            ids = [e.case_id for e in project.entries if e.problem is None]
            self._mark_queue(project, ids)
        self.live.poll_project()  # the first look takes note of every case

    def _on_case_loaded(self, case: Case) -> None:
        self.live.follow_case(case.folder)
        self.refresh()
        job = self._hashing
        if job is not None and job[0] != case.case_id and job[1].withdraw():
            self._hashing = None  # a case already left: its images need not be read now

    def _on_settled(self) -> None:
        """The case's images have been on screen a moment: only now are they hashed (a
        reviewer flipping through cases does not wait for it, nor share the cores with it)."""
        case = self.session.case
        if case is None or (self._hashing is not None and self._hashing[0] == case.case_id):
            return
        if image_hashes(case.images, compute=False) is None:
            worker = Worker(_hashes, case)  # the images are read once, on the worker
            worker.returned.connect(self._on_hashed)
            worker.finished.connect(lambda w=worker: self._hashed(w))
            self._hashing = (case.case_id, worker)
            worker.start(self.decoders, HASH_PRIORITY)
        else:
            # Hashed already where they were decoded (a replaced image, shown again): the
            # index and its counts learn now what the case panel knows.
            self._index_follows(case.case_id)

    def _hashed(self, worker: Worker) -> None:
        if self._hashing is not None and self._hashing[1] is worker:
            self._hashing = None

    def _on_hashed(self, result: tuple[str, Hashes]) -> None:
        self._index_follows(result[0])

    def _index_follows(self, case_id: str) -> None:
        """The open case's entry (a decision made on images since replaced, the counts)
        brought up to date with the image hashes now known."""
        case = self.session.case
        if case is None or case.case_id != case_id:
            return  # the reviewer moved on; the hashes are remembered for later
        controller = self.session.controller
        if controller is not None:
            controller.project.update_entry(case)
            entry = controller.project.entry(case.case_id)
            if entry is not None:
                self.workbench.update_entry(entry)
        self.refresh()

    # --- what the reviewer sees ---------------------------------------------------------------

    def refresh(self) -> None:
        controller = self.session.controller
        case = self.session.case
        if controller is None or case is None:
            self.team = None
            self.section.hide()
            self._show_boxes({})
            return
        hashes = image_hashes(case.images, compute=False)
        self.team = case_team(controller.project, case, hashes, controller.validity)
        self.section.show_team(case.review, self.team, self.colors)
        reviewing = self.workbench.mode is ViewMode.REVIEWING
        self._show_boxes(self.team.others if reviewing else {})
        if controller.project.is_adjudicator and hashes is not None:
            waiting = in_queue(controller.project, case, hashes)
            self._set_disputed(controller.project, case.case_id, waiting)

    def _show_boxes(self, others: dict[str, Review]) -> None:
        wanted: dict[ImageRole, list[tuple[str, QColor, Box]]] = {role: [] for role in self.layers}
        for name in sorted(others):
            for box in others[name].boxes:
                if box.image_role in wanted:
                    wanted[box.image_role].append((name, self.colors.of(name), box))
        for role, layer in self.layers.items():
            layer.show(wanted[role])

    def _set_disputed(self, project: Project, case_id: str, disputed: bool) -> None:
        entry = project.entry(case_id)
        if entry is not None and entry.disputed != disputed:
            entry = replace(entry, disputed=disputed)
            project.replace_entry(entry)
            self.workbench.update_entry(entry)

    # --- what others wrote -----------------------------------------------------------------

    def _on_case_changed(self, changes: CaseChanges) -> None:
        controller = self.session.controller
        if controller is None or controller.case is None:
            return
        if changes.reviewers - {controller.project.reviewer}:
            controller.refresh_others()
        if changes.images:
            controller.refresh_images()  # the canvases show the new images; notes are kept

    def _on_cases_changed(self, case_ids: list[str]) -> None:
        project = self.session.project
        if project is None:
            return
        current = self.session.case.case_id if self.session.case is not None else None
        others = [c for c in case_ids if c != current]
        worker = Worker(lambda: [e for c in others if (e := project.fresh_entry(c))])
        worker.returned.connect(lambda entries: self._apply_entries(project, entries))
        worker.start(self.pool)
        if project.is_adjudicator:
            self._mark_queue(project, others, exact=True)  # a few cases: hashed

    def _apply_entries(self, project: Project, entries: list) -> None:
        if project is not self.session.project:
            return
        for entry in entries:
            project.replace_entry(entry)
            self.workbench.update_entry(entry)

    def _mark_queue(self, project: Project, case_ids: list[str], exact: bool = False) -> None:
        worker = Worker(queue, project, case_ids, exact, self.workbench.pace.wait_until_still)
        worker.returned.connect(lambda flags: self._apply_queue(project, flags))
        worker.start(self.pool)

    def _apply_queue(self, project: Project, flags: dict[str, bool]) -> None:
        if project is self.session.project:
            for case_id, disputed in flags.items():
                self._set_disputed(project, case_id, disputed)

    def reload(self) -> None:
        """F5: read the others' work on the open case and the changed cases now."""
        controller = self.session.controller
        if controller is not None and controller.case is not None:
            controller.refresh_others()
            controller.refresh_images()
        self.live.poll_project()
        self.session.say("The team's reviews were read again.", 4000)

    # --- the queue and the dialog ----------------------------------------------------------

    def next_disagreement(self) -> None:
        """Go to the next case in this adjudicator's queue (in the project's order)."""
        entries = self.workbench.entries
        if not entries:
            self.session.say("The project has no cases yet.", 5000)
            return
        current = self.workbench.current
        start = next((i for i, e in enumerate(entries) if e.case_id == current), -1)
        for step in range(1, len(entries) + 1):
            entry = entries[(start + step) % len(entries)]
            if entry.disputed and entry.case_id != current:
                self.select_case(entry.case_id)
                return
        project = self.session.project
        if project is None or project.is_adjudicator:
            self.session.say("No disagreement waits to be settled.", 5000)
        else:
            rule = adjudicator_rule(project.manifest.adjudicators)
            self.session.say(f"No disagreement for you to settle: {rule}.", 5000)

    def show_dialog(self) -> TeamDialog | None:
        project = self.session.project
        if project is None:
            self.session.say("Open a project first.", 5000)
            return None
        if self.session.controller is not None:
            self.session.controller.flush()
        if self.dialog is None:
            self.dialog = TeamDialog(
                project, self.summary_pool, self.select_case, self.parent_widget
            )
        else:
            self.dialog.refresh()
        self.dialog.show()
        self.dialog.raise_()
        return self.dialog

    @property
    def pools(self) -> list[QThreadPool]:
        return [self.pool, self.summary_pool, self.live.pool]

    def shutdown(self) -> None:
        self.live.shutdown()
        for pool in self.pools:
            pool.waitForDone(5000)
