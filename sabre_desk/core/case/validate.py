"""Check every case of a project, the way `sabre-desk validate` reports it.

What makes one case valid is ``validity``'s to say (the same rule the window, `stats` and
`export` apply); this adds the project's own problems and the balance of each subset.
Unlike indexing, validation decodes every image fully (a truncated file only shows itself
when decoded; a file decoded before is not decoded again), in a small thread pool since
Pillow releases the GIL while decoding.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.question_builder import imbalance
from sabre_desk.core.case.validity import CaseReport, Problem, Validity

__all__ = ["CaseReport", "Problem", "ProjectReport", "check_case", "validate_project"]


@dataclass
class ProjectReport:
    root: Path
    cases: list[CaseReport] = field(default_factory=list)
    project_problems: list[Problem] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return all(c.valid for c in self.cases) and not any(
            p.severity == "error" for p in self.project_problems
        )

    @property
    def invalid_cases(self) -> list[CaseReport]:
        return [c for c in self.cases if not c.valid]

    def to_json(self) -> dict[str, Any]:
        return {
            "project": str(self.root),
            "valid": self.valid,
            "cases_total": len(self.cases),
            "cases_invalid": len(self.invalid_cases),
            "project_problems": [p.__dict__ for p in self.project_problems],
            "cases": [
                {
                    "case_id": c.case_id,
                    "valid": c.valid,
                    "problems": [p.__dict__ for p in c.problems],
                }
                for c in self.cases
            ],
        }


def check_case(
    project: Project, case_id: str, decode: bool = True, primers: PrimerLibrary | None = None
) -> CaseReport:
    """Every problem of one case, as (file, reason) pairs; never raises for bad input."""
    return Validity(project, primers, decode=decode).check(case_id, history=True)


def validate_project(
    project: Project,
    decode: bool = True,
    workers: int = 4,
    progress: Callable[[int, int], None] | None = None,
    cache: DecodeCache | None = None,
) -> ProjectReport:
    """Validate every case; problems of the project itself are listed separately.
    *cache* None: the project's decode cache (``DecodeCache.disabled`` decodes every
    image again)."""
    report = ProjectReport(project.root)
    report.project_problems += [
        Problem(str(path), reason, "warning") for path, reason in project.skipped
    ]
    if not project.cases_dir.is_dir():
        report.project_problems.append(Problem(str(project.cases_dir), "cases/ is missing"))
    elif not project.entries:  # a new project (`init`): valid, with nothing in it yet
        report.project_problems.append(
            Problem(str(project.cases_dir), "no cases yet (cases/ is empty)", "warning")
        )
    primers = PrimerLibrary.for_project(project.root)
    report.project_problems += [Problem(str(e.path), e.reason) for e in primers.problems]
    ids = [e.case_id for e in project.entries]
    validity = Validity(project, primers, cache, decode)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = pool.map(lambda i: validity.check(i, history=True), ids)
        for done, result in enumerate(results, 1):
            result.case = None  # not kept: 100,000 loaded cases would fill the memory
            report.cases.append(result)
            if progress:
                progress(done, len(ids))
    positions: dict[str, list[int]] = {}
    for case in report.cases:
        if case.subset is not None:
            positions.setdefault(case.subset, []).extend(case.unknown_positions)
    for subset, found in sorted(positions.items()):
        lopsided = imbalance(found)
        if lopsided:
            report.project_problems.append(
                Problem(str(project.cases_dir), f"{subset}: {lopsided}", "warning")
            )
    return report
