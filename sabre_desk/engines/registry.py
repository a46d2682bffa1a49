"""Engines by name, for the CLI, the GUI and settings."""

from __future__ import annotations

from pathlib import Path

from sabre_desk.engines.base import RepairEngine, RepairOp
from sabre_desk.engines.file import FileEngine
from sabre_desk.engines.gemini import DEFAULT_MODEL, DEFAULT_TIMEOUT_S, GeminiEngine
from sabre_desk.engines.opencv import METHODS, OpenCVEngine

#: Every engine by name with the operations it can do: the one list the CLI, the window
#: and the settings read.
ENGINE_OPS: dict[str, frozenset[RepairOp]] = {
    **{name: OpenCVEngine.ops for name in METHODS},
    "gemini": GeminiEngine.ops,
    "file": FileEngine.ops,
}
ENGINE_NAMES = tuple(ENGINE_OPS)
#: The engine a repair uses when none is chosen: offline, and the best of them measured.
OFFLINE_DEFAULT = next(iter(METHODS))
ENGINE_LABELS = {
    "opencv-fsr": "OpenCV frequency-selective inpainting, offline (keeps texture)",
    "opencv-telea": "OpenCV inpainting (Telea), offline",
    "opencv-ns": "OpenCV inpainting (Navier-Stokes), offline",
    "gemini": "Gemini image model",
    "file": "An image made in another editor",
}


def make_engine(
    name: str,
    model: str | None = None,
    file: Path | str | None = None,
    base_url: str | None = None,
    timeout_s: float | None = None,
) -> RepairEngine:
    if name in METHODS:
        return OpenCVEngine(name)
    if name == "gemini":
        timeout = timeout_s or DEFAULT_TIMEOUT_S
        return GeminiEngine(model or DEFAULT_MODEL, base_url=base_url, timeout_s=timeout)
    if name == "file":
        return FileEngine(file)
    raise ValueError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
