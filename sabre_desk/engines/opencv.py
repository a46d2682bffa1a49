"""Offline inpainting with OpenCV: the laptop's engine when there is no network.

Fills the box from its surroundings, which suits removing a leftover fragment, cleaning an
artifact or restoring background; it cannot draw a new object, so swap is refused.

The frequency-selective reconstruction of ``cv2.xphoto`` (FSR, from the contrib build) is
the quick preview of the patch-based default (``engines/patchmatch.py``), and the default
where numba is missing: measured on real photographs with a known background under the box
(`benchmarks/offline_inpaint.py`) it leaves a little less error than Telea and keeps more of
the texture, where Telea and Navier-Stokes fill the box with a smooth smear (the kind of
result that got no votes in the paper's repair study). Telea and Navier-Stokes stay, being
much faster.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from sabre_desk.engines.base import (
    EngineParam,
    EngineReply,
    EngineRequest,
    RepairOp,
    check_cancelled,
)
from sabre_desk.ground.errors import EngineUnavailableError, RepairError

#: FSR's time grows with the pixels to fill (about 1 s per 18,000 on one core); a larger box
#: is filled at a lower resolution and scaled up into place, so no repair takes minutes.
FSR_MAX_FILL = 60_000


def _fsr_at_full_size(patch: np.ndarray, mask: np.ndarray) -> np.ndarray:
    from sabre_desk.imaging.fsr import fsr_inpaint

    return fsr_inpaint(patch, mask > 0)


def _fsr(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
    import cv2  # OpenCV loads with the first repair, not with the window

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


#: Inpainting costs (pixels in the box) × radius²; past this radius a large box takes
#: minutes for no visible gain (the fill is smooth either way).
MAX_RADIUS = 12


class OpenCVEngine:
    """What the OpenCV engines share: the mask over the box and the radius; each one below
    is a registered engine with its own way to fill."""

    name: ClassVar[str]
    label: ClassVar[str]
    ops: ClassVar[frozenset[RepairOp]] = frozenset(
        {RepairOp.REMOVE, RepairOp.CLEAN, RepairOp.RESTORE}
    )
    params: ClassVar[tuple[EngineParam, ...]] = ()
    #: computes here, on this machine's cores: the window runs it in a worker process
    cpu_bound: ClassVar[bool] = True
    uses_network: ClassVar[bool] = False
    fills_vary: ClassVar[bool] = False  # the same pixels every time
    quick_preview: ClassVar[str | None] = None
    #: whether the fill uses the radius (said in the repair's note)
    uses_radius: ClassVar[bool] = True

    def __init__(self, radius: int | None = None):
        self.radius = radius

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None

    def close(self) -> None:
        """Nothing is held between repairs."""

    @staticmethod
    def fill(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
        raise NotImplementedError

    def fill_request(self, request: EngineRequest, mask: np.ndarray, radius: int) -> np.ndarray:
        """The fill for one request; an engine that works in steps overrides it to watch
        the request's cancel event between them."""
        return self.fill(request.patch, mask, radius)

    def repair(self, request: EngineRequest) -> EngineReply:
        check_cancelled(request)
        if request.op not in self.ops:
            raise EngineUnavailableError(
                f"{request.op.value} needs a generative engine: {self.name} can only fill the "
                "box from its surroundings"
            )
        h, w = request.patch.shape[:2]
        mask = np.zeros((h, w), np.uint8)
        b = request.box
        pad = 2  # inpaint slightly beyond the box so no edge of the object survives
        mask[max(0, b.y0 - pad) : min(h, b.y1 + pad), max(0, b.x0 - pad) : min(w, b.x1 + pad)] = 255
        if mask.all():
            # FSR made up colours from nothing (a magenta box), Telea left the box as it was
            raise RepairError(
                f"the box covers the whole image: {self.name} fills a box from the photo round "
                "it, and none is left; draw the box round the defect, inside the image"
            )
        radius = self.radius or min(MAX_RADIUS, max(3, min(b.width, b.height) // 8))
        # OpenCV works in BGR; inpainting is channel-symmetric, so RGB in, RGB out is fine.
        filled = self.fill_request(request, mask, radius)
        note = f"{self.name}, radius {radius}px" if self.uses_radius else self.name
        return EngineReply(filled, model=None, notes=[note])


class FsrEngine(OpenCVEngine):
    """Frequency-selective reconstruction: the quick preview of the patch-based default."""

    name: ClassVar[str] = "opencv-fsr"
    label: ClassVar[str] = "OpenCV frequency-selective inpainting, offline (keeps texture)"
    uses_radius: ClassVar[bool] = False

    @classmethod
    def unavailable_reason(cls) -> str | None:
        import cv2  # OpenCV loads with the first repair, not with the window

        if not hasattr(cv2, "xphoto"):
            return (
                "needs the contrib build of OpenCV (opencv-contrib-python-headless), which "
                "has cv2.xphoto; this OpenCV has not"
            )
        return None

    @staticmethod
    def fill(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
        return _fsr(patch, mask, radius)


class TeleaEngine(OpenCVEngine):
    name: ClassVar[str] = "opencv-telea"
    label: ClassVar[str] = "OpenCV inpainting (Telea), offline"

    @staticmethod
    def fill(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
        import cv2  # OpenCV loads with the first repair, not with the window

        return cv2.inpaint(patch, mask, radius, cv2.INPAINT_TELEA)


class NavierStokesEngine(OpenCVEngine):
    name: ClassVar[str] = "opencv-ns"
    label: ClassVar[str] = "OpenCV inpainting (Navier-Stokes), offline"

    @staticmethod
    def fill(patch: np.ndarray, mask: np.ndarray, radius: int) -> np.ndarray:
        import cv2  # OpenCV loads with the first repair, not with the window

        return cv2.inpaint(patch, mask, radius, cv2.INPAINT_NS)
