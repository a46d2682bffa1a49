"""The undo stack's commands: a core ``Edit`` (before/after values) applied to the editor of
the case it belongs to.

A command does not hold an editor: the case may have been closed and opened again (a new
editor) since it was pushed, so it asks for the editor of its case when it runs; its stack is
only active while that case is open.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from sabre_desk.core.desk.case_editor import CaseEditor
from sabre_desk.core.desk.case_edits import BoxesEdit, Edit, NotesEdit

NOTES_MERGE_ID = 1
NUDGE_MERGE_ID = 2


class EditCommand(QUndoCommand):
    def __init__(self, edit: Edit, editor: Callable[[], CaseEditor]):
        super().__init__(edit.text)
        self.edit = edit
        self._editor = editor

    def id(self) -> int:
        if isinstance(self.edit, NotesEdit):
            return NOTES_MERGE_ID
        if isinstance(self.edit, BoxesEdit) and self.edit.detail.get("action") == "nudge":
            return NUDGE_MERGE_ID
        return -1

    def mergeWith(self, other: QUndoCommand) -> bool:
        return isinstance(other, EditCommand) and self.edit.absorb(other.edit)

    def redo(self) -> None:
        if not self.edit.redo(self._editor()):
            self.setObsolete(True)

    def undo(self) -> None:
        if not self.edit.undo(self._editor()):
            self.setObsolete(True)
