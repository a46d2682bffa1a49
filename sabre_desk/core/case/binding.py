"""A decision is about the images it was made on.

Each decision records the SHA-256 of its case's images (``decided_on``) and when it was made
(``decided_at``). Once an image is replaced — a repair accepted or reverted, by anyone — a
decision made on the old pixels is *stale*: it no longer counts towards the final decision
or the agreement figures, and its reviewer sees the case as "Needs recheck" again. A revert
that puts the original back makes a decision made on the original count again: it judged
exactly these pixels. Reviews written before decisions were bound (format version 1) carry
no hashes and are never stale.

Hashing reads the image, so it is remembered by file identity (``ground.hashing``); the
window asks only for remembered hashes on its own thread and lets a worker read the files.
"""

from __future__ import annotations

import calendar
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sabre_desk.core.case.review import Decision, Review, utc_now
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.ground.hashing import file_sha256, remembered_sha256
from sabre_desk.imaging.io import IMAGE_EXTENSIONS, find_image

Hashes = dict[ImageRole, str]

#: Clock granularity of ``decided_at`` (whole seconds) plus a margin for a file server's
#: clock: an image changed this close to a decision is hashed rather than trusted.
MTIME_MARGIN_S = 2.0


def _regular(path: Path) -> bool:
    """Only a regular file is hashed: a FIFO named ``edited.png`` would block the read."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def image_hashes(images: Mapping[ImageRole, Path], compute: bool = True) -> Hashes | None:
    """The SHA-256 of each image; with *compute* False only remembered ones, and None when
    any would have to be read. An image that cannot be read is left out (it is reported
    elsewhere; a decision cannot be bound to it)."""
    hashes: Hashes = {}
    for role, path in images.items():
        if not _regular(path):
            continue
        try:
            digest = file_sha256(path) if compute else remembered_sha256(path)
        except OSError:
            continue
        if digest is None:
            return None
        hashes[role] = digest
    return hashes


def folder_hashes(folder: Path, roles: tuple[ImageRole, ...]) -> Hashes:
    """The hashes of the images now in a case folder (after one was replaced)."""
    images = {role: path for role in roles if (path := find_image(folder, role.value))}
    return image_hashes(images) or {}


def is_stale(review: Review, hashes: Hashes | None) -> bool:
    """True when *review*'s decision was made on images that are no longer the case's.

    Unknown hashes (None) and unbound decisions (version 1) are never stale."""
    if review.decision is None or not review.decided_on or hashes is None:
        return False
    return any(hashes.get(role) != digest for role, digest in review.decided_on.items())


def effective_decision(review: Review, hashes: Hashes | None) -> Decision | None:
    """What the decision counts as now: a stale one is "needs recheck"."""
    return Decision.NEEDS_RECHECK if is_stale(review, hashes) else review.decision


def bind(review: Review, decision: Decision | None, hashes: Hashes) -> None:
    """Record *decision* as made now, on the images with *hashes*."""
    review.decision = decision
    review.decided_on = dict(hashes) if decision is not None else {}
    review.decided_at = utc_now() if decision is not None else None


def _epoch(stamp: str) -> float | None:
    """Seconds since 1970 of a ``YYYY-MM-DDTHH:MM:SSZ`` stamp (by hand: ``strptime`` would
    be a third of the index's time per decided case)."""
    if len(stamp) != 20 or stamp[10] != "T" or stamp[19] != "Z":
        return None
    try:
        return float(
            calendar.timegm(
                (
                    int(stamp[0:4]),
                    int(stamp[5:7]),
                    int(stamp[8:10]),
                    int(stamp[11:13]),
                    int(stamp[14:16]),
                    int(stamp[17:19]),
                )
            )
        )
    except ValueError:
        return None


def _image_stat(folder: str, role: str) -> tuple[Path, os.stat_result] | None:
    """The image of *role* and its ``stat`` (one call for the usual ``.png``)."""
    for ext in IMAGE_EXTENSIONS:
        path = f"{folder}{os.sep}{role}{ext}"
        try:
            return Path(path), os.stat(path)  # noqa: PTH116 - the index's hot loop
        except OSError:
            continue
    return None


def quick_stale(folder: str, review: Any, trust_mtime: bool = True) -> bool:
    """The index's check, from the raw review of one case: only an image whose file is
    newer than the decision is hashed (a stat per image otherwise), so opening a project
    reads no image that nobody replaced; without *trust_mtime* every image is hashed (a
    clock on another computer may be behind). Opening the case checks every image."""
    if not isinstance(review, dict):
        return False
    decided_on, decided_at = review.get("decided_on"), review.get("decided_at")
    if not review.get("decision") or not isinstance(decided_on, dict) or not decided_on:
        return False
    when = _epoch(decided_at) if trust_mtime and isinstance(decided_at, str) else None
    for role, digest in decided_on.items():
        found = _image_stat(folder, str(role))
        if found is None or not stat.S_ISREG(found[1].st_mode):
            return True
        path, info = found
        if when is not None and info.st_mtime < when - MTIME_MARGIN_S:
            continue
        try:
            if file_sha256(path) != digest:
                return True
        except OSError:
            return True
    return False
