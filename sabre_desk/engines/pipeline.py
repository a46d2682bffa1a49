"""The repair pipeline of docs/repair.md, on arrays: box → patch → engine → fit → blend → paste."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from sabre_desk.engines.base import (
    EngineRequest,
    RepairEngine,
    RepairOp,
    Surround,
    check_cancelled,
)
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.blend import (
    BlendParams,
    OpenSides,
    blend,
    fit_to,
    paste,
    seam_score,
    soft_mask,
)
from sabre_desk.imaging.geometry import Rect
from sabre_desk.imaging.patch import (
    PixelRect,
    as_rgb8,
    box_to_pixels,
    crop,
    draw_marker,
    expand,
    marker_path,
    residual_marker_fraction,
)

DEFAULT_PARAMS = BlendParams()
#: Largest patch repaired at all (box plus context): beyond it blending alone needs
#: gigabytes, and no engine returns that much detail. A box whose usual context would pass
#: it keeps only the margin the blend needs; past that the reviewer is asked for a smaller box.
MAX_PATCH_PIXELS = 36_000_000
#: Largest patch an engine is given; a larger one is sent scaled down and its reply scaled
#: back up, so a huge box costs seconds, not the hour a full-size inpainting would.
MAX_ENGINE_PIXELS = 4_000_000
#: The surround an engine may look at (``Surround``): the box grown by this share of its
#: size on each side, and at least by SURROUND_LEAST_PX (a box of 61 pixels on the demo's
#: gingham, just above its plate, showed no repeat of the check with half its size round
#: it, and was filled with offset pieces of it: 19.5 levels of error; with its size round
#: it, the check was followed: 3.0); at most SURROUND_MOST_PIXELS in all, else the patch
#: alone.
SURROUND_SHARE = 1.5
SURROUND_LEAST_PX = 64
SURROUND_MOST_PIXELS = 4_000_000
#: Share of the marker's path still red in a reply above which the reviewer is warned.
MARKER_WARNING = 0.15


@dataclass(frozen=True)
class RepairPlan:
    rect: PixelRect  # the patch rectangle R in the image
    box: PixelRect  # the box b inside the patch
    grow_px: int
    feather_px: int
    open_sides: OpenSides


def plan_repair(
    width: int,
    height: int,
    box: tuple[float, float, float, float],
    params: BlendParams = DEFAULT_PARAMS,
) -> RepairPlan:
    box_px = box_to_pixels(box, width, height)
    grow, feather = params.resolved(box_px)
    # The margin must hold the grown box and its fall-off, or the patch border would cut it.
    margin = max(params.min_margin_px, grow + feather + 2)
    rect = expand(box_px, width, height, params.margin_fraction, margin)
    if rect.width * rect.height > MAX_PATCH_PIXELS:
        # A huge box keeps only the context the blend needs, not a share of its own size.
        rect = expand(box_px, width, height, 0.0, margin)
    return RepairPlan(
        rect, box_px.relative_to(rect), grow, feather, OpenSides.of(rect, width, height)
    )


@dataclass
class RepairOutcome:
    image: np.ndarray  # the full repaired image
    plan: RepairPlan
    reply: np.ndarray  # the engine's patch, fitted to the patch size
    mask: np.ndarray
    model: str | None
    seam: float
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for status bars and the command line."""
        return ", ".join(
            [f"seam score {self.seam:.2f}", *(["; ".join(self.warnings)] if self.warnings else [])]
        )


def surround_rect(box: PixelRect, rect: PixelRect, width: int, height: int) -> PixelRect:
    """The stretch of a ``width``×``height`` image an engine may look at round the patch
    ``rect`` of ``box`` (both in image pixels): the box grown by ``SURROUND_SHARE`` of its
    size (at least ``SURROUND_LEAST_PX``), and never less than the patch."""
    return expand(box, width, height, SURROUND_SHARE, SURROUND_LEAST_PX).around(rect)


def _surround(image: np.ndarray, box: PixelRect, rect: PixelRect) -> Surround | None:
    """The image round the patch ``rect`` (``surround_rect``), as a view: only an engine
    that reads it pays for it. None when it is no wider than the patch, or too large."""
    height, width = image.shape[:2]
    wide = surround_rect(box, rect, width, height)
    if wide == rect or wide.width * wide.height > SURROUND_MOST_PIXELS:
        return None
    return Surround(image[wide.slices], (rect.x0 - wide.x0, rect.y0 - wide.y0))


