"""Repair engines that exist only in tests, for registering in ``ENGINES`` (monkeypatched):
the command line and the Repair panel must offer them with no other change."""

from __future__ import annotations

import threading
from typing import ClassVar

import numpy as np

from sabre_desk.engines.base import (
    EngineParam,
    EngineReply,
    EngineRequest,
    RepairOp,
    check_cancelled,
)


class TintEngine:
    """Paints the whole patch one colour, the colour being a value of its own."""

    name: ClassVar[str] = "tint"
    label: ClassVar[str] = "Paint the box one colour (a test engine)"
    ops: ClassVar[frozenset[RepairOp]] = frozenset({RepairOp.REMOVE, RepairOp.CLEAN})
    params: ClassVar[tuple[EngineParam, ...]] = (
        EngineParam(
            "colour",
            "Colour",
            "the colour to paint, as R,G,B",
            metavar="R,G,B",
            default="0,200,0",
        ),
    )
    cpu_bound: ClassVar[bool] = False  # a thread: this class is not in the worker processes
    uses_network: ClassVar[bool] = False
    fills_vary: ClassVar[bool] = False
    quick_preview: ClassVar[str | None] = None

    def __init__(self, colour: str = "0,200,0") -> None:
        self.colour = tuple(int(v) for v in colour.split(","))

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return None

    def close(self) -> None:
        """Nothing is held."""

    def repair(self, request: EngineRequest) -> EngineReply:
        check_cancelled(request)
        return EngineReply(np.full_like(request.patch, self.colour), notes=["tinted"])


class UnpluggedEngine(TintEngine):
    """An engine that can never run here, and says why."""

    name: ClassVar[str] = "unplugged"
    label: ClassVar[str] = "An engine whose server is switched off (a test engine)"
    params: ClassVar[tuple[EngineParam, ...]] = ()
    REASON = "needs the tint server, which is not running on this machine"

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return cls.REASON


class GatedEngine(TintEngine):
    """A slow engine with a quick preview (``tint``): its own result waits until the test
    opens ``gate``, so a test decides what the reviewer does before the better one lands."""

    name: ClassVar[str] = "gated"
    label: ClassVar[str] = "A slow engine whose result waits for the test (a test engine)"
    params: ClassVar[tuple[EngineParam, ...]] = ()
    quick_preview: ClassVar[str | None] = "tint"
    gate: ClassVar[threading.Event] = threading.Event()
    COLOUR = (0, 0, 200)

    def __init__(self) -> None:
        super().__init__(",".join(map(str, self.COLOUR)))

    def repair(self, request: EngineRequest) -> EngineReply:
        while not self.gate.wait(0.02):
            check_cancelled(request)
        return EngineReply(np.full_like(request.patch, self.colour), notes=["gated"])
