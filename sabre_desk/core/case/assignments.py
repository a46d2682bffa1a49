"""Who reviews what: ``assignments.json`` at the top of a project.

A project split between reviewers gives every case to one of them and a seeded share of
the cases to two, so the team's agreement can be measured on the overlap. The split is
balanced (every reviewer gets as many cases as the others, within one) and reproducible:
the same cases, reviewers, overlap and seed give the same file. A project without the file
works as before: every reviewer may review every case.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable
from pathlib import Path
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from sabre_desk.core.case.review import refuse_newer, utc_now
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.storage import atomic_write_model, read_json
from sabre_desk.ground.validation_messages import describe_validation_error

ASSIGNMENTS_NAME = "assignments.json"
ASSIGNMENTS_FORMAT: Final = "sabre-desk-assignments"
ASSIGNMENTS_VERSION = 1


class AssignmentsError(ProjectError):
    """assignments.json is unreadable or malformed; the project opens without it."""


class Assignments(BaseModel):
    """assignments.json: case id → the reviewers who are to review it."""

    model_config = ConfigDict(extra="allow")

    format: Literal["sabre-desk-assignments"] = ASSIGNMENTS_FORMAT
    version: int = ASSIGNMENTS_VERSION
    created_at: str | None = None
    seed: int | None = None
    overlap: float | None = None
    reviewers: list[str]
    cases: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        refuse_newer("assignments", v, ASSIGNMENTS_VERSION)
        return v

    @model_validator(mode="after")
    def _names(self) -> Assignments:
        for name in self.reviewers:
            problem = id_problem(name, "reviewer name")
            if problem:
                raise ValueError(problem)
        if len(set(self.reviewers)) != len(self.reviewers):
            raise ValueError("a reviewer is named twice in reviewers")
        known = set(self.reviewers)
        for case_id, names in self.cases.items():
            problem = id_problem(case_id)
            if problem:
                raise ValueError(problem)
            strangers = sorted(set(names) - known)
            if strangers:
                raise ValueError(f"case {case_id}: {', '.join(strangers)} not in reviewers")
            if not names or len(set(names)) != len(names):
                raise ValueError(f"case {case_id}: name one or more different reviewers")
        return self

    def cases_of(self, reviewer: str) -> set[str]:
        return {case_id for case_id, names in self.cases.items() if reviewer in names}

    def by_reviewer(self) -> dict[str, set[str]]:
        """Reviewer → their cases, every reviewer named (even those with none), built in one
        pass: asking ``cases_of`` for each reviewer in turn costs reviewers × cases, which
        for a large team is hours."""
        index: dict[str, set[str]] = {name: set() for name in self.reviewers}
        for case_id, names in self.cases.items():
            for name in names:
                index.setdefault(name, set()).add(case_id)
        return index

    def reviewers_of(self, case_id: str) -> list[str]:
        return list(self.cases.get(case_id, []))


def make_assignments(
    case_ids: Iterable[str], reviewers: list[str], overlap: float = 0.2, seed: int = 42
) -> Assignments:
    """Every case to one reviewer, a seeded share *overlap* of them to two, the load even.

    The cases are shuffled with *seed*; the first ``round(overlap × n)`` go to two
    reviewers and the rest to one, each time to the least loaded (ties broken by a seeded
    order), so the pairs rotate through every combination of reviewers.
    """
    if not 0.0 <= overlap <= 1.0:
        raise ValueError(f"overlap {overlap} must lie between 0 and 1")
    if not reviewers:
        raise ValueError("name at least one reviewer")
    rng = random.Random(seed)
    order = sorted(set(case_ids))
    rng.shuffle(order)
    doubled = round(overlap * len(order)) if len(reviewers) > 1 else 0
    load = dict.fromkeys(reviewers, 0)
    tiebreak = {name: rng.random() for name in reviewers}
    cases: dict[str, list[str]] = {}
    for i, case_id in enumerate(order):
        chosen = sorted(reviewers, key=lambda r: (load[r], tiebreak[r]))[: 2 if i < doubled else 1]
        for name in chosen:
            load[name] += 1
        cases[case_id] = chosen
    return Assignments(
        created_at=utc_now(),
        seed=seed,
        overlap=overlap,
        reviewers=list(reviewers),
        cases=dict(sorted(cases.items())),
    )


def read_assignments(root: Path) -> Assignments | None:
    """The project's assignments; None when it has none. Raises AssignmentsError."""
    path = root / ASSIGNMENTS_NAME
    if not os.path.lexists(path):
        return None
    data, _ = read_json(path, "assignments", AssignmentsError)
    try:
        return Assignments.model_validate(data)
    except ValidationError as exc:
        raise AssignmentsError(describe_validation_error(exc), path) from exc


def existing_assignments(root: Path) -> str | None:
    """Why new assignments would replace something, or None when there is nothing there.

    Anything at the name counts, readable or not: a file of a newer version, a hand-edited
    file with a typo, even a FIFO or a link. Assignments are a team's shared plan, so what
    cannot be read is still not ours to overwrite unasked. Reading is bounded (LIMITS,
    regular files only), so this answers at once whatever lies there.
    """
    path = root / ASSIGNMENTS_NAME
    if not os.path.lexists(path):
        return None
    try:
        read_assignments(root)
    except AssignmentsError as exc:
        return f"cannot be read ({exc.reason})"
    return "the project is already assigned"


def write_assignments(root: Path, assignments: Assignments) -> Path:
    """Write (or replace) assignments.json in one step: a link or a FIFO at the name is
    replaced by the new file, never written through."""
    path = root / ASSIGNMENTS_NAME
    atomic_write_model(path, assignments, kind="assignments")
    return path
