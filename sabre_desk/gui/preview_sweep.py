"""The preview sweep: when the reviewer pauses, the previews still missing are made, one
case at a time (in a worker process), so that later a jump to any case shows it at once."""

from __future__ import annotations

from PySide6.QtCore import QObject

from sabre_desk.core.case.preview_cache import PreviewStore, make_case_previews
from sabre_desk.core.case.project import Project
from sabre_desk.gui.idle_sweep import IdleSweep, Submit


class PreviewSweep(QObject):
    def __init__(self, submit: Submit, parent: QObject | None = None):
        super().__init__(parent)
        self.made = 0
        self.sweep = IdleSweep(submit, make_case_previews, self._on_result, parent=self)

    def start(self, project: Project, store: PreviewStore) -> None:
        self.made = 0
        self.sweep.start((store, e.folder) for e in project.entries if e.is_valid)

    def _on_result(self, _args: tuple, made: int | None) -> None:
        self.made += made or 0
