"""A repair made elsewhere: the repair artist's own patch or full image from an editor."""

from __future__ import annotations

from pathlib import Path

from sabre_desk.engines.base import ALL_OPS, EngineReply, EngineRequest, check_cancelled
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.io import load_image
from sabre_desk.imaging.patch import crop


class FileEngine:
    name = "file"
    ops = ALL_OPS

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else None

    def unavailable_reason(self) -> str | None:
        return None if self.path else "choose the image file to use"

    def close(self) -> None:
        """Nothing is held between repairs."""

    def repair(self, request: EngineRequest) -> EngineReply:
        check_cancelled(request)
        if self.path is None:
            raise RepairError("no file chosen for the file engine")
        pixels = load_image(self.path)
        h, w = pixels.shape[:2]
        full_w, full_h = request.image_size
        patch_h, patch_w = request.patch.shape[:2]
        if (w, h) == (full_w, full_h):
            return EngineReply(
                crop(pixels, request.patch_rect),
                notes=[f"patch cut from the full image {self.path.name}"],
            )
        notes = [f"patch from {self.path.name}"]
        if (w, h) != (patch_w, patch_h):
            notes.append(f"resized from {w}×{h} to the patch's {patch_w}×{patch_h}")
        return EngineReply(pixels, notes=notes)
