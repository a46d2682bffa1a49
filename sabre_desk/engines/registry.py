"""Every repair engine, registered once, by its class.

The command line (``--engine`` and its help, a flag per engine value) and the Repair panel
(its engine list, the fields of the chosen engine) are built from ``ENGINES``; neither
knows any engine by name. A new engine is a class with the attributes of ``RepairEngine``
and one line here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sabre_desk.engines.base import (
    EngineParam,
    EngineSettings,
    ParamKind,
    ParamValue,
    RepairEngine,
    RepairOp,
)
from sabre_desk.engines.file import FileEngine
from sabre_desk.engines.gemini import GeminiEngine
from sabre_desk.engines.opencv import FsrEngine, NavierStokesEngine, OpenCVEngine, TeleaEngine
from sabre_desk.engines.patchmatch import PatchMatchEngine
from sabre_desk.ground.errors import EngineUnavailableError

#: Engines by name, in the order they are offered; the first offline one that runs here
#: is the default (patch-based completion: offline, and the best of them measured; where
#: numba is missing, FSR).
ENGINES: dict[str, type[RepairEngine]] = {
    PatchMatchEngine.name: PatchMatchEngine,
    FsrEngine.name: FsrEngine,
    TeleaEngine.name: TeleaEngine,
    NavierStokesEngine.name: NavierStokesEngine,
    GeminiEngine.name: GeminiEngine,
    FileEngine.name: FileEngine,
}


#: The engines' results from the best to the least good, each with the short name its result
#: goes by ("Accept Patch-based result"). Where one box has results of several engines, the
#: best that has arrived is the one shown and selected, whatever order they arrived in: a
#: quick preview never replaces the better result it stands in for. The artist's own file
#: and a model's edit are asked for by name, so they rank first; OpenCV's fills last.
BY_QUALITY: dict[str, str] = {
    FileEngine.name: "File",
    GeminiEngine.name: "Gemini",
    PatchMatchEngine.name: "Patch-based",
    TeleaEngine.name: "Telea",
    NavierStokesEngine.name: "Navier-Stokes",
    FsrEngine.name: "quick FSR",
}


def quality_rank(name: str) -> int:
    """0 for the best engine's result; an engine not ranked (an old review's) comes last."""
    order = list(BY_QUALITY)
    return order.index(name) if name in BY_QUALITY else len(order)


def result_name(name: str) -> str:
    """What a result of engine *name* is called: "Patch-based"."""
    return BY_QUALITY.get(name, name)


class MissingValueError(EngineUnavailableError):
    """An engine was asked for without a value it cannot run without (the file engine's
    image); ``param`` says which, so the caller can name its flag or its field."""

    def __init__(self, engine: type[RepairEngine], param: EngineParam):
        self.engine, self.param = engine, param
        super().__init__(param.missing_reason)


def engine_names() -> tuple[str, ...]:
    return tuple(ENGINES)


def engine_class(name: str) -> type[RepairEngine]:
    try:
        return ENGINES[name]
    except KeyError:
        raise EngineUnavailableError(
            f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}"
        ) from None


def default_engine() -> str:
    """The engine a repair uses when none is chosen: the first registered one that is
    offline, needs no value and runs here."""
    for cls in ENGINES.values():
        needs = any(p.required for p in cls.params)
        if not cls.uses_network and not needs and cls.unavailable_reason() is None:
            return cls.name
    return next(iter(ENGINES))


def preview_chain(name: str) -> tuple[str, ...]:
    """The engines a repair with ``name`` runs, in the order their previews land: the
    engine's quick preview first when it has one that runs here (so the reviewer sees a
    result at once), then the engine itself."""
    quick = engine_class(name).quick_preview
    if quick is None or quick == name or quick not in ENGINES:
        return (name,)
    if ENGINES[quick].unavailable_reason() is not None:
        return (name,)
    return (quick, name)


#: The radius of a diffusion fill standing in for a slower engine: a quarter of the time of
#: the radius Telea picks for an ordinary box (0.10 s against 0.41 s on a 200×200 box), for a
#: preview the better result replaces a second later. Its time is a core taken from that
#: result on a laptop of two.
STAND_IN_RADIUS = 4


def make_stand_in(name: str, *, settings: EngineSettings | None = None) -> RepairEngine:
    """The quick preview engine ``name`` made as a stand-in (a diffusion fill's radius kept
    small); raises as ``make_engine`` does."""
    engine = make_engine(name, settings=settings)
    if isinstance(engine, OpenCVEngine) and engine.uses_radius and engine.radius is None:
        engine.radius = STAND_IN_RADIUS
    return engine


def engines_for(op: RepairOp) -> list[type[RepairEngine]]:
    """The engines that can do ``op``, in the registry's order."""
    return [cls for cls in ENGINES.values() if op in cls.ops]


def missing_values(
    cls: type[RepairEngine], values: Mapping[str, ParamValue | None]
) -> list[EngineParam]:
    """The required values of ``cls`` that ``values`` does not give."""
    return [p for p in cls.params if p.required and not values.get(p.name)]


def make_engine(
    name: str, *, settings: EngineSettings | None = None, **values: ParamValue | None
) -> RepairEngine:
    """An engine of the registered class ``name``, ready to run, made with the values of
    its parameters (a value left out, None or empty takes the parameter's default, from
    ``settings`` when it has one). Values for parameters this engine does not take are
    ignored, so one set of command-line flags serves every engine.

    Raises EngineUnavailableError when the engine is unknown or cannot run here, and its
    MissingValueError when a required value is missing."""
    cls = engine_class(name)
    reason = cls.unavailable_reason()
    if reason:
        raise EngineUnavailableError(reason)
    missing = missing_values(cls, values)
    if missing:
        raise MissingValueError(cls, missing[0])
    kwargs: dict[str, ParamValue] = {}
    for param in cls.params:
        value = values.get(param.name) or param.default_for(settings)
        if value:
            kwargs[param.name] = _as_kind(param, value)
    return cls(**kwargs)


def _as_kind(param: EngineParam, value: ParamValue) -> ParamValue:
    return Path(value) if param.kind is ParamKind.IMAGE_FILE else str(value)
