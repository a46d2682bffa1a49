"""The names a synced drive (or sabre-desk's ``merge``) gives the second version of a
file it keeps beside the first: the one definition of what is a conflict copy.

It lies with the case, the lowest room of the core, because reading a case's reviews
must already tell a copy from a reviewer's file (a copy never makes a case invalid);
``sabre_desk.core.team.conflict_copies`` builds finding, listing and settling on it and
its docstring lists the names recognised and the OneDrive rule.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REVIEWS_DIR = "reviews"
#: The infix of the version ``merge`` keeps of a review changed on both sides.
MERGE_CONFLICT_INFIX = ".merge-conflict-"
_DATE = r"\d{4}-\d{2}-\d{2}"
#: (tool, pattern on the whole file name); the first that matches names the tool.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("sabre-desk merge", re.compile(r"^(?P<stem>.+)\.merge-conflict-\d{8}T\d{6}\.json$")),
    ("Syncthing", re.compile(r"^(?P<stem>.+)\.sync-conflict-\d{8}-\d{6}(?:-[A-Z0-9]+)?\.json$")),
    (
        "Nextcloud",
        re.compile(rf"^(?P<stem>.+) \(conflicted copy {_DATE} \d{{6}}\)\.json$"),
    ),
    ("Nextcloud", re.compile(r"^(?P<stem>.+)_conflict-\d{8}-\d{6}\.json$")),
    (
        "Dropbox",
        re.compile(
            rf"^(?P<stem>.+) \((?:[^()/]+'s )?conflicted copy {_DATE}(?: \(\d+\))?\)\.json$"
        ),
    ),
    ("Google Drive", re.compile(r"^(?P<stem>.+) \(\d+\)\.json$")),
)
_ONEDRIVE = re.compile(r"^(?P<machine>[A-Za-z0-9][A-Za-z0-9-]*?)(?:-\d+)?$")


def _own_reviewer(path: Path) -> str | None:
    """The ``reviewer`` a review file says it belongs to, or None when unreadable."""
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    who = data.get("reviewer") if isinstance(data, dict) else None
    return who if isinstance(who, str) else None


def copy_of(name: str, siblings: set[str], folder: Path | None = None) -> tuple[str, str] | None:
    """(the original's file name, the tool) when *name* is a conflict copy among the file
    names *siblings* of its folder; else None. *folder* lets a possible OneDrive copy of a
    review be told from a reviewer's own file by what it says inside."""
    if not name.endswith(".json") or name.startswith("."):
        return None
    if " " not in name and "-" not in name:  # every pattern has one: most names end here
        return None
    for tool, pattern in _PATTERNS:
        match = pattern.match(name)
        if match:
            return f"{match['stem']}.json", tool
    stem = name[: -len(".json")]
    for sibling in sorted(siblings, key=len, reverse=True):
        base = sibling[: -len(".json")] if sibling.endswith(".json") else None
        if not base or sibling == name or not stem.startswith(f"{base}-"):
            continue
        if not _ONEDRIVE.match(stem[len(base) + 1 :]):
            continue
        if folder is not None and folder.name == REVIEWS_DIR:
            inside = _own_reviewer(folder / name)
            if inside is None or inside == stem:
                return None
        return sibling, "OneDrive"
    return None


def is_conflict_copy(path: Path) -> bool:
    """Whether the file at *path* is a conflict copy (looks at its folder's other names)."""
    try:
        siblings = {p.name for p in path.parent.iterdir()}
    except OSError:
        siblings = set()
    return copy_of(path.name, siblings, path.parent) is not None
