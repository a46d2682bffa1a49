"""The preview sweep: when the reviewer pauses, the previews still missing are made (in a
worker process), so that later a jump to any case shows it at once. The cases just ahead
of the one on screen go first: the reviewer reaches those next."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from sabre_desk.core.case.preview_cache import PreviewStore, make_case_previews
from sabre_desk.core.case.project import Project
from sabre_desk.gui.machinery.idle_sweep import IdleSweep, Submit


class PreviewSweep(QObject):
    def __init__(self, submit: Submit, parent: QObject | None = None):
        super().__init__(parent)
        self.made = 0
        self._store: PreviewStore | None = None
        self.sweep = IdleSweep(submit, make_case_previews, self._on_result, parent=self)

    def start(self, project: Project, store: PreviewStore) -> None:
        self.made, self._store = 0, store
        self.sweep.start((store, e.folder) for e in project.entries if e.is_valid)

    def ahead(self, folders: list[Path]) -> None:
        """Make the previews of *folders* (the cases ahead of the reviewer, nearest first)
        before the others."""
        if self._store is not None:
            self.sweep.put_first((self._store, folder) for folder in folders)

    def _on_result(self, _args: tuple, made: int | None) -> None:
        self.made += made or 0
