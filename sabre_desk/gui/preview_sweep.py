"""The preview sweep: when the reviewer pauses, the previews still missing are made, one
case at a time, so that later a jump to any case shows it at once."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from sabre_desk.core.preview_cache import PreviewStore
from sabre_desk.core.project import Project
from sabre_desk.core.spec import ImageRole
from sabre_desk.gui.idle_sweep import IdleSweep, Submit
from sabre_desk.imaging.io import find_image


def make_case_previews(store: PreviewStore, folder: Path) -> int:
    """Store the missing previews of one case's images; how many were written."""
    made = 0
    for role in ImageRole:
        path = find_image(folder, role.value)
        if path is not None and not path.is_symlink():
            try:
                made += store.make(path)
            except Exception:  # an image that cannot be decoded has no preview; validate says why
                continue
    return made


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
