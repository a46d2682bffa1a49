"""Which questions of an evaluation the evaluation view lists, Qt-free: all of them, those
every model failed, those none failed, those the models dispute (``audit``'s rule), each
narrowed to one subset."""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from sabre_desk.core.case.manifest import MANIFEST_NAME
from sabre_desk.core.release.evaluation_results import QuestionResult


class Shown(StrEnum):
    ALL = "all"
    FAILED_BY_ALL = "failed_by_all"
    FAILED_BY_NONE = "failed_by_none"
    DISPUTED = "disputed"


#: The view's choices in a reader's words.
SHOWN_CHOICES: list[tuple[str, Shown]] = [
    ("All questions", Shown.ALL),
    ("Failed by every model", Shown.FAILED_BY_ALL),
    ("Failed by none", Shown.FAILED_BY_NONE),
    ("Disputed (the models agree against the reference)", Shown.DISPUTED),
]


@dataclass(frozen=True)
class QuestionFilter:
    shown: Shown = Shown.ALL
    subset: str = ""  # "": every subset

    def accepts(self, q: QuestionResult) -> bool:
        if self.subset and q.subset != self.subset:
            return False
        if self.shown == Shown.FAILED_BY_ALL:
            return q.failed_by_all
        if self.shown == Shown.FAILED_BY_NONE:
            return q.failed_by_none
        if self.shown == Shown.DISPUTED:
            return q.disputed
        return True

    def apply(self, questions: list[QuestionResult]) -> list[QuestionResult]:
        return [q for q in questions if self.accepts(q)]


def release_project(release: Path) -> str | None:
    """The name of the project a release was exported from (release.json), if it says."""
    try:
        data = json.loads((release / "release.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("project") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def project_name(folder: Path) -> str | None:
    """The name a project folder's manifest gives it (None: not a readable project)."""
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None
