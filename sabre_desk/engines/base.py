"""The small protocol every repair engine speaks.

An engine sees only the patch (clean and marked copies) and the box inside it, never the
full image; it returns a repaired patch of any size, which the pipeline fits and blends.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

import numpy as np

from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.patch import PixelRect


class RepairOp(StrEnum):
    """What a repair does to the box: the one list of operations, everywhere."""

    REMOVE = "remove"
    SWAP = "swap"
    CLEAN = "clean"
    RESTORE = "restore"


ALL_OPS: frozenset[RepairOp] = frozenset(RepairOp)


@dataclass
class EngineRequest:
    op: RepairOp
    instruction: str
    patch: np.ndarray  # RGB uint8, the clean crop
    marked: np.ndarray  # the same crop with the red marker around the box
    box: PixelRect  # the box, in patch coordinates
    patch_rect: PixelRect  # where the patch sits in the full image
    image_size: tuple[int, int]  # (width, height) of the full image
    cancel: threading.Event = field(default_factory=threading.Event)


@dataclass
class EngineReply:
    patch: np.ndarray  # RGB uint8, any size
    model: str | None = None
    notes: list[str] = field(default_factory=list)


class RepairEngine(Protocol):
    name: str
    ops: frozenset[RepairOp]

    def unavailable_reason(self) -> str | None:
        """Why this engine cannot run here (shown in the GUI), or None when it can."""
        ...

    def repair(self, request: EngineRequest) -> EngineReply: ...

    def close(self) -> None:
        """Let go of what the engine holds between repairs (a network client); the owner of
        an engine calls it when done with it."""
        ...


class RepairCancelledError(RepairError):
    """The reviewer cancelled the job."""


def check_cancelled(request: EngineRequest) -> None:
    if request.cancel.is_set():
        raise RepairCancelledError("repair cancelled")
