"""Check every case of a project, the way `sabre-desk validate` reports it.

Unlike indexing, validation decodes every image fully (a truncated file only shows itself
when decoded), in a small thread pool since Pillow releases the GIL while decoding.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.primers import PrimerLibrary
from sabre_desk.core.primers import check_case as check_case_primer
from sabre_desk.core.project import Project
from sabre_desk.core.question_builder import imbalance, unknown_index
from sabre_desk.ground.errors import CaseLoadError, ImageError, ProjectError
from sabre_desk.ground.storage import read_history
from sabre_desk.imaging.io import load_image


@dataclass
class Problem:
    file: str
    reason: str
    severity: str = "error"  # "error" makes the case invalid; "warning" does not

    def line(self) -> str:
        return f"{self.file}: {self.reason}"


@dataclass
class CaseReport:
    case_id: str
    folder: Path
    problems: list[Problem] = field(default_factory=list)
    subset: str | None = None
    #: where the "unknown" option of its multiple-choice questions sits (primers that ask
    #: for one), for the subset's balance
    unknown_positions: list[int] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


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


def _problem(error: ProjectError, fallback: Path, severity: str = "error") -> Problem:
    return Problem(str(error.path or fallback), error.reason, severity)


def check_case(
    project: Project, case_id: str, decode: bool = True, primers: PrimerLibrary | None = None
) -> CaseReport:
    """Every problem of one case, as (file, reason) pairs; never raises for bad input."""
    entry = project.entry(case_id)
    folder = entry.folder if entry else project.cases_dir / case_id
    report = CaseReport(case_id, folder)
    if entry is not None and entry.problem is not None:
        report.problems.append(Problem(str(entry.problem_file or folder), entry.problem))
        if entry.problem_file is None:
            return report  # the folder itself is unsafe (a link, a bad id): never read it
    try:
        case = project.load_case(case_id)
    except CaseLoadError as exc:
        if not report.problems or Path(report.problems[0].file) != exc.path:
            report.problems.append(_problem(exc, folder))
        return report
    if primers is not None:
        primer, note = primers.for_spec(case.spec, project.manifest.primer)
        spec_file = str(folder / "spec.json")
        if primer is None:
            report.problems.append(Problem(spec_file, note, "warning"))
        else:
            report.problems += [Problem(spec_file, p) for p in check_case_primer(case.spec, primer)]
            rules = primer.header.rules
            if rules.unknown_option:
                report.subset = case.spec.pressure_test_type
                for q in case.spec.questions:
                    at = unknown_index(q.options or [], rules.unknown_words)
                    if at is not None:
                        report.unknown_positions.append(at)
    report.problems += [_problem(e, folder) for e in case.image_problems.values()]
    report.problems += [_problem(e, folder) for e in case.warnings]
    if decode:
        for role, path in case.images.items():
            if role in case.image_problems:
                continue
            try:
                load_image(path)
            except ImageError as exc:
                report.problems.append(_problem(exc, folder))
    for message in read_history(case.history_path).problems:
        report.problems.append(Problem(str(case.history_path), message, "warning"))
    return report


def validate_project(
    project: Project,
    decode: bool = True,
    workers: int = 4,
    progress: Callable[[int, int], None] | None = None,
) -> ProjectReport:
    """Validate every case; problems of the project itself are listed separately."""
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
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = pool.map(lambda i: check_case(project, i, decode, primers), ids)
        for done, result in enumerate(results, 1):
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
