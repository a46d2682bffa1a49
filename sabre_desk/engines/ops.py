"""The repair operations, alone in a module: a review names them, and reading a review
(which the window does before its first paint) must not load the engines' numerical
libraries."""

from __future__ import annotations

from enum import StrEnum


class RepairOp(StrEnum):
    """What a repair does to the box: the one list of operations, everywhere."""

    REMOVE = "remove"
    SWAP = "swap"
    CLEAN = "clean"
    RESTORE = "restore"
