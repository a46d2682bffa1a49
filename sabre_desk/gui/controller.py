"""CaseController: the one place that changes the open case.

Widgets express intents (``set_decision``, ``add_box`` …); the controller turns each into an
undo command on the case's own QUndoStack; the command calls back ``apply_*``, which changes
the review, queues a history event and schedules an autosave. Signals tell the widgets what
changed. Saving is atomic, happens shortly after every change, on case switch and on close,
and never silently overwrites a review that someone else changed on disk.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, QTimer, Signal
from PySide6.QtGui import QUndoGroup, QUndoStack

from sabre_desk.core import repairs
from sabre_desk.core.binding import bind, image_hashes, is_stale
from sabre_desk.core.boxes import mirrored
from sabre_desk.core.locks import holder
from sabre_desk.core.project import Case, Project
from sabre_desk.core.question_edits import make_edit
from sabre_desk.core.ratings import adjudicators_of
from sabre_desk.core.repairs import RepairStep
from sabre_desk.core.review import Box, Decision, QuestionEdit, RepairRecord, Review
from sabre_desk.core.spec import ImageRole
from sabre_desk.core.team import others_disputed
from sabre_desk.core.validity import ERROR, CaseReport, Validity
from sabre_desk.ground.errors import (
    CaseLoadError,
    ProjectError,
    ReadOnlyProjectError,
    ReviewConflictError,
    StorageError,
)
from sabre_desk.gui.commands import (
    BoxFocus,
    ChangeBoxes,
    EditQuestion,
    RepairAction,
    SetChecklist,
    SetDecision,
    SetNotes,
)
from sabre_desk.gui.landings import Landing, Landings
from sabre_desk.gui.workers import Worker
from sabre_desk.imaging.io import IMAGE_EXTENSIONS

SAVE_DELAY_MS = 200  # well inside the promise that every change is on disk within 0.5 s


class Aspect(StrEnum):
    """Which part of the review changed (``review_changed``); ALL: the whole of it."""

    DECISION = "decision"
    NOTES = "notes"
    BOXES = "boxes"
    QUESTION_EDITS = "question_edits"
    CHECKLIST = "checklist"
    REPAIRS = "repairs"
    ALL = "all"


class SaveState(StrEnum):
    SAVED = "saved"
    PENDING = "pending"
    ERROR = "error"
    CONFLICT = "conflict"
    READ_ONLY = "read-only"


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

    def __init__(self, project: Project, parent: QObject | None = None):
        super().__init__(parent)
        self.project = project
        self.case: Case | None = None
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[str, QUndoStack] = {}
        self._events: list[tuple[str, dict[str, Any]]] = []
        self._dirty = False
        #: a decision waits to be bound to its images (not yet hashed when it was made)
        self._unbound = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save_now)
        self.landings = Landings(project, self)
        self.landings.recorded.connect(self._on_recorded)
        #: the open case's verdict (``core.validity``; None: being checked)
        self.validity: CaseReport | None = None
        self._validity = Validity(project)
        self._validity_pool = QThreadPool(self)
        self._validity_pool.setMaxThreadCount(1)

    # --- state ---------------------------------------------------------------------------

    @property
    def editable(self) -> bool:
        return self.case is not None and not self.project.read_only

    def stack(self, case_id: str) -> QUndoStack:
        stack = self._stacks.get(case_id)
        if stack is None:
            stack = QUndoStack(self.undo_group)
            self._stacks[case_id] = stack
        return stack

    # --- loading -------------------------------------------------------------------------

    def load(self, case_id: str) -> bool:
        """Save the current case, then open *case_id*. False when the current case could
        not be saved (the reviewer keeps it open and sees why) or *case_id* failed to load."""
        if not self.save_now():
            return False
        self.landings.settle(case_id)
        try:
            case = self.project.load_case(case_id)
        except CaseLoadError as exc:
            self.case = None
            self.undo_group.setActiveStack(None)  # type: ignore[arg-type]  # Qt takes None
            self.case_failed.emit(case_id, exc.message)
            return False
        self.case = case
        self.undo_group.setActiveStack(self.stack(case_id))
        self._events.clear()
        self._unbound = False  # (a pending binding belonged to a version not kept)
        if repairs.needs_recovery(case) and not self.project.read_only:
            try:
                for note in repairs.recover(self.project, case):
                    self.job_failed.emit(f"{case_id}: {note}")
            except ProjectError as exc:
                self.job_failed.emit(f"Could not finish an interrupted repair: {exc.message}")
        self._set_state(SaveState.READ_ONLY if self.project.read_only else SaveState.SAVED)
        self.case_loaded.emit(case)
        self._check_validity(case_id)
        return True

    # --- validity ------------------------------------------------------------------------

    def _check_validity(self, case_id: str) -> None:
        """Decode the case's images on a worker (once per file: the verdict is cached) and
        keep the verdict; until it lands, Keep is checked on the spot."""
        self.validity = None
        worker = Worker(self._validity.check, case_id)
        worker.returned.connect(self._on_validity)
        worker.start(self._validity_pool)

    def _on_validity(self, report: CaseReport) -> None:
        if self.case is None or report.case_id != self.case.case_id:
            return  # another case is open now
        report.case = None  # the open case is self.case; the copy is not kept
        self.validity = report
        if not report.valid:
            for problem in report.problems:
                path = Path(problem.file)
                if problem.severity == ERROR and path.suffix.lower() in IMAGE_EXTENSIONS:
                    if self.project.mark_invalid(report.case_id, problem.reason, path):
                        self.entry_changed.emit(report.case_id)
                    break
        self.validity_changed.emit(report)

    def keep_refusal(self) -> str | None:
        """Why Keep cannot be recorded on the open case (None: it can): a release never
        ships a case that `validate` calls invalid."""
        if self.case is None:
            return None
        if self.validity is None:  # decided before the check landed: check it now
            report = self._validity.check(self.case.case_id)
            self._on_validity(report)
        if self.validity is None or self.validity.valid:
            return None
        return f"Keep is not possible: this case is invalid ({self.validity.reason})"

    # --- intents (push undoable commands) ------------------------------------------------

    def _push(self, command: Any) -> bool:
        if self.case is None:
            return False
        if self.project.read_only:
            self.job_failed.emit("This project is open read-only: changes cannot be saved.")
            return False
        self.stack(self.case.case_id).push(command)
        return True

    def set_decision(self, decision: Decision | None) -> bool:
        """Decide the open case; the same decision again is taken when the one on record
        was made on images since replaced (it binds the decision to the images now)."""
        if self.case is None:
            return False
        if self.case.review.decision == decision and not self.decision_stale():
            return False
        if decision is not None and decision.needs_pair and len(self.case.spec.image_roles) < 2:
            self.job_failed.emit(
                f"“{decision.label}” is for Base/Edited pairs; this case has one image"
            )
            return False
        if decision is Decision.KEEP:
            refusal = self.keep_refusal()
            if refusal is not None:
                self.decision_refused.emit(refusal)
                return False
        if not self._push(SetDecision(self, self.case.review.decision, decision)):
            return False
        self.decision_made.emit(decision)
        return True

    def set_notes(self, text: str) -> bool:
        if self.case is None or self.case.review.notes == text:
            return False
        return self._push(SetNotes(self, self.case.review.notes, text))

    def add_box(self, role: ImageRole, box: tuple[float, float, float, float], label: str) -> bool:
        if self.case is None:
            return False
        new = Box(image_role=role, label=label, box=box)
        before = self.case.review.boxes
        detail = {"action": "add", "image_role": role.value, "label": label, "box": list(box)}
        focus = (role, len(self._review().boxes_on(role)))
        return self._push(
            ChangeBoxes(self, before, [*before, new], f"Draw {label} box", detail, focus)
        )

    def _role_index(self, role: ImageRole, index: int) -> int:
        """Position in review.boxes of the *index*-th box on image *role*."""
        positions = [i for i, b in enumerate(self._review().boxes) if b.image_role is role]
        return positions[index]

    def _update_box(
        self,
        role: ImageRole,
        index: int,
        changes: dict[str, Any] | None,
        text: str,
        detail: dict[str, Any],
    ) -> bool:
        """Push one change of the *index*-th box on *role*: *changes* to its fields, or
        None to delete it. *detail* goes to the history, with the role added."""
        if self.case is None:
            return False
        before = self.case.review.boxes
        pos = self._role_index(role, index)
        after = list(before)
        if changes is None:
            del after[pos]
        else:
            after[pos] = before[pos].model_copy(update=changes)
        detail = {"image_role": role.value, **detail}
        focus = (role, index)
        after_focus = (role, -1) if changes is None else focus  # nothing selected after a delete
        return self._push(ChangeBoxes(self, before, after, text, detail, after_focus, focus))

    def change_box(
        self,
        role: ImageRole,
        index: int,
        box: tuple[float, float, float, float],
        nudge: bool = False,
    ) -> bool:
        """Move or resize a box (a mouse drag, or with *nudge* an arrow key)."""
        old = self._box(role, index)
        return old is not None and self._update_box(
            role,
            index,
            {"box": box},
            "Move box",
            {
                "action": "nudge" if nudge else "change",
                "index": index,
                "box": list(box),
                "from": list(old.box),
            },
        )

    def relabel_box(self, role: ImageRole, index: int, label: str) -> bool:
        old = self._box(role, index)
        return old is not None and self._update_box(
            role,
            index,
            {"label": label},
            f"Label box {label}",
            {"action": "relabel", "label": label, "from": old.label},
        )

    def remove_box(self, role: ImageRole, index: int) -> bool:
        old = self._box(role, index)
        return old is not None and self._update_box(
            role, index, None, "Delete box", {"action": "remove", "box": list(old.box)}
        )

    def _box(self, role: ImageRole, index: int) -> Box | None:
        if self.case is None:
            return None
        return self.case.review.boxes[self._role_index(role, index)]

    def mirror_box(self, role: ImageRole, index: int) -> bool:
        """Copy a box to the other image of a paired case (Base ↔ Edited)."""
        if self.case is None or len(self.case.spec.image_roles) < 2:
            return False
        target = ImageRole.EDITED if role is ImageRole.BASE else ImageRole.BASE
        before = self.case.review.boxes
        copy = mirrored(before[self._role_index(role, index)], target)
        detail = {"action": "mirror", "image_role": target.value, "box": list(copy.box)}
        focus = (target, len(self._review().boxes_on(target)))
        text = f"Mirror box to {target.value}"
        return self._push(ChangeBoxes(self, before, [*before, copy], text, detail, focus))

    def edit_question(
        self, probe_id: str, prompt: str | None = None, answer: str | None = None
    ) -> str | None:
        """Change a probe's question or answer; returns why it was refused, or None."""
        if self.case is None:
            return "no case is open"
        question = self.case.spec.question(probe_id)
        if question is None:
            return f"no probe {probe_id!r}"
        current = self.case.review.question_edits.get(probe_id)
        try:
            new = make_edit(question, current, prompt=prompt, answer=answer)
        except ValueError as exc:
            return f"{probe_id}: {exc}"
        if new == current:
            return None
        what = "answer" if answer is not None else "question"
        self._push(EditQuestion(self, probe_id, current, new, f"Edit {what} of {probe_id}"))
        return None

    def set_checklist(self, key: str, ticked: bool) -> bool:
        if self.case is None:
            return False
        before = self.case.review.checklist.get(key, False)
        if before == ticked:
            return False
        return self._push(SetChecklist(self, key, before, ticked))

    # --- repairs -------------------------------------------------------------------------

    def land_preview(self, case_id: str, record: RepairRecord, summary: str) -> None:
        """Record a finished repair preview: at once in the open case, in the background in
        one the reviewer left (its review is written there). ``preview_landed`` follows."""
        case = self.case
        if case is None or case.case_id != case_id:
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
        step = RepairStep.ACCEPT
        return self._push(RepairAction(self, step, repair_id, f"Accept repair {repair_id}"))

    def revert_repair(self, repair_id: str) -> bool:
        step = RepairStep.REVERT
        return self._push(RepairAction(self, step, repair_id, f"Revert repair {repair_id}"))

    def discard_repair(self, repair_id: str) -> bool:
        step = RepairStep.DISCARD
        return self._push(RepairAction(self, step, repair_id, f"Discard repair {repair_id}"))

    def take_repair_step(self, step: RepairStep, repair_id: str) -> bool:
        """Called by RepairAction (and its undo): the step on disk, then the news."""
        case = self.case
        if case is None or not self.save_now():
            return False
        owner = holder(case.folder) if step in (RepairStep.ACCEPT, RepairStep.REVERT) else None
        if owner is not None:  # said at once, rather than after waiting for the lock
            self.job_failed.emit(
                f"{step.value.capitalize()} not done: {owner.describe()} holds the lock on "
                "this case's images (the Repair panel can break a stale lock)"
            )
            return False
        try:
            record = repairs.take_step(self.project, case, step, repair_id)
        except ProjectError as exc:
            self.job_failed.emit(f"{step.value.capitalize()} failed: {exc.message}")
            return False
        self.project.update_entry(case)
        self.review_changed.emit(Aspect.ALL)
        self.entry_changed.emit(case.case_id)
        if step in (RepairStep.ACCEPT, RepairStep.REVERT):
            self.image_replaced.emit(ImageRole(record.image_role))
        return True

    # --- apply (called by the commands) --------------------------------------------------

    def apply_decision(self, decision: Decision | None, undo: bool) -> None:
        """The decision, bound to the images it is made on; an adjudicator's decision on a
        case the others dispute settles it."""
        case = self._case()
        review = case.review
        old = review.decision
        # Never a read of the images on this thread: a worker hashes them as the case opens;
        # a decision made before it has finished is bound when it is saved.
        hashes = image_hashes(case.images, compute=False)
        bind(review, decision, hashes or {})
        self._unbound = decision is not None and hashes is None
        review.adjudication = decision is not None and self._adjudicating(case)
        data: dict[str, Any] = {"from": _v(old), "to": _v(decision)}
        if review.adjudication:
            data["adjudication"] = True
        self._changed(Aspect.DECISION, "decision", data, undo)
        self.project.update_entry(case)
        self.entry_changed.emit(case.case_id)

    def _adjudicating(self, case: Case) -> bool:
        if not self.project.is_adjudicator:
            return False
        hashes = image_hashes(case.images, compute=False)
        return others_disputed(case, hashes, adjudicators_of(self.project))

    def decision_stale(self) -> bool:
        """The open case's decision was made on images since replaced (as far as known:
        images not hashed yet count as unchanged)."""
        case = self.case
        return case is not None and is_stale(case.review, image_hashes(case.images, False))

    # --- what others changed on disk -----------------------------------------------------

    def refresh_others(self) -> None:
        """The other reviewers' files changed on disk: read them again. One's own review,
        with any change not yet saved, is left as it is."""
        if self.case is None:
            return
        self.project.reload_other_reviews(self.case)
        self.others_changed.emit()

    def refresh_images(self) -> None:
        """The open case's images were replaced on disk (another window accepted or
        reverted a repair): find them again and show them (both: which one changed is not
        known any more, the old file is gone)."""
        case = self.case
        if case is None:
            return
        self.project.locate_images(case)
        self.project.update_entry(case)
        self.entry_changed.emit(case.case_id)
        for role in case.spec.image_roles:
            self.image_replaced.emit(role)

    def apply_notes(self, notes: str, undo: bool) -> None:
        review = self._review()
        old, review.notes = review.notes, notes
        self._changed(Aspect.NOTES, "notes", {"from": old, "to": notes}, undo)

    def apply_boxes(
        self, boxes: list[Box], detail: dict[str, Any], undo: bool, focus: BoxFocus
    ) -> None:
        self._review().boxes = [b.model_copy() for b in boxes]
        self._changed(Aspect.BOXES, "box", dict(detail), undo)
        if focus is not None:
            self.box_focus.emit(*focus)

    def apply_question_edit(self, probe_id: str, edit: QuestionEdit | None, undo: bool) -> None:
        edits = self._review().question_edits
        if edit is None:
            edits.pop(probe_id, None)
        else:
            edits[probe_id] = edit.model_copy()
        data = {"probe_id": probe_id, "to": edit.model_dump(exclude_none=True) if edit else None}
        self._changed(Aspect.QUESTION_EDITS, "question_edit", data, undo)

    def apply_checklist(self, key: str, ticked: bool, undo: bool) -> None:
        checklist = self._review().checklist
        if ticked:
            checklist[key] = True
        else:
            checklist.pop(key, None)
        self._changed(Aspect.CHECKLIST, "checklist", {"item": key, "to": ticked}, undo)

    def _case(self) -> Case:
        assert self.case is not None, "a command ran with no case open"
        return self.case

    def _review(self) -> Review:
        return self._case().review

    def _changed(self, aspect: Aspect, event: str, data: dict[str, Any], undo: bool) -> None:
        if undo:
            data["undo"] = True
        self._events.append((event, data))
        self._dirty = True
        self._set_state(SaveState.PENDING)
        self._timer.start()
        self.review_changed.emit(aspect)

    # --- saving --------------------------------------------------------------------------

    def save_now(self, force: bool = False) -> bool:
        """Write the review (and its history events) now. True when nothing is left unsaved."""
        self._timer.stop()
        case = self.case
        if case is None or not self._dirty:
            return True
        if self._unbound:  # hashed by now, as a rule (remembered): else read here, once
            case.review.decided_on = image_hashes(case.images) or {}
            self._unbound = False
        try:
            self.project.save_review(case, force=force)
        except ReviewConflictError as exc:
            self._set_state(SaveState.CONFLICT, exc.message)
            self.conflict.emit(exc.message)
            return not self._dirty
        except (ReadOnlyProjectError, StorageError) as exc:
            self._set_state(SaveState.ERROR, exc.message)
            self.job_failed.emit(f"Not saved: {exc.message}")
            return False
        self._dirty = False
        events, self._events = self._events, []
        try:
            for event, data in events:
                self.project.record(case, event, data)
        except StorageError as exc:
            self.job_failed.emit(f"Review saved, but the history log was not: {exc.message}")
        self._set_state(SaveState.SAVED)
        return True

    def flush(self) -> bool:
        """Everything on disk: the open case's changes (False if they could not be saved)
        and the repairs still being recorded in other cases."""
        saved = self.save_now()
        self.landings.settle()
        return saved

    def resolve_conflict(self, keep_mine: bool) -> None:
        """After a conflict: overwrite the file with this window's review, or reload it."""
        if self.case is None:
            return
        if keep_mine:
            self.save_now(force=True)
            return
        case_id = self.case.case_id
        self._dirty = False
        self._events.clear()
        self.stack(case_id).clear()  # the undo history described the discarded version
        self.case = None
        if self.load(case_id) and self.case is not None:
            self.project.update_entry(self.case)
        self.entry_changed.emit(case_id)

    def _set_state(self, state: SaveState, detail: str = "") -> None:
        self.save_state_changed.emit(state, detail)


def _v(decision: Decision | None) -> str | None:
    return decision.value if decision else None
