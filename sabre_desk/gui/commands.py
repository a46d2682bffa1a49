"""Undoable changes to the open case's review.

Each command holds the values before and after (never live objects), so it still applies
after the case was reloaded from disk, and calls the controller to apply one side.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QUndoCommand

from sabre_desk.core.repairs import RepairStep
from sabre_desk.core.review import Box, Decision, QuestionEdit
from sabre_desk.core.spec import ImageRole

#: The box to select afterwards: the image and the index on it (-1: none); None: as it was.
BoxFocus = tuple[ImageRole, int] | None

if TYPE_CHECKING:
    from sabre_desk.gui.controller import CaseController

NOTES_MERGE_ID = 1
NUDGE_MERGE_ID = 2


class ReviewCommand(QUndoCommand):
    def __init__(self, controller: CaseController, text: str):
        super().__init__(text)
        self.controller = controller


class SetDecision(ReviewCommand):
    def __init__(self, controller: CaseController, before: Decision | None, after: Decision | None):
        label = after.label if after else "no decision"
        super().__init__(controller, f"Decision: {label}")
        self.before, self.after = before, after

    def redo(self) -> None:
        self.controller.apply_decision(self.after, undo=False)

    def undo(self) -> None:
        self.controller.apply_decision(self.before, undo=True)


class SetNotes(ReviewCommand):
    """Typing is committed in pauses; consecutive commits merge into one undo step."""

    def __init__(self, controller: CaseController, before: str, after: str):
        super().__init__(controller, "Edit notes")
        self.before, self.after = before, after

    def id(self) -> int:
        return NOTES_MERGE_ID

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, SetNotes):
            return False
        self.after = other.after
        return True

    def redo(self) -> None:
        self.controller.apply_notes(self.after, undo=False)

    def undo(self) -> None:
        self.controller.apply_notes(self.before, undo=True)


class ChangeBoxes(ReviewCommand):
    """Any change to the boxes (add, move, resize, relabel, delete, mirror)."""

    def __init__(
        self,
        controller: CaseController,
        before: list[Box],
        after: list[Box],
        text: str,
        detail: dict[str, Any],
        focus_after: BoxFocus = None,
        focus_before: BoxFocus = None,
    ):
        super().__init__(controller, text)
        self.before = [b.model_copy() for b in before]
        self.after = [b.model_copy() for b in after]
        self.detail = detail
        # Said, not guessed: undoing a Delete selects the box that comes back.
        self.focus_after, self.focus_before = focus_after, focus_before

    def id(self) -> int:
        # Consecutive keyboard nudges of one box are one undo step, like one mouse drag.
        return NUDGE_MERGE_ID if self.detail.get("action") == "nudge" else -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not (
            isinstance(other, ChangeBoxes)
            and other.detail.get("action") == "nudge"
            and other.detail.get("index") == self.detail.get("index")
            and other.detail.get("image_role") == self.detail.get("image_role")
        ):
            return False
        self.after = other.after
        self.detail = {**self.detail, "box": other.detail["box"]}
        return True

    def redo(self) -> None:
        self.controller.apply_boxes(self.after, self.detail, False, self.focus_after)

    def undo(self) -> None:
        self.controller.apply_boxes(self.before, self.detail, True, self.focus_before)


class EditQuestion(ReviewCommand):
    def __init__(
        self,
        controller: CaseController,
        probe_id: str,
        before: QuestionEdit | None,
        after: QuestionEdit | None,
        text: str,
    ):
        super().__init__(controller, text)
        self.probe_id, self.before, self.after = probe_id, before, after

    def redo(self) -> None:
        self.controller.apply_question_edit(self.probe_id, self.after, undo=False)

    def undo(self) -> None:
        self.controller.apply_question_edit(self.probe_id, self.before, undo=True)


class SetChecklist(ReviewCommand):
    def __init__(self, controller: CaseController, key: str, before: bool, after: bool):
        super().__init__(controller, f"{'Tick' if after else 'Untick'} {key}")
        self.key, self.before, self.after = key, before, after

    def redo(self) -> None:
        self.controller.apply_checklist(self.key, self.after, undo=False)

    def undo(self) -> None:
        self.controller.apply_checklist(self.key, self.before, undo=True)


class RepairAction(ReviewCommand):
    """Accept, revert or discard a repair; undo runs the opposite action.

    These change files, so a failure (disk full, a file removed behind our back) makes the
    command obsolete instead of leaving a step on the stack that did not happen.
    """

    def __init__(self, controller: CaseController, step: RepairStep, repair_id: str, text: str):
        super().__init__(controller, text)
        self.step, self.repair_id = step, repair_id
        case = controller.case
        # Accepting also sets "Needs recheck": undo puts back the decision there was.
        self.decision_before = case.review.decision if case is not None else None

    def redo(self) -> None:
        if not self.controller.take_repair_step(self.step, self.repair_id):
            self.setObsolete(True)

    def undo(self) -> None:
        if not self.controller.take_repair_step(self.step.opposite, self.repair_id):
            self.setObsolete(True)
            return
        case = self.controller.case
        if case is not None and case.review.decision != self.decision_before:
            self.controller.apply_decision(self.decision_before, undo=True)
