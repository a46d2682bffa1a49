"""Full resolution when the zoom needs it: a canvas showing a preview that is zoomed past
the preview's detail gets the full image decoded and swapped in, in place.

The preview has the full image's geometry, so the swap moves nothing; until the full image
arrives the canvas paints the preview's best level, magnified.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.machinery.image_loader import ImageLoader, Key
from sabre_desk.gui.machinery.qimage import DisplayImage


class FullResolution(QObject):
    def __init__(self, loader: ImageLoader, compare: CompareView, parent: QObject | None = None):
        super().__init__(parent)
        self.loader, self.compare = loader, compare
        loader.view_scale = lambda: compare.view_scale  # previews read at the detail shown
        self._shown: dict[ImageRole, Key] = {}
        for role, canvas in compare.canvases.items():
            canvas.image_changed.connect(lambda r=role: self._shown.pop(r, None))
            canvas.detail_needed.connect(lambda r=role: self._on_detail_needed(r))
        loader.loaded.connect(self._on_loaded)

    def shown(self, role: ImageRole, key: Key) -> None:
        """The canvas of *role* now shows the image of *key* (call after ``set_image``)."""
        self._shown[role] = key
        canvas = self.compare.canvases[role]
        held = self.loader.cached(key)
        if held is not None and not held.is_preview:
            canvas.upgrade_image(held)
        canvas.check_detail()

    def _on_detail_needed(self, role: ImageRole) -> None:
        key = self._shown.get(role)
        if key is not None:
            self.loader.request(Path(key[0]), full=True)

    def _on_loaded(self, key: Key, image: DisplayImage) -> None:
        if image.is_preview:
            return
        for role, shown in self._shown.items():
            if shown == key:
                self.compare.canvases[role].upgrade_image(image)
