"""How much memory the window may keep decoded images in: a share of what the machine has
free, between a floor and a ceiling (both in the settings), so an 8 GB laptop and a 64 GB
workstation both behave."""

from __future__ import annotations

import contextlib
import ctypes
import sys

import psutil

MB = 1024 * 1024
#: The share of the memory free now that the image cache may take.
SHARE_OF_FREE = 0.125


def free_memory() -> int:
    """Bytes the OS can give without swapping (psutil's "available")."""
    return int(psutil.virtual_memory().available)


def image_cache_budget(floor_mb: int, ceiling_mb: int, available: int | None = None) -> int:
    """The image cache's budget in bytes: ``SHARE_OF_FREE`` of *available* (default: free
    now), at least *floor_mb* and at most *ceiling_mb*."""
    free = free_memory() if available is None else available
    return int(min(max(free * SHARE_OF_FREE, floor_mb * MB), max(floor_mb, ceiling_mb) * MB))


#: glibc's mallopt parameter for the size from which a block gets a mapping of its own.
_M_MMAP_THRESHOLD = -3


def return_freed_images_to_the_os() -> None:
    """Make every freed image buffer go back to the OS at once (glibc only).

    Once glibc has seen a large block freed it raises the size from which blocks get a
    mapping of their own to as much as 32 MB, so decoded images (4–16 MB each) then come
    from its heaps, and a window that has decoded hundreds of them keeps far more than it
    holds. A fixed 1 MB threshold gives each image buffer its own mapping, unmapped when
    it is freed.
    """
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).mallopt(_M_MMAP_THRESHOLD, 1 << 20)
