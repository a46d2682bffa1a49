"""The small protocol every repair engine speaks.

An engine sees only the patch (clean and marked copies) and the box inside it, and a
wider crop round the patch to look at (``Surround``), never the full image; it returns a
repaired patch of any size, which the pipeline fits and blends.

An engine class also says what it is, for the command line and the window to show without
knowing any engine by name: its name and label, the operations it can do, whether it
computes here or waits on a network, why it cannot run on this machine (a key not set, a
library missing), and the values it takes (each one a ``--flag`` of ``sabre-desk repair``
and a field of the Repair panel). ``engines/registry.py`` lists the classes, once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import ClassVar, Protocol, TypeAlias

import numpy as np

from sabre_desk.engines.ops import RepairOp as RepairOp  # re-exported: its old home
from sabre_desk.ground.errors import RepairError
from sabre_desk.imaging.patch import PixelRect

ALL_OPS: frozenset[RepairOp] = frozenset(RepairOp)


@dataclass(frozen=True)
class Surround:
    """A wider crop of the image round the patch, to look at and never to return: a
    pattern that repeats (a gingham's check) may repeat farther apart than the patch's
    margin shows, most of all where something else (a plate) fills part of it."""

    pixels: np.ndarray  # RGB uint8, a view of the image: read, never written
    patch_at: tuple[int, int]  # (x, y) of the patch's top left corner in ``pixels``


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
    #: which of an engine's different fills of this box (0 the first): read by an engine
    #: whose fills vary, so a repair made again is another fill and each is reproducible
    variant: int = 0
    #: the image round the patch, wider (none when the patch was sent scaled down)
    surround: Surround | None = None


@dataclass
class EngineReply:
    patch: np.ndarray  # RGB uint8, any size
    model: str | None = None
    notes: list[str] = field(default_factory=list)


class ParamKind(StrEnum):
    """What kind of value an engine parameter is: how the window asks for it."""

    TEXT = "text"  # a line of text (a model name)
    IMAGE_FILE = "image file"  # an image on disk, chosen with a file dialog


class EngineSettings(Protocol):
    """The user's settings an engine parameter may take its default from. The settings
    model has these; engines only read them, and never import the settings module."""

    @property
    def gemini_model(self) -> str: ...


@dataclass(frozen=True)
class EngineParam:
    """One value an engine takes: the keyword of its class's constructor, the ``--flag`` of
    the same name (``_`` as ``-``) on the command line, and a field of the Repair panel."""

    name: str
    label: str  # the field's label in the Repair panel, in the reviewer's words
    help: str  # what the value is: the flag's help and the field's tooltip
    kind: ParamKind = ParamKind.TEXT
    metavar: str = "TEXT"
    #: The engine cannot run without a value (the panel's Repair button waits for it).
    required: bool = False
    #: The value when none is given; ``from_settings`` (if set) gives it from the settings.
    default: str | None = None
    from_settings: Callable[[EngineSettings], str] | None = None
    #: The value names the model that makes the repair, which a repair's record keeps as its
    #: ``model``: Repair again asks that same model.
    is_model: bool = False

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def default_for(self, settings: EngineSettings | None) -> str | None:
        if self.from_settings is not None and settings is not None:
            return self.from_settings(settings)
        return self.default

    @property
    def missing_reason(self) -> str:
        """What to tell the reviewer while a required value is not given."""
        verb = "choose" if self.kind is ParamKind.IMAGE_FILE else "give"
        return f"{verb} the {self.label.lower()} to use"


#: What a value of an engine parameter may be: text, or a path for an image file.
ParamValue: TypeAlias = str | Path


class RepairEngine(Protocol):
    """A repair engine. The class-level facts (``ClassVar``) are read from the class in
    the registry, before any engine is made; an instance is made for each run with the
    values of its ``params`` as keyword arguments, and closed by its owner."""

    name: ClassVar[str]  # the id on the command line and in a repair's record
    label: ClassVar[str]  # what the Repair panel's engine list shows
    ops: ClassVar[frozenset[RepairOp]]
    params: ClassVar[tuple[EngineParam, ...]]
    #: Computes on this machine's cores (the window runs it in a worker process) rather
    #: than waiting on a reply (then it runs on a thread).
    cpu_bound: ClassVar[bool]
    #: Sends the patch over the network; an offline engine never does.
    uses_network: ClassVar[bool]
    #: Its fill of a box depends on a seed (``EngineRequest.variant``): repaired again, the
    #: same box gets another fill rather than the same pixels. An engine that fills the same
    #: way every time (OpenCV's) or asks a model (which answers anew) does not.
    fills_vary: ClassVar[bool]
    #: A quicker engine whose result the window shows first while this one works (its name
    #: in the registry), or None: both previews are recorded and the reviewer compares them.
    quick_preview: ClassVar[str | None]

    @classmethod
    def unavailable_reason(cls) -> str | None:
        """Why no engine of this kind can run here now (a key not set, a library missing),
        shown in the window and on the command line; None when it can."""
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
