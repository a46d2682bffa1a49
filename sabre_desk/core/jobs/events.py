"""A minimal event: Qt-free models announce changes, views subscribe (napari's pattern).

The Qt layer adapts these to signals where it needs queued delivery; the model itself stays
importable and testable without Qt.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, ParamSpec

P = ParamSpec("P")


class Event(Generic[P]):
    """Callbacks called in the order they connected, synchronously, on emit."""

    def __init__(self) -> None:
        self._callbacks: list[Callable[P, object]] = []

    def connect(self, callback: Callable[P, object]) -> None:
        self._callbacks.append(callback)

    def disconnect(self, callback: Callable[P, object]) -> None:
        self._callbacks.remove(callback)

    def emit(self, *args: P.args, **kwargs: P.kwargs) -> None:
        for callback in list(self._callbacks):
            callback(*args, **kwargs)
