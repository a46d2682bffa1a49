"""Turn pydantic's ValidationError into one line a reviewer can act on."""

from __future__ import annotations

import re

from pydantic import ValidationError

_FIELD_PREFIX = re.compile(r"^([A-Za-z_][\w\[\]\.]*): ")


def _location(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def describe_validation_error(exc: ValidationError, limit: int = 3) -> str:
    """'field.path: reason; …' for the first few errors.

    Our own validators already start their message with the field they judge
    ("answer: …"); pydantic places them at the enclosing object, so the two are joined
    into one path ("questions[2].answer: …").
    """
    parts: list[str] = []
    errors = exc.errors(include_url=False)
    for err in errors[:limit]:
        loc = _location(tuple(err.get("loc", ())))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if _FIELD_PREFIX.match(msg):
            parts.append(f"{loc}.{msg}" if loc else msg)
        else:
            parts.append(f"{loc}: {msg}" if loc else msg)
    if len(errors) > limit:
        parts.append(f"and {len(errors) - limit} more")
    return "; ".join(parts)
