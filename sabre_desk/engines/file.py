"""A repair made elsewhere: the repair artist's own patch or full image from an editor."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from sabre_desk.engines.base import (
    ALL_OPS,
    EngineParam,
    EngineReply,
    EngineRequest,
    ParamKind,
    RepairOp,
    check_cancelled,
)
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.io import load_image
from sabre_desk.imaging.patch import crop


class FileEngine:
    name: ClassVar[str] = "file"
    label: ClassVar[str] = "An image made in another editor"
    ops: ClassVar[frozenset[RepairOp]] = ALL_OPS
    params: ClassVar[tuple[EngineParam, ...]] = (
        EngineParam(
            "file",
            "Image file",
            "the image made in another editor (the full image, or just the patch)",
            kind=ParamKind.IMAGE_FILE,
            metavar="IMAGE",
            required=True,
        ),
    )
    cpu_bound: ClassVar[bool] = False
    uses_network: ClassVar[bool] = False
    fills_vary: ClassVar[bool] = False
    quick_preview: ClassVar[str | None] = None

    def __init__(self, file: Path | str | None = None):
        self.path = Path(file) if file else None

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None  # (a file not chosen is a missing value of its ``file`` parameter)

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
