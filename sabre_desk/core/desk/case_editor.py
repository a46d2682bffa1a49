"""The open case's editing state and operations, without Qt.

One editor per open case: its review as edited (decision, notes, boxes, question edits,
checklist), whether it is saved, the history events waiting for the save, the binding of a
decision to the images it was made on, adjudication, the case's validity and the messages
that belong to it. Switching case or project replaces the editor, so nothing of the previous
case can show on the next one.

Operations come in two steps, as in napari's models: a *proposal* (``decide``, ``add_box`` …)
checks what the reviewer asked for and returns an ``Edit`` holding before/after values, or
None (nothing to do; a refusal is announced on ``refused``); the window pushes the edit on
its undo stack, which applies it here (``apply_*``). Every change is announced on an event;
views subscribe. Saving is asked for after each change (``autosave_due``) and done by
``save``, which never silently overwrites a review someone else changed on disk.
"""

from __future__ import annotations

from collections.abc import Callable, Sized
from enum import StrEnum
from typing import Any

from sabre_desk.core.case.binding import bind, image_hashes, is_stale
from sabre_desk.core.case.locks import holder
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.question_edits import make_edit
from sabre_desk.core.case.review import Box, Decision, QuestionEdit, Review
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import CaseReport
from sabre_desk.core.desk.boxes import mirrored
from sabre_desk.core.desk.case_edits import (
    BoxesEdit,
    BoxFocus,
    ChecklistEdit,
    DecisionEdit,
    Edit,
    NotesEdit,
    QuestionChange,
    RepairEdit,
)
from sabre_desk.core.desk.review_save import ReviewSave
from sabre_desk.core.jobs.events import Event
from sabre_desk.core.repair import repairs
from sabre_desk.core.repair.repairs import RepairStep
from sabre_desk.core.team.ratings import adjudicators_of
from sabre_desk.core.team.team import others_disputed
from sabre_desk.ground import limits
from sabre_desk.ground.errors import (
    ProjectError,
    ReviewConflictError,
)
from sabre_desk.ground.limits import Limit

#: A change is on disk this long after it was made (well inside the promise of 0.5 s).
SAVE_DELAY_MS = 200


class Aspect(StrEnum):
    """What part of the open case changed (views redraw only that)."""

    ALL = "all"
    DECISION = "decision"
    NOTES = "notes"
    BOXES = "boxes"
    QUESTION_EDITS = "question_edits"
    CHECKLIST = "checklist"
    REPAIRS = "repairs"


class SaveState(StrEnum):
    SAVED = "saved"
    PENDING = "pending"
    CONFLICT = "conflict"
    ERROR = "error"
    READ_ONLY = "read_only"


def _v(decision: Decision | None) -> str | None:
    return decision.value if decision else None


