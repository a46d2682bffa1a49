"""Offline inpainting with OpenCV (Telea or Navier-Stokes): the laptop default.

Fills the box from its surroundings, which suits removing a leftover fragment, cleaning an
artifact or restoring background; it cannot draw a new object, so swap is refused.
"""

from __future__ import annotations

import cv2
import numpy as np

from sabre_desk.engines.base import EngineReply, EngineRequest, RepairOp, check_cancelled
from sabre_desk.ground.errors import EngineUnavailableError

METHODS = {"opencv-telea": cv2.INPAINT_TELEA, "opencv-ns": cv2.INPAINT_NS}
#: Inpainting costs (pixels in the box) × radius²; past this radius a large box takes
#: minutes for no visible gain (the fill is smooth either way).
MAX_RADIUS = 12


class OpenCVEngine:
    ops = frozenset({RepairOp.REMOVE, RepairOp.CLEAN, RepairOp.RESTORE})
    #: computes here, on this machine's cores: the window runs it in a worker process
    cpu_bound = True

    def __init__(self, name: str = "opencv-telea", radius: int | None = None):
        if name not in METHODS:
            raise ValueError(f"unknown OpenCV engine {name!r}")
        self.name = name
        self.radius = radius

    def unavailable_reason(self) -> str | None:
        return None

    def repair(self, request: EngineRequest) -> EngineReply:
        check_cancelled(request)
        if request.op not in self.ops:
            raise EngineUnavailableError(
                f"{request.op.value} needs a generative engine (gemini, or a file made in an "
                f"editor): {self.name} can only fill the box from its surroundings"
            )
        h, w = request.patch.shape[:2]
        mask = np.zeros((h, w), np.uint8)
        b = request.box
        pad = 2  # inpaint slightly beyond the box so no edge of the object survives
        mask[max(0, b.y0 - pad) : min(h, b.y1 + pad), max(0, b.x0 - pad) : min(w, b.x1 + pad)] = 255
        radius = self.radius or min(MAX_RADIUS, max(3, min(b.width, b.height) // 8))
        # OpenCV works in BGR; inpainting is channel-symmetric, so RGB in, RGB out is fine.
        filled = cv2.inpaint(request.patch, mask, radius, METHODS[self.name])
        return EngineReply(filled, model=None, notes=[f"{self.name}, radius {radius}px"])
