"""A review an earlier version wrote past a limit still opens, and nothing of it is lost.

Versions before the one table of limits (``ground.limits``) could save notes longer than
the reader accepts; the case then no longer opened. Such a file is now read with each
over-long text cut at its limit and each list with too many items cut to its first ones,
after the whole file, as it was, is kept beside it
(``reviews/<reviewer>.json.over-limit-<fingerprint>``): the reviewer works on, is told
what was cut and where the rest lies, and the next save writes a file within the limits.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from sabre_desk.ground.storage import atomic_write_bytes, fingerprint

#: pydantic's types for a string past its ``max_length`` and for a list or mapping past
#: its number of items (the only kinds of error cut here)
TOO_LONG = "string_too_long"
TOO_MANY = "too_long"
KEY = "[key]"
SIDE_SUFFIX = ".over-limit-"


def _holder(data: Any, loc: tuple[Any, ...]) -> Any:
    """The container at *loc* in *data* (KeyError, IndexError or TypeError when gone)."""
    holder = data
    for key in loc:
        holder = holder[key]
    return holder


def _cut_items(cut: Any, loc: tuple[Any, ...], most: int) -> str | None:
    """Keep the first *most* items of the list or mapping at *loc*; what was cut, in words."""
    parent, name = _holder(cut, loc[:-1]), loc[-1]
    items = parent[name]
    if isinstance(items, list):
        parent[name] = items[:most]
    elif isinstance(items, dict):
        parent[name] = dict(list(items.items())[:most])
    else:
        return None
    where = ".".join(str(k) for k in loc)
    return f"{where} had {len(items):,} items; the first {most:,} are kept"


def _cut_text(cut: Any, loc: tuple[Any, ...], most: int) -> str | None:
    """Cut the text at *loc* (a value, or with ``[key]`` last a mapping's key) at *most*."""
    if loc[-1] == KEY:  # a mapping's key: the entry moves to the key cut at the limit
        mapping, key = _holder(cut, loc[:-2]), loc[-2]
        if not isinstance(mapping, dict) or not isinstance(key, str) or key[:most] in mapping:
            return None
        mapping[key[:most]] = mapping.pop(key)
        where = ".".join(str(k) for k in loc[:-2])
        return f"a key of {where} had {len(key):,} characters; cut at the limit of {most:,}"
    holder = _holder(cut, loc[:-1])
    text = holder[loc[-1]]
    if not isinstance(text, str):
        return None
    holder[loc[-1]] = text[:most]
    where = ".".join(str(k) for k in loc)
    return f"{where} had {len(text):,} characters; cut at the limit of {most:,}"


def cut_to_limits(
    data: Any, exc: ValidationError, model: type[BaseModel] | None = None
) -> tuple[Any, list[str]] | None:
    """*data* with every over-long text cut at its limit and every list or mapping with too
    many items cut to its first ones, and what was cut, in words; None when the file has any
    other problem (it is then reported as before, untouched). With *model*, cut again until
    it validates: pydantic checks the items of a list only once the list is short enough,
    so a text in one of the items kept shows only after the first cut."""
    said: list[str] = []
    for _ in range(CUT_ROUNDS):
        once = _cut_once(data, exc)
        if once is None:
            return None
        data, words = once
        said += words
        if model is None:
            break
        try:
            model.model_validate(data)
        except ValidationError as again:
            exc = again
            continue
        break
    return data, _collapsed(said)


def _collapsed(said: list[str]) -> list[str]:
    """One line for the cuts alike (the labels of a thousand boxes): the first, and how
    many more like it."""
    first: dict[str, str] = {}
    count: dict[str, int] = {}
    for line in said:
        key = re.sub(r"\.\d+\.", ".*.", line.split(" had ", 1)[0])
        first.setdefault(key, line)
        count[key] = count.get(key, 0) + 1
    return [
        first[k] + (f" (and {count[k] - 1:,} more like it)" if count[k] > 1 else "") for k in first
    ]


#: how many rounds of cutting a review may need: lists, then the texts in their items
CUT_ROUNDS = 4


def _cut_once(data: Any, exc: ValidationError) -> tuple[Any, list[str]] | None:
    errors = exc.errors(include_url=False)
    if not errors or any(e.get("type") not in (TOO_LONG, TOO_MANY) for e in errors):
        return None
    cut = copy.deepcopy(data)
    said: list[str] = []
    # lists first: a text in an item cut away needs no cutting of its own
    for err in sorted(errors, key=lambda e: e.get("type") != TOO_MANY):
        loc, most = tuple(err.get("loc", ())), int((err.get("ctx") or {}).get("max_length", 0))
        if not loc:
            return None
        cutter = _cut_items if err.get("type") == TOO_MANY else _cut_text
        try:
            words = cutter(cut, loc, most)
        except (KeyError, IndexError, TypeError):
            if err.get("type") == TOO_LONG and said:
                continue  # the text was in an item already cut away
            return None
        if words is None:
            return None
        said.append(words)
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
