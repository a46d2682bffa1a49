"""CaseController: the Qt side of the open case's editor (``core.case_editor``).

The editor holds the case's state and operations; this adapter gives it what only Qt has —
signals for the widgets, a ``QUndoStack`` per case, the autosave timer, the workers that
check validity (``validity_checks``) and record repairs — and replaces the editor whenever
another case opens, so nothing of one case (its messages, its edits, its verdict) can show
on the next. Autosaves, and the save of a case the reviewer moves on from, are written on a
save thread (``review_saver``); a save that must be done before going on (Save Now, closing,
a repair landing) waits for those first. Widgets express intents (``set_decision``,
``add_box`` …); the editor turns each into an ``Edit``, pushed on the case's undo stack,
which applies it to the editor.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from PySide6.QtGui import QUndoGroup, QUndoStack

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Decision, RepairRecord
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import CaseReport
from sabre_desk.core.desk.case_editor import SAVE_DELAY_MS, Aspect, CaseEditor, SaveState
from sabre_desk.core.desk.case_edits import Edit
from sabre_desk.core.desk.review_save import ReviewSave
from sabre_desk.core.repair import repairs
from sabre_desk.core.repair.repairs import RepairStep
from sabre_desk.ground.errors import CaseLoadError, ProjectError
from sabre_desk.gui.desk.commands import EditCommand
from sabre_desk.gui.desk.landings import Landing, Landings
from sabre_desk.gui.desk.review_saver import ReviewSaver
from sabre_desk.gui.desk.validity_checks import ValidityChecks

__all__ = ["SAVE_DELAY_MS", "Aspect", "CaseController", "SaveState"]


class CaseController(QObject):
    case_loaded = Signal(object)  # Case
    case_failed = Signal(str, str)  # case id, message
    review_changed = Signal(object)  # Aspect
    entry_changed = Signal(str)  # case id whose index entry (decision) changed
    save_state_changed = Signal(object, str)  # SaveState, detail for the status bar
    conflict = Signal(str)  # the review changed on disk; a handler must call resolve_conflict
    job_failed = Signal(str)  # a message for the one error handler
    decision_made = Signal(object)  # the reviewer chose a decision (not an undo/redo)
    image_replaced = Signal(object)  # ImageRole of the open case whose file was replaced
    box_focus = Signal(object, int)  # ImageRole, index on that image: select this box now
    others_changed = Signal()  # the other reviewers' files of the open case were read again
    preview_landed = Signal(str, object, str)  # case id, RepairRecord (with its id), summary
    #: the open case's validity was checked (CaseReport); Keep waits on a valid verdict
    validity_changed = Signal(object)
    decision_refused = Signal(str)  # why the decision was not recorded
    messages_changed = Signal()  # the open case's messages (``editor.messages``) changed
    #: Ctrl+Z with nothing to undo here: the last change was made on this case (opened
    #: since, by auto-advance or the reviewer); the window goes there and undoes it
    undo_elsewhere = Signal(str)

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.editor: CaseEditor | None = None
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[str, QUndoStack] = {}
        #: the cases changed, the latest last (Ctrl+Z after auto-advance goes back there)
        self._changed_cases: list[str] = []
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self._save_in_background)
        self.saver = ReviewSaver(project, self._on_saved, self)
        #: editors of cases left whose save failed: tried again before closing, or before
        #: their case opens again
        self._unsaved: list[CaseEditor] = []
        self.landings = Landings(project, self)
        self.landings.recorded.connect(self._on_recorded)
        self.validity_checks = ValidityChecks(project, lambda: self.editor, self)
        self._validity = self.validity_checks.validity

    # --- state ---------------------------------------------------------------------------

    @property
    def case(self) -> Case | None:
        return self.editor.case if self.editor is not None else None

    @property
    def decode_verdicts(self) -> DecodeCache:
        """Which of the project's images decode: the window's own decodes add to it."""
        return self._validity.cache

    @property
    def validity(self) -> CaseReport | None:
        return self.editor.validity if self.editor is not None else None

    @property
    def checks(self) -> QThreadPool:
        """The thread the validity checks run on (to wait for them)."""
        return self.validity_checks.pool

    @property
    def check_after_paint(self) -> bool:
        """Set by a window that paints each case: its check then starts once the case's
        images are painted (``case_shown``), or after a short wait at the latest."""
        return self.validity_checks.after_paint

    @check_after_paint.setter
    def check_after_paint(self, value: bool) -> None:
        self.validity_checks.after_paint = value

    @property
    def editable(self) -> bool:
        return self.editor is not None and self.editor.editable

    def stack(self, case_id: str) -> QUndoStack:
        stack = self._stacks.get(case_id)
        if stack is None:
            stack = QUndoStack(self.undo_group)
            self._stacks[case_id] = stack
        return stack

    # --- loading -------------------------------------------------------------------------

    def load(self, case_id: str) -> bool:
        """Save the current case, then open *case_id* in a new editor. False when the
        current case could not be saved (the reviewer keeps it open and sees why) or
        *case_id* failed to load."""
        self._timer.stop()
        if self.editor is not None and self.editor.dirty:
            self.saver.submit(self.editor)  # written while the next case opens
        if not self._settle_saves_of(case_id):
            return False
        self.landings.settle(case_id)
        try:
            case = self.project.load_case(case_id)
        except CaseLoadError as exc:
            self._close_editor()
            self.undo_group.setActiveStack(None)  # type: ignore[arg-type]  # Qt takes None
            self.case_failed.emit(case_id, exc.message)
            return False
        self._open_editor(CaseEditor(self.project, case, self._validity.check))
        self.undo_group.setActiveStack(self.stack(case_id))
        if repairs.needs_recovery(case) and not self.project.read_only:
            try:
                for note in repairs.recover(self.project, case):
                    self.job_failed.emit(f"{case_id}: {note}")
            except ProjectError as exc:
                self.job_failed.emit(f"Could not finish an interrupted repair: {exc.message}")
        self._set_state(SaveState.READ_ONLY if self.project.read_only else SaveState.SAVED)
        self.case_loaded.emit(case)
        self.validity_checks.check(case_id)
        return True

    def case_shown(self, case_id: str) -> None:
        """The window has painted *case_id*'s images: its validity check may start."""
        self.validity_checks.case_shown(case_id)

    def _open_editor(self, editor: CaseEditor) -> None:
        self._close_editor()
        self.editor = editor
        editor.before_write = self.saver.wait
        editor.changed.connect(self.review_changed.emit)
        editor.entry_changed.connect(self.entry_changed.emit)
        editor.box_focus.connect(self.box_focus.emit)
        editor.image_replaced.connect(self.image_replaced.emit)
        editor.save_state.connect(
            lambda state, detail: (
                self._on_save_state(state, detail) if editor is self.editor else None
            )
        )
        editor.conflict.connect(
            lambda message: (
                self.conflict.emit(message)
                if editor is self.editor
                else self.job_failed.emit(f"Not saved: {message}")
            )
        )
        editor.failed.connect(self.job_failed.emit)
        editor.refused.connect(self.decision_refused.emit)
        editor.decided.connect(self.decision_made.emit)
        editor.autosave_due.connect(self._timer.start)
        editor.validity_changed.connect(self._on_validity_changed)
        editor.messages_changed.connect(self.messages_changed.emit)
        self.messages_changed.emit()

    def _close_editor(self) -> None:
        """The editor of the case left: nothing of it reaches the window any more."""
        self._timer.stop()
        self.editor = None

    def _on_save_state(self, state: SaveState, detail: str) -> None:
        if state is not SaveState.PENDING:
            self._timer.stop()
        self._set_state(state, detail)

    # --- validity ------------------------------------------------------------------------

    def _on_validity_changed(self, report: CaseReport) -> None:
        """The open case's full check (`validate`'s rule) is its verdict in the index: the
        list's mark, reason and counts follow it, valid or not."""
        if self.project.record_verdict(report.verdict) is not None:
            self.entry_changed.emit(report.case_id)
        self.validity_changed.emit(report)

    def keep_refusal(self) -> str | None:
        return self.editor.keep_refusal() if self.editor is not None else None

    # --- messages of the open case ---------------------------------------------------------

    def say(self, text: str) -> None:
        """A message about the open case: shown while it is open, gone with it."""
        if self.editor is not None:
            self.editor.say(text)

    # --- intents (push undoable edits) ---------------------------------------------------

    def _push(self, edit: Edit | None) -> bool:
        editor = self.editor
        if editor is None or edit is None:
            return False
        case_id = editor.case_id
        self.stack(case_id).push(EditCommand(edit, self._editor_of(case_id)))
        if case_id in self._changed_cases:
            self._changed_cases.remove(case_id)
        self._changed_cases.append(case_id)
        return True

    def _editor_of(self, case_id: str) -> Callable[[], CaseEditor]:
        def editor() -> CaseEditor:
            assert self.editor is not None and self.editor.case_id == case_id, (
                "an edit ran on a case that is not open"
            )
            return self.editor

        return editor

    def undo(self) -> bool:
        """Ctrl+Z: the open case's last change; with none left here, the last change made
        on another case (left by auto-advance or by the reviewer) — the window opens it
        again (``undo_elsewhere``) and undoes it there."""
        editor = self.editor
        if editor is not None and self.stack(editor.case_id).canUndo():
            self.stack(editor.case_id).undo()
            return True
        for case_id in reversed(self._changed_cases):
            if (editor is None or case_id != editor.case_id) and self.stack(case_id).canUndo():
                self.undo_elsewhere.emit(case_id)
                return True
        return False

    def can_undo(self) -> bool:
        editor = self.editor
        if editor is not None and self.stack(editor.case_id).canUndo():
            return True
        return any(self.stack(c).canUndo() for c in self._changed_cases)

    def set_decision(self, decision: Decision | None) -> bool:
        """Decide the open case (see ``CaseEditor.decide``)."""
        return self.editor is not None and self._push(self.editor.decide(decision))

    def set_notes(self, text: str) -> bool:
        return self.editor is not None and self._push(self.editor.write_notes(text))

    def _push_if_editable(self, propose: Callable[[CaseEditor], Edit | None]) -> bool:
        editor = self.editor
        if editor is None:
            return False
        if self.project.read_only:
            self.job_failed.emit("This project is open read-only: changes cannot be saved.")
            return False
        return self._push(propose(editor))

    def add_box(self, role: ImageRole, box: tuple[float, float, float, float], label: str) -> bool:
        return self._push_if_editable(lambda e: e.add_box(role, box, label))

    def change_box(
        self,
        role: ImageRole,
        index: int,
        box: tuple[float, float, float, float],
        nudge: bool = False,
    ) -> bool:
        """Move or resize a box (a mouse drag, or with *nudge* an arrow key)."""
        return self._push_if_editable(lambda e: e.change_box(role, index, box, nudge))

    def relabel_box(self, role: ImageRole, index: int, label: str) -> bool:
        return self._push_if_editable(lambda e: e.relabel_box(role, index, label))

    def remove_box(self, role: ImageRole, index: int) -> bool:
        return self._push_if_editable(lambda e: e.remove_box(role, index))

    def mirror_box(self, role: ImageRole, index: int) -> bool:
        """Copy a box to the other image of a paired case (Base ↔ Edited)."""
        return self._push_if_editable(lambda e: e.mirror_box(role, index))

    def edit_question(
        self, probe_id: str, prompt: str | None = None, answer: str | None = None
    ) -> str | None:
        """Change a probe's question or answer; returns why it was refused, or None."""
        if self.editor is None:
            return "no case is open"
        proposed = self.editor.edit_question(probe_id, prompt=prompt, answer=answer)
        if isinstance(proposed, str):
            return proposed
        if proposed is not None:
            self._push_if_editable(lambda _e: proposed)
        return None

    def set_checklist(self, key: str, ticked: bool) -> bool:
        return self._push_if_editable(lambda e: e.tick(key, ticked))

    # --- repairs -------------------------------------------------------------------------

    def land_preview(self, case_id: str, record: RepairRecord, summary: str) -> None:
        """Record a finished repair preview: at once in the open case, in the background in
        one the reviewer left (its review is written there). ``preview_landed`` follows."""
        case = self.case
        if case is None or case.case_id != case_id:
            if not self._settle_saves_of(case_id):  # the landing reads its review from disk
                self._not_recorded(case_id, "its review could not be saved")
                return
            self.landings.submit(case_id, record, summary)
            return
        try:
            if not self.save_now():
                self._not_recorded(case_id, "the review could not be saved")
                return
            repairs.add_preview(self.project, case, record)
        except ProjectError as exc:
            self._not_recorded(case_id, exc.message)
            return
        self.review_changed.emit(Aspect.REPAIRS)
        self._landed(case, record, summary)

    def _on_recorded(self, landing: Landing) -> None:
        if landing.case is None:
            self._not_recorded(landing.case_id, landing.error or "unknown error")
        else:
            self._landed(landing.case, landing.record, landing.summary)

    def _landed(self, case: Case, record: RepairRecord, summary: str) -> None:
        self.project.update_entry(case)
        self.entry_changed.emit(case.case_id)
        self.preview_landed.emit(case.case_id, record, summary)

    def _not_recorded(self, case_id: str, reason: str) -> None:
        self.job_failed.emit(f"Repair of {case_id} kept in repairs/ but not recorded: {reason}")

    def accept_repair(self, repair_id: str) -> bool:
        return self._push_if_editable(lambda e: e.repair_step(RepairStep.ACCEPT, repair_id))

    def revert_repair(self, repair_id: str) -> bool:
        return self._push_if_editable(lambda e: e.repair_step(RepairStep.REVERT, repair_id))

    def discard_repair(self, repair_id: str) -> bool:
        return self._push_if_editable(lambda e: e.repair_step(RepairStep.DISCARD, repair_id))

    def take_repair_step(self, step: RepairStep, repair_id: str) -> bool:
        """A repair step on the open case at once, outside the undo history (tests, the
        headless paths)."""
        return self.editor is not None and self.editor.take_repair_step(step, repair_id)

    # --- what others changed on disk -----------------------------------------------------

    def decision_stale(self) -> bool:
        return self.editor is not None and self.editor.decision_stale()

    def refresh_others(self) -> None:
        """The other reviewers' files changed on disk: read them again."""
        if self.editor is not None:
            self.editor.refresh_others()
            self.others_changed.emit()

    def refresh_images(self) -> None:
        """The open case's images were replaced on disk: find them again and show them."""
        if self.editor is not None:
            self.editor.refresh_images()

    # --- saving --------------------------------------------------------------------------

    def save_now(self, force: bool = False) -> bool:
        """Write the review (and its history events) now, after every save on its way.
        True when nothing of the open case is left unsaved."""
        self._timer.stop()
        self.saver.wait()
        return self.editor is None or self.editor.save(force=force)

    def flush(self) -> bool:
        """Everything on disk: the open case's changes, the saves on their way and those
        of cases left that failed (False if any could not be saved), and the repairs still
        being recorded in other cases."""
        saved = self.save_now()
        self._unsaved = [editor for editor in self._unsaved if not editor.save()]
        self.landings.settle()
        return saved and not self._unsaved

    def _save_in_background(self) -> None:
        if self.editor is not None:
            self.saver.submit(self.editor)

    def _on_saved(self, editor: CaseEditor, job: ReviewSave, saved: bool) -> None:
        """A save was acknowledged (its editor has taken note and said so)."""
        if saved or not editor.dirty:
            return
        if job.error is None:  # changed while it was written: the rest is saved next
            if editor is self.editor:
                self._timer.start()
            else:
                self.saver.submit(editor)
        elif editor is not self.editor and editor not in self._unsaved:
            self._unsaved.append(editor)  # its message named the file; tried again later

    def _settle_saves_of(self, case_id: str) -> bool:
        """Before *case_id* is read from disk: its saves on their way have landed, and an
        earlier failed one is tried again (False, with its message, if it fails again)."""
        if any(job.case.case_id == case_id for job in self.saver.jobs):
            self.saver.wait()
        for editor in [e for e in self._unsaved if e.case_id == case_id]:
            if not editor.save():
                return False
            self._unsaved.remove(editor)
        return True

    def resolve_conflict(self, keep_mine: bool) -> None:
        """After a conflict: overwrite the file with this window's review, or reload it."""
        editor = self.editor
        if editor is None:
            return
        if keep_mine:
            self.save_now(force=True)
            return
        case_id = editor.case_id
        editor.discard_unsaved()
        self.stack(case_id).clear()  # the undo history described the discarded version
        self._close_editor()
        if self.load(case_id) and self.case is not None:
            self.project.update_entry(self.case)
        self.entry_changed.emit(case_id)

    def _set_state(self, state: SaveState, detail: str = "") -> None:
        self.save_state_changed.emit(state, detail)
