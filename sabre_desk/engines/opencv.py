"""Offline inpainting with OpenCV: the laptop's engine when there is no network.

Fills the box from its surroundings, which suits removing a leftover fragment, cleaning an
artifact or restoring background; it cannot draw a new object, so swap is refused.

The default is the frequency-selective reconstruction of ``cv2.xphoto`` (FSR, from the
contrib build): measured on real photographs with a known background under the box
(`benchmarks/offline_inpaint.py`) it leaves less error than Telea and keeps about 2.5× the
texture, where Telea and Navier-Stokes fill the box with a smooth smear (the kind of result
that got no votes in the paper's repair study). Telea and Navier-Stokes stay, being ~6×
faster.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from sabre_desk.engines.base import EngineReply, EngineRequest, RepairOp, check_cancelled
from sabre_desk.ground.errors import EngineUnavailableError

#: FSR's time grows with the pixels to fill (about 1 s per 18,000 on one core); a larger box
#: is filled at a lower resolution and scaled up into place, so no repair takes minutes.
FSR_MAX_FILL = 60_000


def _fsr_at_full_size(patch: np.ndarray, mask: np.ndarray) -> np.ndarray:
    out = np.zeros_like(patch)
    # xphoto's mask is the opposite of cv2.inpaint's: 0 marks the pixels to fill.
    cv2.xphoto.inpaint(patch, 255 - mask, out, cv2.xphoto.INPAINT_FSR_FAST)
    return out


def _fsr(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
    fill = int(np.count_nonzero(mask))
    if fill <= FSR_MAX_FILL:
        return _fsr_at_full_size(patch, mask)
    h, w = mask.shape
    scale = (FSR_MAX_FILL / fill) ** 0.5
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    small = cv2.resize(patch, size, interpolation=cv2.INTER_AREA)
    small_mask = cv2.dilate(
        cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST), np.ones((3, 3), np.uint8)
    )
    filled = cv2.resize(_fsr_at_full_size(small, small_mask), (w, h), interpolation=cv2.INTER_CUBIC)
    out = patch.copy()
    out[mask > 0] = filled[mask > 0]
    return out


def _classic(kind: int) -> Callable[[np.ndarray, np.ndarray, int], np.ndarray]:
    return lambda patch, mask, radius: cv2.inpaint(patch, mask, radius, kind)


#: Offline engines by name, the default first.
METHODS: dict[str, Callable[[np.ndarray, np.ndarray, int], np.ndarray]] = {
    "opencv-fsr": _fsr,
    "opencv-telea": _classic(cv2.INPAINT_TELEA),
    "opencv-ns": _classic(cv2.INPAINT_NS),
}
#: Inpainting costs (pixels in the box) × radius²; past this radius a large box takes
#: minutes for no visible gain (the fill is smooth either way).
MAX_RADIUS = 12


class OpenCVEngine:
    ops = frozenset({RepairOp.REMOVE, RepairOp.CLEAN, RepairOp.RESTORE})
    #: computes here, on this machine's cores: the window runs it in a worker process
    cpu_bound = True

    def __init__(self, name: str = "opencv-fsr", radius: int | None = None):
        if name not in METHODS:
            raise ValueError(f"unknown OpenCV engine {name!r}")
        self.name = name
        self.radius = radius

    def unavailable_reason(self) -> str | None:
        return None

    def close(self) -> None:
        """Nothing is held between repairs."""

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
        filled = METHODS[self.name](request.patch, mask, radius)
        note = self.name if self.name == "opencv-fsr" else f"{self.name}, radius {radius}px"
        return EngineReply(filled, model=None, notes=[note])
