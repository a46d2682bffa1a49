"""The undoable changes to an open case, as values.

Each edit holds what was there before and what comes after (never live objects), so it
still applies after the case was closed and opened again, and it applies itself to the
case's editor (``case_editor.CaseEditor``). The window's undo stack holds these; nothing here
knows about Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from sabre_desk.core.case.review import Box, Decision, QuestionEdit
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair.repairs import RepairStep

#: The box to select afterwards: the image and the index on it (-1: none); None: as it was.
BoxFocus = tuple[ImageRole, int] | None


class CaseEditor(Protocol):
    """What an edit applies itself to (``case_editor.CaseEditor``): said here as a protocol
    so the edits never import the editor that imports them."""

    def apply_decision(self, decision: Decision | None, undo: bool) -> None: ...
    def apply_notes(self, notes: str, undo: bool) -> None: ...
    def apply_boxes(
        self, boxes: list[Box], detail: dict[str, Any], undo: bool, focus: BoxFocus
    ) -> None: ...
    def apply_question_edit(self, probe_id: str, edit: QuestionEdit | None, undo: bool) -> None: ...
    def apply_checklist(self, key: str, ticked: bool, undo: bool) -> None: ...
    def take_repair_step(self, step: RepairStep, repair_id: str) -> bool: ...
    def current_decision(self) -> Decision | None: ...


@dataclass
class Edit:
    """One undoable change; ``redo``/``undo`` return False when it could not be done (a
    file step that failed), and the edit is then dropped from the undo history."""

    text: str

    def redo(self, editor: CaseEditor) -> bool:
        raise NotImplementedError

    def undo(self, editor: CaseEditor) -> bool:
        raise NotImplementedError

    def absorb(self, later: Edit) -> bool:
        """Take *later* into this edit (typing, keyboard nudges); True when it did."""
        return False


@dataclass
class DecisionEdit(Edit):
    before: Decision | None = None
    after: Decision | None = None

    def redo(self, editor: CaseEditor) -> bool:
        editor.apply_decision(self.after, undo=False)
        return True

    def undo(self, editor: CaseEditor) -> bool:
        editor.apply_decision(self.before, undo=True)
        return True


@dataclass
class NotesEdit(Edit):
    """Typing is committed in pauses; consecutive commits are one undo step."""

    before: str = ""
    after: str = ""

    def redo(self, editor: CaseEditor) -> bool:
        editor.apply_notes(self.after, undo=False)
        return True

    def undo(self, editor: CaseEditor) -> bool:
        editor.apply_notes(self.before, undo=True)
        return True

    def absorb(self, later: Edit) -> bool:
        if not isinstance(later, NotesEdit):
            return False
        self.after = later.after
        return True


@dataclass
class BoxesEdit(Edit):
    """Any change to the boxes (add, move, resize, relabel, delete, mirror)."""

    before: list[Box] = field(default_factory=list)
    after: list[Box] = field(default_factory=list)
    detail: dict[str, Any] = field(default_factory=dict)
    #: said, not guessed: undoing a Delete selects the box that comes back
    focus_after: BoxFocus = None
    focus_before: BoxFocus = None

    def __post_init__(self) -> None:
        self.before = [b.model_copy() for b in self.before]
        self.after = [b.model_copy() for b in self.after]

    def redo(self, editor: CaseEditor) -> bool:
        editor.apply_boxes(self.after, self.detail, False, self.focus_after)
        return True

    def undo(self, editor: CaseEditor) -> bool:
        editor.apply_boxes(self.before, self.detail, True, self.focus_before)
        return True

    def absorb(self, later: Edit) -> bool:
        """Consecutive keyboard nudges of one box are one undo step, like one mouse drag."""
        if not (
            isinstance(later, BoxesEdit)
            and self.detail.get("action") == "nudge"
            and later.detail.get("action") == "nudge"
            and later.detail.get("index") == self.detail.get("index")
            and later.detail.get("image_role") == self.detail.get("image_role")
        ):
            return False
        self.after = later.after
        self.detail = {**self.detail, "box": later.detail["box"]}
        return True


@dataclass
class QuestionChange(Edit):
    probe_id: str = ""
    before: QuestionEdit | None = None
    after: QuestionEdit | None = None

    def redo(self, editor: CaseEditor) -> bool:
        editor.apply_question_edit(self.probe_id, self.after, undo=False)
        return True

    def undo(self, editor: CaseEditor) -> bool:
        editor.apply_question_edit(self.probe_id, self.before, undo=True)
        return True


@dataclass
class ChecklistEdit(Edit):
    key: str = ""
    before: bool = False
    after: bool = False

    def redo(self, editor: CaseEditor) -> bool:
        editor.apply_checklist(self.key, self.after, undo=False)
        return True

    def undo(self, editor: CaseEditor) -> bool:
        editor.apply_checklist(self.key, self.before, undo=True)
        return True


@dataclass
class RepairEdit(Edit):
    """Accept, revert or discard a repair; undo takes the opposite step. These change
    files, so a failure (a full disk, a file removed behind our back) drops the edit
    instead of leaving a step in the history that did not happen."""

    step: RepairStep = RepairStep.ACCEPT
    repair_id: str = ""
    #: accepting also sets "Needs recheck": undo puts back the decision there was
    decision_before: Decision | None = None

    def redo(self, editor: CaseEditor) -> bool:
        return editor.take_repair_step(self.step, self.repair_id)

    def undo(self, editor: CaseEditor) -> bool:
        if not editor.take_repair_step(self.step.opposite, self.repair_id):
            return False
        if editor.current_decision() != self.decision_before:
            editor.apply_decision(self.decision_before, undo=True)
        return True
