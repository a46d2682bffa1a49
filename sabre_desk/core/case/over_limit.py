"""A review an earlier version wrote past a limit still opens, and nothing of it is lost.

Versions before the one table of limits (``ground.limits``) could save notes longer than
the reader accepts; the case then no longer opened. Such a file is now read with each
over-long text cut at its limit, after the whole file, as it was, is kept beside it
(``reviews/<reviewer>.json.over-limit-<fingerprint>``): the reviewer works on, is told
what was cut and where the rest lies, and the next save writes a file within the limits.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sabre_desk.ground.storage import atomic_write_bytes, fingerprint

#: pydantic's type for a string past its ``max_length`` (the one kind of error cut here)
TOO_LONG = "string_too_long"
SIDE_SUFFIX = ".over-limit-"


def cut_to_limits(data: Any, exc: ValidationError) -> tuple[Any, list[str]] | None:
    """*data* with every over-long text cut at its limit, and what was cut, in words; None
    when the file has any other problem (it is then reported as before, untouched)."""
    errors = exc.errors(include_url=False)
    if not errors or any(e.get("type") != TOO_LONG for e in errors):
        return None
    cut = copy.deepcopy(data)
    said: list[str] = []
    for err in errors:
        loc, most = tuple(err.get("loc", ())), int((err.get("ctx") or {}).get("max_length", 0))
        holder: Any = cut
        try:
            for key in loc[:-1]:
                holder = holder[key]
            text = holder[loc[-1]]
        except (KeyError, IndexError, TypeError):
            return None
        if not isinstance(text, str) or not loc:
            return None
        holder[loc[-1]] = text[:most]
        where = ".".join(str(k) for k in loc)
        said.append(f"{where} had {len(text):,} characters; cut at the limit of {most:,}")
    return cut, said


def side_path(path: Path, raw: bytes) -> Path:
    """Where the whole file is kept: named by its fingerprint, so opening the case again
    before a save keeps one copy, not one per opening. Its name does not end in ``.json``,
    so it is never read as another reviewer's review."""
    digest = (fingerprint(raw) or "")[:16]
    return path.with_name(f"{path.name}{SIDE_SUFFIX}{digest}")


def keep_whole(path: Path, raw: bytes) -> Path:
    """Write the file as it was beside it (atomically; StorageError when it cannot be)."""
    side = side_path(path, raw)
    if not side.exists():
        atomic_write_bytes(side, raw)
    return side