class CaseEditor:
    def __init__(
        self, project: Project, case: Case, check: Callable[[str], CaseReport] | None = None
    ):
        self.project = project
        self.case = case
        #: decides Keep when no verdict has landed yet (``validity.Validity.check``)
        self._check = check
        self.validity: CaseReport | None = None
        self.dirty = False
        self._version = 0  # changes made so far: a save acknowledged for an older one
        #: is not "saved"
        self.saving: ReviewSave | None = None  # handed to a save thread, not acknowledged
        #: called before the editor writes the case's files itself (a repair step): the
        #: window finishes the saves on their way first, so that no two writes race
        self.before_write: Callable[[], None] = lambda: None
        #: a decision waits to be bound to its images (not yet hashed when it was made)
        self.unbound = False
        self.messages: list[str] = []
        self._events: list[tuple[str, dict[str, Any]]] = []
        # events
        self.changed: Event[[Aspect]] = Event()
        self.entry_changed: Event[[str]] = Event()  # the case's index entry (decision …) changed
        self.box_focus: Event[[ImageRole, int]] = Event()  # select this box now
        self.image_replaced: Event[[ImageRole]] = Event()
        self.save_state: Event[[SaveState, str]] = Event()
        self.conflict: Event[[str]] = Event()  # the review changed on disk; resolve it
        self.failed: Event[[str]] = Event()  # a message for the one error handler
        self.refused: Event[[str]] = Event()  # a decision was not recorded, and why
        self.decided: Event[[Decision | None]] = Event()  # the reviewer chose (not an undo)
        self.autosave_due: Event[[]] = Event()
        self.validity_changed: Event[[CaseReport]] = Event()
        self.messages_changed: Event[[]] = Event()

    @property
    def case_id(self) -> str:
        return self.case.case_id

    @property
    def review(self) -> Review:
        return self.case.review

    def current_decision(self) -> Decision | None:
        return self.review.decision

    @property
    def editable(self) -> bool:
        return not self.project.read_only

    # --- messages that belong to this case -----------------------------------------------

    def say(self, text: str) -> None:
        """A message about this case (shown while it is open, gone with it)."""
        if text and (not self.messages or self.messages[-1] != text):
            self.messages.append(text)
        self.messages_changed.emit()

    def clear_messages(self) -> None:
        if self.messages:
            self.messages = []
            self.messages_changed.emit()

    # --- validity ------------------------------------------------------------------------

    def set_validity(self, report: CaseReport) -> None:
        self.validity = report
        self.validity_changed.emit(report)

    def keep_refusal(self) -> str | None:
        """Why Keep cannot be recorded (None: it can): a release never ships a case that
        `validate` calls invalid, so the window never records Keep on one."""
        if self.validity is None and self._check is not None:
            report = self._check(self.case_id)
            report.case = None
            self.set_validity(report)
        if self.validity is None or self.validity.valid:
            return None
        return f"Keep is not possible: this case is invalid ({self.validity.reason})"

    # --- proposals -----------------------------------------------------------------------

    def _editable(self) -> bool:
        if self.project.read_only:
            self.failed.emit("This project is open read-only: changes cannot be saved.")
            return False
        return True

    def decision_stale(self) -> bool:
        """The decision was made on images since replaced (as far as known: images not
        hashed yet count as unchanged)."""
        return is_stale(self.review, image_hashes(self.case.images, False))

    def decide(self, decision: Decision | None) -> Edit | None:
        """The same decision again is taken when the one on record was made on images
        since replaced (it binds the decision to the images now)."""
        if self.review.decision == decision and not self.decision_stale():
            return None
        if decision is not None and decision.needs_pair and len(self.case.spec.image_roles) < 2:
            self.failed.emit(
                f"“{decision.label}” is for Base/Edited pairs; this case has one image"
            )
            return None
        if decision is Decision.KEEP:
            refusal = self.keep_refusal()
            if refusal is not None:
                self.refused.emit(refusal)
                return None
        if not self._editable():
            return None
        label = decision.label if decision else "no decision"
        return DecisionEdit(f"Decision: {label}", self.review.decision, decision)

    def _over(self, limit: Limit, text: str) -> bool:
        """Whether *text* is past *limit* (then refused, the limit in words, on ``failed``):
        nothing the reader would refuse is ever taken into the review."""
        problem = limit.problem(len(text))
        if problem is not None:
            self.failed.emit(f"Not taken: {problem}.")
        return problem is not None

    def _full(self, limit: Limit, items: Sized) -> bool:
        """Whether *items* already hold as many as *limit* allows (one more is then refused,
        the limit in words, on ``failed``)."""
        full = len(items) >= limit.most
        if full:
            self.failed.emit(f"Not taken: {limit.what} can hold at most {limit.words()}.")
        return full

    def write_notes(self, text: str) -> Edit | None:
        if self.review.notes == text or self._over(limits.NOTES, text) or not self._editable():
            return None
        return NotesEdit("Edit notes", self.review.notes, text)

    def add_box(
        self, role: ImageRole, box: tuple[float, float, float, float], label: str
    ) -> Edit | None:
        if self._over(limits.BOX_LABEL, label) or self._full(limits.BOXES, self.review.boxes):
            return None
        new = Box(image_role=role, label=label, box=box)
        before = self.review.boxes
        detail = {"action": "add", "image_role": role.value, "label": label, "box": list(box)}
        focus = (role, len(self.review.boxes_on(role)))
        return BoxesEdit(f"Draw {label} box", before, [*before, new], detail, focus)

    def _position(self, role: ImageRole, index: int) -> int:
        """Position in the review's boxes of the *index*-th box on image *role*."""
        return [i for i, b in enumerate(self.review.boxes) if b.image_role is role][index]

    def box(self, role: ImageRole, index: int) -> Box | None:
        try:
            return self.review.boxes[self._position(role, index)]
        except IndexError:
            return None

    def _box_edit(
        self,
        role: ImageRole,
        index: int,
        changes: dict[str, Any] | None,
        text: str,
        detail: dict[str, Any],
    ) -> Edit:
        """One change of the *index*-th box on *role*: *changes* to its fields, or None to
        delete it. *detail* goes to the history, with the role added."""
        before = self.review.boxes
        pos = self._position(role, index)
        after = list(before)
        if changes is None:
            del after[pos]
        else:
            after[pos] = before[pos].model_copy(update=changes)
        focus = (role, index)
        after_focus = (role, -1) if changes is None else focus  # nothing selected after delete
        detail = {"image_role": role.value, **detail}
        return BoxesEdit(text, before, after, detail, after_focus, focus)

    def change_box(
        self, role: ImageRole, index: int, box: tuple[float, float, float, float], nudge: bool
    ) -> Edit | None:
        """Move or resize a box (a mouse drag, or with *nudge* an arrow key)."""
        old = self.box(role, index)
        if old is None:
            return None
        detail = {
            "action": "nudge" if nudge else "change",
            "index": index,
            "box": list(box),
            "from": list(old.box),
        }
        return self._box_edit(role, index, {"box": box}, "Move box", detail)

    def relabel_box(self, role: ImageRole, index: int, label: str) -> Edit | None:
        old = self.box(role, index)
        if old is None or self._over(limits.BOX_LABEL, label):
            return None
        detail = {"action": "relabel", "label": label, "from": old.label}
        return self._box_edit(role, index, {"label": label}, f"Label box {label}", detail)

    def remove_box(self, role: ImageRole, index: int) -> Edit | None:
        old = self.box(role, index)
        if old is None:
            return None
        detail = {"action": "remove", "box": list(old.box)}
        return self._box_edit(role, index, None, "Delete box", detail)

    def mirror_box(self, role: ImageRole, index: int) -> Edit | None:
        """A copy of a box on the other image of a paired case (Base ↔ Edited)."""
        old = self.box(role, index)
        if old is None or len(self.case.spec.image_roles) < 2:
            return None
        if self._full(limits.BOXES, self.review.boxes):
            return None
        target = ImageRole.EDITED if role is ImageRole.BASE else ImageRole.BASE
        before = self.review.boxes
        copy = mirrored(old, target)
        detail = {"action": "mirror", "image_role": target.value, "box": list(copy.box)}
        focus = (target, len(self.review.boxes_on(target)))
        text = f"Mirror box to {target.value}"
        return BoxesEdit(text, before, [*before, copy], detail, focus)

    def edit_question(
        self, probe_id: str, prompt: str | None = None, answer: str | None = None
    ) -> Edit | str | None:
        """A change of a probe's question or answer; a string says why it was refused."""
        question = self.case.spec.question(probe_id)
        if question is None:
            return f"no probe {probe_id!r}"
        for limit, text in ((limits.QUESTION, prompt), (limits.ANSWER, answer)):
            problem = None if text is None else limit.problem(len(text.strip()))
            if problem is not None:
                return f"{probe_id}: {problem}"
        current = self.review.question_edits.get(probe_id)
        edits = limits.QUESTION_EDITS
        if current is None and len(self.review.question_edits) >= edits.most:
            return f"{probe_id}: {edits.what} can hold at most {edits.words()}"
        try:
            new = make_edit(question, current, prompt=prompt, answer=answer)
        except ValueError as exc:
            return f"{probe_id}: {exc}"
        if new == current:
            return None
        what = "answer" if answer is not None else "question"
        return QuestionChange(f"Edit {what} of {probe_id}", probe_id, current, new)

    def tick(self, key: str, ticked: bool) -> Edit | None:
        before = self.review.checklist.get(key, False)
        if before == ticked:
            return None
        if ticked and (
            self._over(limits.CHECKLIST_ITEM, key)
            or self._full(limits.CHECKLIST, self.review.checklist)
        ):
            return None
        return ChecklistEdit(f"{'Tick' if ticked else 'Untick'} {key}", key, before, ticked)

    def repair_step(self, step: RepairStep, repair_id: str) -> Edit:
        text = f"{step.value.capitalize()} repair {repair_id}"
        return RepairEdit(text, step, repair_id, self.review.decision)

    # --- applying (called by the edits) --------------------------------------------------

    def apply_decision(self, decision: Decision | None, undo: bool) -> None:
        """The decision, bound to the images it is made on; an adjudicator's decision on a
        case the others dispute settles it."""
        review, old = self.review, self.review.decision
        # Never a read of the images here: a worker hashes them as the case opens; a
        # decision made before that finished is bound when it is saved.
        hashes = image_hashes(self.case.images, compute=False)
        bind(review, decision, hashes or {})
        self.unbound = decision is not None and hashes is None
        review.adjudication = decision is not None and self._adjudicating()
        data: dict[str, Any] = {"from": _v(old), "to": _v(decision)}
        if review.adjudication:
            data["adjudication"] = True
        self._changed(Aspect.DECISION, "decision", data, undo)
        self.project.update_entry(self.case)
        self.entry_changed.emit(self.case_id)
        if not undo:
            self.decided.emit(decision)

    def _adjudicating(self) -> bool:
        if not self.project.is_adjudicator:
            return False
        hashes = image_hashes(self.case.images, compute=False)
        return others_disputed(self.case, hashes, adjudicators_of(self.project))

    def apply_notes(self, notes: str, undo: bool) -> None:
        old, self.review.notes = self.review.notes, notes
        self._changed(Aspect.NOTES, "notes", {"from": old, "to": notes}, undo)

    def apply_boxes(
        self, boxes: list[Box], detail: dict[str, Any], undo: bool, focus: BoxFocus
    ) -> None:
        self.review.boxes = [b.model_copy() for b in boxes]
        self._changed(Aspect.BOXES, "box", dict(detail), undo)
        if focus is not None:
            self.box_focus.emit(*focus)

    def apply_question_edit(self, probe_id: str, edit: QuestionEdit | None, undo: bool) -> None:
        edits = self.review.question_edits
        if edit is None:
            edits.pop(probe_id, None)
        else:
            edits[probe_id] = edit.model_copy()
        data = {"probe_id": probe_id, "to": edit.model_dump(exclude_none=True) if edit else None}
        self._changed(Aspect.QUESTION_EDITS, "question_edit", data, undo)

    def apply_checklist(self, key: str, ticked: bool, undo: bool) -> None:
        checklist = self.review.checklist
        if ticked:
            checklist[key] = True
        else:
            checklist.pop(key, None)
        self._changed(Aspect.CHECKLIST, "checklist", {"item": key, "to": ticked}, undo)

    def take_repair_step(self, step: RepairStep, repair_id: str) -> bool:
        """The step on disk (after saving what is pending), then the news."""
        self.before_write()
        if not self.save():
            return False
        owner = holder(self.case.folder) if step in (RepairStep.ACCEPT, RepairStep.REVERT) else None
        if owner is not None:  # said at once, rather than after waiting for the lock
            self.failed.emit(
                f"{step.value.capitalize()} not done: {owner.describe()} holds the lock on "
                "this case's images (the Repair panel can break a stale lock)"
            )
            return False
        try:
            record = repairs.take_step(self.project, self.case, step, repair_id)
        except ProjectError as exc:
            self.failed.emit(f"{step.value.capitalize()} failed: {exc.message}")
            return False
        self.project.update_entry(self.case)
        self.changed.emit(Aspect.ALL)
        self.entry_changed.emit(self.case_id)
        if step in (RepairStep.ACCEPT, RepairStep.REVERT):
            self.image_replaced.emit(ImageRole(record.image_role))
        return True

    def _changed(self, aspect: Aspect, event: str, data: dict[str, Any], undo: bool) -> None:
        if undo:
            data["undo"] = True
        self._events.append((event, data))
        self.dirty = True
        self._version += 1
        self.save_state.emit(SaveState.PENDING, "")
        self.autosave_due.emit()
        self.changed.emit(aspect)

    # --- what others changed on disk -----------------------------------------------------

    def refresh_others(self) -> None:
        """The other reviewers' files changed on disk: read them again. One's own review,
        with any change not yet saved, is left as it is."""
        self.project.reload_other_reviews(self.case)

    def refresh_images(self) -> None:
        """The images were replaced on disk (another window accepted or reverted a repair):
        find them again; both are announced (which one changed is not known any more)."""
        self.project.locate_images(self.case)
        self.project.update_entry(self.case)
        self.entry_changed.emit(self.case_id)
        for role in self.case.spec.image_roles:
            self.image_replaced.emit(role)

    # --- saving --------------------------------------------------------------------------

    def save(self, force: bool = False) -> bool:
        """Write the review (and its history events) now, on this thread. True when nothing
        is unsaved. (A save already handed to a save thread is waited for by the caller.)"""
        job = self.begin_save(force)
        if job is None:
            return not self.dirty
        job.write(self.project)
        return self.end_save(job)

    def begin_save(self, force: bool = False) -> ReviewSave | None:
        """What is to be saved, for ``ReviewSave.write`` on any thread; None when nothing
        is, or a save is still on its way (the next one is taken once it is acknowledged)."""
        if not self.dirty or self.saving is not None:
            return None
        case = self.case
        if self.unbound:  # hashed by now, as a rule (remembered): else read here, once
            case.review.decided_on = image_hashes(case.images) or {}
            self.unbound = False
        events, self._events = self._events, []
        review = case.review.model_copy(deep=True)
        job = ReviewSave(case, review, events, case.review_fingerprint, force, self._version)
        self.saving = job
        return job

    def end_save(self, job: ReviewSave) -> bool:
        """The outcome of *job*, on the editor's thread: "saved" only now. True when nothing
        is left unsaved (a change made while it was written is still to save)."""
        self.saving = None
        exc = job.error
        if exc is not None:
            self._events[:0] = job.events  # owed again, before any made since
            if isinstance(exc, ReviewConflictError):
                self.save_state.emit(SaveState.CONFLICT, exc.message)
                self.conflict.emit(exc.message)
                return not self.dirty
            self.save_state.emit(SaveState.ERROR, exc.message)
            self.failed.emit(f"Not saved: {exc.message}")
            return False
        case = self.case
        case.review_fingerprint = job.fingerprint
        case.review.updated_at = job.review.updated_at
        self.project.update_entry(case)
        if job.history_error is not None:
            self.failed.emit(
                f"Review saved, but the history log was not: {job.history_error.message}"
            )
        if job.version != self._version:
            return False
        self.dirty = False
        self.save_state.emit(SaveState.SAVED, "")
        return True

    def discard_unsaved(self) -> None:
        """Forget the changes not saved (the reviewer chose the version on disk)."""
        self.dirty = False
        self._events.clear()
