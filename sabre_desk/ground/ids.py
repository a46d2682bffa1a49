"""Identifiers that become file and folder names, so they must be safe on every OS."""

from __future__ import annotations

import re

from sabre_desk.ground import limits

ID_PATTERN = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9._-]{{0,{limits.ID.most - 1}}}$")


def is_valid_id(value: str) -> bool:
    """True when *value* can be a case id or reviewer name (and so a path component)."""
    return bool(ID_PATTERN.fullmatch(value)) and value not in {".", ".."}


def id_problem(value: str, what: str = "case id") -> str | None:
    """Why *value* is not a valid id, in words, or None when it is valid."""
    if is_valid_id(value):
        return None
    return (
        f"invalid {what} {value!r}: use 1-{limits.ID.most} letters, digits, '.', '_' or '-', "
        "starting with a letter or digit"
    )


def reviewer_from_login(login: str) -> str:
    """Turn an OS login name into a valid reviewer id (spaces and symbols become '_')."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", login).strip("._-")[: limits.ID.most]
    return cleaned or "reviewer"
