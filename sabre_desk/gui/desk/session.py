"""The open project's controller, shared by every part of the window that acts on a case.

Opening another project replaces the controller; the parts that need it (the case panel,
the repair tools, the change map, the menus, the export) subscribe to ``opened`` instead
of holding the window and reaching into it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from sabre_desk.core.case.project import Case, Project
from sabre_desk.gui.desk.controller import CaseController

#: Make a case current in the case list (clearing filters that hide it); False if the project
#: has no such case. Rooms that lead to a case (the team's queue, a new case, the pipeline)
#: are handed this, not the list.
SelectCase = Callable[[str], bool]


class OpenAs(enum.Enum):
    """How the window opens a project, as the checks before it (the upgrade offer, another
    window's claim) decide."""

    WRITABLE = "writable"
    READ_ONLY = "read-only"
    NOT_AT_ALL = "cancel"


class Session(QObject):
    opened = Signal(object)  # the new CaseController
    #: a line for the status bar, how long to show it (ms), and the case it is about ("":
    #: the project): a case's line is cleared when the reviewer leaves that case
    message = Signal(str, int, str)
    error = Signal(str, str)  # title, message: shown to the reviewer in a dialog

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.controller: CaseController | None = None

    def open(self, controller: CaseController) -> None:
        old, self.controller = self.controller, controller
        self.opened.emit(controller)
        if old is not None:
            old.deleteLater()

    @property
    def project(self) -> Project | None:
        return self.controller.project if self.controller is not None else None

    @property
    def case(self) -> Case | None:
        return self.controller.case if self.controller is not None else None

    def say(self, text: str, ms: int = 8000) -> None:
        """A line about the project, or naming the case it is about."""
        self.message.emit(text, ms, "")

    def say_here(self, text: str, ms: int = 5000) -> None:
        """A line about the case on screen: gone when the reviewer leaves it."""
        case = self.case
        self.message.emit(text, ms, case.case_id if case is not None else "")