def _engine_view(patch: np.ndarray, box: PixelRect) -> tuple[np.ndarray, PixelRect, float]:
    """The patch (and the box in it) as the engine gets it: scaled down past the limit."""
    import cv2  # OpenCV loads with the first repair, not with the window

    height, width = patch.shape[:2]
    if width * height <= MAX_ENGINE_PIXELS:
        return patch, box, 1.0
    scale = (MAX_ENGINE_PIXELS / (width * height)) ** 0.5
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    small = cv2.resize(patch, size, interpolation=cv2.INTER_AREA)
    sx, sy = size[0] / width, size[1] / height
    scaled = PixelRect(
        int(box.x0 * sx),
        int(box.y0 * sy),
        max(int(box.x0 * sx) + 1, min(size[0], round(box.x1 * sx))),
        max(int(box.y0 * sy) + 1, min(size[1], round(box.y1 * sy))),
    )
    return np.ascontiguousarray(small), scaled, scale


@dataclass(frozen=True)
class RepairOrder:
    """What the reviewer asked for, passed whole from the window or the command line down
    to the pipeline: one box (normalized, on the image as displayed), one operation, the
    instruction for a generative engine, and the blend's parameters."""

    box: Rect
    op: RepairOp
    instruction: str
    params: BlendParams = DEFAULT_PARAMS
    #: which of the engine's fills of this box (``EngineRequest.variant``): the command line
    #: and the window give each repair of a box the next (``comparison.next_variant``)
    variant: int = 0

    def __post_init__(self) -> None:
        # "remove" from a command line or a saved record becomes the enum (ValueError if bad)
        object.__setattr__(self, "op", RepairOp(self.op))


def run_repair(
    image: np.ndarray,
    order: RepairOrder,
    engine: RepairEngine,
    cancel: threading.Event | None = None,
) -> RepairOutcome:
    """Carry out *order* on *image* with *engine*. Pixels outside the patch are bit-identical."""
    image = as_rgb8(image)
    height, width = image.shape[:2]
    plan = plan_repair(width, height, order.box, order.params)
    patch_pixels = plan.rect.width * plan.rect.height
    if patch_pixels > MAX_PATCH_PIXELS:
        raise RepairError(
            f"the box is too large to repair: its patch is {plan.rect.width}×"
            f"{plan.rect.height} = {patch_pixels / 1e6:.0f} MP, the limit is "
            f"{MAX_PATCH_PIXELS / 1e6:.0f} MP; draw a smaller box or repair it in parts"
        )
    patch = crop(image, plan.rect)
    sent, sent_box, scale = _engine_view(patch, plan.box)
    request = EngineRequest(
        op=order.op,
        instruction=order.instruction,
        patch=sent,
        marked=draw_marker(sent, sent_box),
        box=sent_box,
        patch_rect=plan.rect,
        image_size=(width, height),
        cancel=cancel or threading.Event(),
        variant=order.variant,
    )
    if scale == 1.0:
        request.surround = _surround(image, box_to_pixels(order.box, width, height), plan.rect)
    reply = engine.repair(request)
    check_cancelled(request)
    raw = as_rgb8(reply.patch)
    if raw.size == 0:
        raise RepairError(f"{engine.name} returned an empty image")
    fitted = fit_to(raw, plan.rect.height, plan.rect.width)
    warnings: list[str] = []
    notes = list(reply.notes)
    if scale < 1.0:
        notes.insert(
            0,
            f"the {patch.shape[1]}×{patch.shape[0]} patch was sent at {sent.shape[1]}×"
            f"{sent.shape[0]} (over {MAX_ENGINE_PIXELS / 1e6:.0f} MP) and its reply scaled back",
        )
    if raw.shape[:2] != fitted.shape[:2]:
        notes.append(
            f"reply {raw.shape[1]}×{raw.shape[0]} fitted to the patch "
            f"{fitted.shape[1]}×{fitted.shape[0]}"
        )
    if float(fitted.std()) < 1.0:
        warnings.append("the reply is a flat, single-colour image")
    leftover = residual_marker_fraction(fitted, marker_path(fitted.shape[:2], plan.box))
    if leftover > MARKER_WARNING:
        warnings.append(
            f"the red marker is still visible in the reply ({leftover:.0%} of its "
            "outline): the engine may have copied it; check the edges"
        )
    mask = soft_mask(patch.shape[:2], plan.box, plan.grow_px, plan.feather_px, plan.open_sides)
    blended = blend(patch, fitted, mask)
    result = paste(image, blended, plan.rect)
    seam = seam_score(patch, blended, mask)
    return RepairOutcome(result, plan, fitted, mask, reply.model, seam, warnings, notes)
