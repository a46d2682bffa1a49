"""What makes a case valid: one definition for the window, `validate`, `stats`, the funnel,
the team's counts and `export`.

A case is valid when its folder is safe to read, its spec.json passes the schema and its
primer's rules, the reviews that would decide it can be read, and every image it names
decodes fully. Headers are not enough: a PNG cut to a third of its bytes has a perfect one,
and a release that ships it breaks every model evaluated on it. Full decodes are remembered
by the files' identity (``decode_cache``), so this stays cheap at 100,000 cases once each
image was seen. A damaged screening record or another reviewer's unreadable review makes
the case invalid too (an ignored review could hide a rejection); a damaged line of the
history, or a primer that cannot be found, is a warning: reported, never a reason to leave
the case out.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.entry import Verdict, problem_text
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.primers import check_case as check_case_primer
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.question_builder import unknown_index
from sabre_desk.ground.errors import CaseLoadError, ImageError, ProjectError
from sabre_desk.ground.storage import read_history

ERROR = "error"
WARNING = "warning"


@dataclass
class Problem:
    file: str
    reason: str
    severity: str = ERROR  # ERROR makes the case invalid; WARNING does not

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
    #: the case as loaded for the check (None: it could not be loaded), for callers that
    #: go on to use it (export, the team's counts) without reading it twice
    case: Case | None = None
    #: its images were decoded in full (False: ``Validity(decode=False)``)
    decoded: bool = True

    @property
    def valid(self) -> bool:
        return not any(p.severity == ERROR for p in self.problems)

    @property
    def problem(self) -> Problem | None:
        """The first problem that makes the case invalid (None: it is valid)."""
        return next((p for p in self.problems if p.severity == ERROR), None)

    @property
    def reason(self) -> str | None:
        """Why the case is invalid, in one line naming the file (None: it is valid): the
        words of `validate`, and of the case list once ``verdict`` is recorded."""
        problem = self.problem
        if problem is None:
            return None
        return problem_text(Path(problem.file), self.folder, problem.reason)

    @property
    def verdict(self) -> Verdict:
        """The verdict for the index (``Project.record_verdict``)."""
        problem = self.problem
        if problem is None:
            return Verdict(self.case_id, decoded=self.decoded)
        return Verdict(self.case_id, Path(problem.file), problem.reason, self.decoded)

    def add(self, problem: Problem) -> None:
        """Add *problem* unless the same one (file and reason) is already reported: the
        index's quick look and the full load find some problems both."""
        if not any(p.file == problem.file and p.reason == problem.reason for p in self.problems):
            self.problems.append(problem)


def _problem(error: ProjectError, fallback: Path, severity: str = ERROR) -> Problem:
    return Problem(str(error.path or fallback), error.reason, severity)


class Validity:
    """Checks the cases of one project; safe to use from several threads at once."""

    def __init__(
        self,
        project: Project,
        primers: PrimerLibrary | None = None,
        cache: DecodeCache | None = None,
        decode: bool = True,
    ):
        self.project = project
        self.primers = primers if primers is not None else PrimerLibrary.for_project(project.root)
        self.cache = cache if cache is not None else DecodeCache.for_project(project.root)
        self.decode = decode

    def check(self, case_id: str, history: bool = False) -> CaseReport:
        """Every problem of one case; never raises for bad input. *history* also reads
        the case's audit log for damaged lines (warnings only; `validate` reports them)."""
        project = self.project
        folder = project.cases_dir / case_id
        report = CaseReport(case_id, folder, decoded=self.decode)
        # The index's quick look at the files as they are now (never the index's entry,
        # which may hold an earlier verdict): what both find is said in its words.
        quick = project.quick_problem(case_id)
        if quick is not None:
            reason, file = quick
            report.add(Problem(str(file or folder), reason))
            if file is None:
                return report  # the folder itself is unsafe (a link, a bad id): never read it
        try:
            case = project.load_case(case_id)
        except CaseLoadError as exc:
            if not report.problems or Path(report.problems[0].file) != exc.path:
                report.add(_problem(exc, folder))
            return report
        report.case = case
        self._check_primer(case, report)
        for problem in [_problem(e, folder) for e in case.image_problems.values()]:
            report.add(problem)
        for problem in [_problem(e, folder) for e in case.warnings]:
            report.add(problem)
        if self.decode:
            for role, path in case.images.items():
                if role in case.image_problems:
                    continue
                try:
                    self.cache.check(path)
                except ImageError as exc:
                    report.add(_problem(exc, folder))
        if history:
            for message in read_history(case.history_path).problems:
                report.add(Problem(str(case.history_path), message, WARNING))
        return report

    def verdict(self, case_id: str) -> Verdict:
        """The verdict on one case, for the index (``Project.record_verdict``); keeps
        nothing of the case (a loop over 100,000 cases may call it, on a worker)."""
        return self.check(case_id).verdict

    def _check_primer(self, case: Case, report: CaseReport) -> None:
        primer, note = self.primers.for_spec(case.spec, self.project.manifest.primer)
        spec_file = str(case.folder / "spec.json")
        if primer is None:
            report.add(Problem(spec_file, note, WARNING))
            return
        for problem in check_case_primer(case.spec, primer):
            report.add(Problem(spec_file, problem))
        rules = primer.header.rules
        if rules.unknown_option:
            report.subset = case.spec.pressure_test_type
            for q in case.spec.questions:
                at = unknown_index(q.options or [], rules.unknown_words)
                if at is not None:
                    report.unknown_positions.append(at)


def known_undecodable(project: Project, cache: DecodeCache) -> list[tuple[str, Path, str]]:
    """(case, image, reason) for each case with an image known not to decode (an earlier
    check of the very same file), so the case list and its counts can call them invalid
    before anyone opens them. Costs one query and a ``stat`` per known failure; may run on
    a worker (``Project.mark_invalid`` then records each on the index's own thread)."""
    found = []
    cases_dir = project.cases_dir.absolute()
    for path, reason in cache.known_failures():
        try:
            case_id = path.relative_to(cases_dir).parts[0]
        except (ValueError, IndexError):
            continue
        found.append((case_id, path, reason))
    return found


def verdicts(
    validity: Validity,
    case_ids: Iterable[str],
    pause: Callable[[], None] | None = None,
    cancel: threading.Event | None = None,
) -> list[Verdict]:
    """The verdict on each of *case_ids*, for a worker thread; the caller records each
    into the index on its own thread (``Project.record_verdict``). *pause* (if given) is
    called before each case (a window holds the loop back while the reviewer moves);
    *cancel* stops it (the verdicts so far are returned)."""
    found = []
    for case_id in case_ids:
        if cancel is not None and cancel.is_set():
            break
        if pause is not None:
            pause()
        found.append(validity.verdict(case_id))
    return found
