"""Open a project folder, index its cases, load one case, save a review.

The project keeps its folder, its manifest and its index; what one case's files hold and
how each is checked is ``case_files``, which ``load_case`` and ``save_review`` call.

Indexing is the hot path (a project may hold 100,000 cases): it lists ``cases/`` once,
reads each spec.json and this reviewer's review as plain JSON and decodes no image. Loading
one case validates it fully but still only reads image headers; pixels are decoded by
whoever shows or checks them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import replace
from pathlib import Path
from typing import Any

from sabre_desk.core.case.assignments import Assignments, AssignmentsError, read_assignments
from sabre_desk.core.case.binding import image_hashes, is_stale, quick_stale
from sabre_desk.core.case.case_files import (
    HISTORY_NAME,
    REVIEWS_DIR,
    SPEC_NAME,
    Case,
    load_other_reviews,
    load_own_review,
    load_screening,
    load_spec,
    locate_images,
    write_review_file,
)
from sabre_desk.core.case.decode_cache import identity
from sabre_desk.core.case.entry import CaseEntry, Verdict
from sabre_desk.core.case.gate import GateRule
from sabre_desk.core.case.manifest import (
    MANIFEST_NAME,
    PROJECT_FORMAT,
    PROJECT_VERSION,
    Manifest,
    read_manifest,
)
from sabre_desk.core.case.review import (
    Decision,
    Review,
    utc_now,
)
from sabre_desk.core.case.screening import (
    SCREENING_NAME,
    CaseScreening,
    case_screening,
    quick_status,
)
from sabre_desk.core.case.upgrade_journal import refuse_unfinished_upgrade
from sabre_desk.ground.errors import (
    CaseLoadError,
    ProjectError,
    ReadOnlyProjectError,
    ReviewError,
    ScreeningError,
)
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.paths import inside_project
from sabre_desk.ground.reading import (
    LIMITS,
    LinkFoundError,
    QuickReadError,
    quick_json,
    short_reason,
)
from sabre_desk.ground.storage import (
    append_history,
    probe_writable,
)

__all__ = [
    "HISTORY_NAME",
    "MANIFEST_NAME",
    "PROJECT_FORMAT",
    "PROJECT_VERSION",
    "REVIEWS_DIR",
    "SPEC_NAME",
    "Case",
    "CaseEntry",
    "Manifest",
    "Verdict",
    "write_review_file",
]
CASES_DIR = "cases"
LINK_REASON = "case folder is a symbolic link; links are never followed"


class Project:
    """An open project folder, seen by one reviewer."""

    def __init__(self, root: Path, manifest: Manifest, reviewer: str, read_only: bool):
        self.root = root
        self.manifest = manifest
        self.reviewer = reviewer
        self.read_only = read_only
        self.entries: list[CaseEntry] = []
        #: things under cases/ that are not cases: (path, reason), reported, never read
        self.skipped: list[tuple[Path, str]] = []
        #: the index is still being read (the window reads it behind the first case)
        self.indexing = False
        #: problems with project-wide files that do not stop the project (assignments.json)
        self.warnings: list[ProjectError] = []
        self.assignments: Assignments | None = None
        self._mine: set[str] | None = None  # the cases assigned to this reviewer
        self._position: dict[str, int] = {}
        self._concept_owner: dict[str, str] = {}
        #: what the full check found wrong with a case, kept while the file it names is
        #: unchanged: case → (file, reason, the file's identity then)
        self._verdicts: dict[str, tuple[Path | None, str, str | None]] = {}

    # --- opening and indexing ---------------------------------------------------------

    @classmethod
    def open(
        cls, root: Path | str, reviewer: str, index: bool = True, read_only: bool = False
    ) -> Project:
        """Open *root*; raises NotAProjectError when it is not a project folder. *read_only*
        opens a writable folder as if it were not (a project left to upgrade later)."""
        problem = id_problem(reviewer, "reviewer name")
        if problem:
            raise ValueError(problem)
        root = Path(root).expanduser().absolute()
        manifest = read_manifest(root)
        refuse_unfinished_upgrade(root)  # part old, part new: nothing may read it as either
        project = cls(root, manifest, reviewer, read_only or not probe_writable(root))
        project.load_assignments()
        if index:
            project.index()
        return project

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def is_adjudicator(self) -> bool:
        """This reviewer may settle a disagreement: one of the adjudicators the manifest
        names, or anyone when it names none (``ratings.adjudicator_rule`` says it in words;
        ``ratings.is_adjudication`` applies the same rule to a review)."""
        named = self.manifest.adjudicators
        return not named or self.reviewer in named

    def load_assignments(self) -> None:
        """(Re)read assignments.json; a bad file is reported and the project works as if
        it had none."""
        self.warnings = [w for w in self.warnings if not isinstance(w, AssignmentsError)]
        try:
            self.assignments = read_assignments(self.root)
        except AssignmentsError as exc:
            self.assignments = None
            self.warnings.append(exc)
        self._mine = None if self.assignments is None else self.assignments.cases_of(self.reviewer)

    @property
    def cases_dir(self) -> Path:
        return self.root / CASES_DIR

    @property
    def gate(self) -> GateRule:
        """The filter gate's rule this project uses (sabre-project.json)."""
        return self.manifest.screening.gate

    def index(self) -> list[CaseEntry]:
        """List every case without decoding images; problems are recorded, never raised."""
        run = self.begin_index()
        while not run.done:
            run.add(run.next_chunk(10_000))
        return self.entries

    def begin_index(self) -> IndexRun:
        """Start indexing in pieces: the window indexes the first cases at once and the rest
        behind the first case shown (each piece joins with ``IndexRun.add``, on this
        project's thread)."""
        self.entries, self._position, self._concept_owner = [], {}, {}
        self._verdicts = {}
        self.indexing = True
        skipped: list[tuple[Path, str]] = []
        try:  # names alone, sorted as strings: a third of a scandir's cost, before the window
            listing = sorted(os.listdir(self.cases_dir))  # noqa: PTH208 - strings, fast
        except FileNotFoundError:
            listing = []
        except OSError as exc:
            listing = []
            skipped.append((self.cases_dir, f"cannot list ({exc.strerror or exc})"))
        self.skipped = skipped
        return IndexRun(self, listing)

    def add_entries(self, entries: list[CaseEntry]) -> list[CaseEntry]:
        """Append a piece of the index (in listing order); returns it as added, a reused
        ``concept_id`` marked (the first case to use it keeps it)."""
        owners = self._concept_owner
        added = []
        for e in entries:
            if e.concept_id and e.problem is None:
                owner = owners.setdefault(e.concept_id, e.case_id)
                if owner != e.case_id:
                    reason = f"duplicate concept_id {e.concept_id!r} (already used by case {owner})"
                    e = replace(e, problem=reason, problem_file=e.folder / SPEC_NAME)
            self._position[e.case_id] = len(self.entries)
            self.entries.append(e)
            added.append(e)
        return added

    def index_added(self, case_id: str) -> CaseEntry:
        """Index a case written into ``cases/`` while the project is open (New Case)."""
        folder = self.cases_dir / case_id
        entry = self._index_case(case_id, str(folder), f"{self.reviewer}.json")
        return self.add_entries([entry])[0]

    def index_item(self, name: str, kind: str | None, review_name: str) -> CaseEntry | None:
        """One entry of ``cases/`` as the index sees it, *kind* one of ``IndexRun``'s
        (None: not a case, reported)."""
        cases_dir = self.cases_dir
        if name.startswith(".") or kind is None:
            return None  # hidden, or gone since the listing
        if kind == LINK:
            return CaseEntry(name, cases_dir, problem=LINK_REASON)
        if kind != FOLDER:
            self.skipped.append((cases_dir / name, "not a case folder, skipped"))
            return None
        problem = id_problem(name)
        if problem:
            return CaseEntry(name, cases_dir, problem=problem)
        return self._index_case(name, os.path.join(cases_dir, name), review_name)  # noqa: PTH118

    def _index_case(
        self, case_id: str, folder: str, review_name: str, exact: bool = False
    ) -> CaseEntry:
        cases_dir = self.cases_dir
        assigned = None if self._mine is None else case_id in self._mine
        spec_path = os.path.join(folder, SPEC_NAME)  # noqa: PTH118 - hot loop, see CaseEntry
        try:
            spec = self._quick_spec(spec_path)
        except (ValueError, OSError) as exc:
            reason = f"unreadable ({short_reason(exc)})"
            return CaseEntry(case_id, cases_dir, problem=reason, problem_file=Path(spec_path))
        if not isinstance(spec, dict):
            reason = "file is missing" if spec is None else "not a JSON object"
            return CaseEntry(case_id, cases_dir, problem=reason, problem_file=Path(spec_path))
        subset, concept = _str(spec.get("pressure_test_type")), _str(spec.get("concept_id"))
        mode = _str(spec.get("generation_mode"))
        review_path = os.path.join(folder, REVIEWS_DIR, review_name)  # noqa: PTH118
        try:
            review = quick_json(review_path, LIMITS["review"])
            raw = review.get("decision") if isinstance(review, dict) else None
            decision = Decision(raw) if raw else None
        except (ValueError, OSError) as exc:
            reason = f"unreadable ({short_reason(exc)})"
            return CaseEntry(
                case_id,
                cases_dir,
                subset,
                concept,
                mode,
                None,
                reason,
                Path(review_path),
                assigned_to_me=assigned,
            )
        pending = isinstance(review, dict) and _has_pending_repair(review.get("repairs"))
        stale = decision is not None and quick_stale(folder, review, trust_mtime=not exact)
        own = review if isinstance(review, dict) else None
        screening, problem, problem_file = None, None, None
        try:
            screening = quick_status(folder, spec, own, self.gate, quick_json)
        except ScreeningError as exc:  # read only when the brief does not match it
            problem, problem_file = exc.reason, Path(folder, SCREENING_NAME)
        return CaseEntry(
            case_id,
            cases_dir,
            subset,
            concept,
            mode,
            Decision.NEEDS_RECHECK if stale else decision,
            problem,
            problem_file,
            pending_repair=pending,
            stale=stale,
            assigned_to_me=assigned,
            screening=screening,
        )

    def _quick_spec(self, path: str) -> Any:
        """A case's spec.json for the index; a link is followed only when it stays in the
        project (another project's spec must not make a case here what it is not)."""
        try:
            return quick_json(path, LIMITS["spec"], follow_links=False)
        except LinkFoundError:  # rare, so the check costs nothing in the hot loop
            if not inside_project(self.root, path):
                raise QuickReadError("is a link leading outside the project; not read") from None
            return quick_json(path, LIMITS["spec"])

    def fresh_entry(self, case_id: str) -> CaseEntry | None:
        """The case's entry read again from disk (another reviewer or window changed it),
        every image of a decision checked exactly; what other parts found (the change map,
        the team's disagreement) is kept, and so is a recorded verdict's problem while the
        file it names is unchanged. Not put in the index: ``replace_entry`` does that on
        the thread that owns it. None when the case is not in the index."""
        old = self.entry(case_id)
        if old is None or (old.problem_file is None and old.problem is not None):
            return old
        entry = self._index_case(
            case_id, str(self.cases_dir / case_id), f"{self.reviewer}.json", exact=True
        )
        entry = replace(entry, changes_outside=old.changes_outside, disputed=old.disputed)
        duplicate = self._duplicate(entry)
        if duplicate is not None:
            return replace(entry, problem=duplicate, problem_file=entry.folder / SPEC_NAME)
        recorded = self._verdicts.get(case_id)
        if entry.problem is None and recorded is not None:
            file, reason, then = recorded
            if file is None or identity(file) == then:  # the same broken file: still invalid
                entry = replace(entry, problem=reason, problem_file=file, checked=old.checked)
        return entry

    def _duplicate(self, entry: CaseEntry) -> str | None:
        """Why *entry* may not use its ``concept_id`` (another case indexed before it
        does), or None."""
        if not entry.concept_id or entry.problem is not None:
            return None
        owner = self._concept_owner.get(entry.concept_id)
        if owner is None or owner == entry.case_id:
            return None
        return f"duplicate concept_id {entry.concept_id!r} (already used by case {owner})"

    def quick_problem(self, case_id: str) -> tuple[str, Path | None] | None:
        """What the index's quick look finds wrong with the case as it is on disk now
        (reason, file; file None: the case folder itself), or None. The full check
        (``validity``) starts from it, so a problem both find is said in the same words
        in the window and in `validate`, and one fixed since the index was read is gone.
        Reads the spec and this reviewer's review as plain JSON; decodes nothing."""
        folder = self.cases_dir / case_id
        problem = id_problem(case_id)
        if problem:
            return problem, None
        if folder.is_symlink():
            return LINK_REASON, None
        if not folder.is_dir():
            return None  # gone: loading the case says so
        entry = self._index_case(case_id, str(folder), f"{self.reviewer}.json")
        if entry.problem is not None:
            return entry.problem, entry.problem_file
        duplicate = self._duplicate(entry)
        return None if duplicate is None else (duplicate, folder / SPEC_NAME)

    def record_verdict(self, verdict: Verdict) -> CaseEntry | None:
        """The full check's verdict on a case (``validity.Validity.check``: `validate`'s
        rule) goes into the index: the entry is invalid with its first problem, in
        `validate`'s words, or valid, and ``checked`` either way. The one event through
        which the window's list and counts learn what `validate` and `stats` know (call it
        on the index's own thread, then ``Workbench.update_entry`` with the entry
        returned). Returns the entry as it is now (None: not in the index)."""
        entry = self.entry(verdict.case_id)
        if entry is None:
            return None
        if verdict.reason is None:
            self._verdicts.pop(verdict.case_id, None)
            new = replace(entry, problem=None, problem_file=None, checked=verdict.decoded)
        else:
            file = None if verdict.file == entry.folder else verdict.file
            then = identity(file) if file is not None else None
            self._verdicts[verdict.case_id] = (file, verdict.reason, then)
            new = replace(entry, problem=verdict.reason, problem_file=file, checked=True)
        if new != entry:
            self.replace_entry(new)
        return new

    def mark_invalid(self, case_id: str, reason: str, image: Path) -> CaseEntry | None:
        """Record that *image* of *case_id* does not decode (a decode found it: the decode
        cache's known failures, a decode for the screen), so the index calls the case
        invalid until that file changes. Returns the entry as it is now. A whole check of
        the case is ``record_verdict``'s."""
        entry = self.entry(case_id)
        if entry is None:
            return None
        if entry.problem is None:
            self._verdicts[case_id] = (image, reason, identity(image))
            entry = replace(entry, problem=reason, problem_file=image)
            self.replace_entry(entry)
        return entry

    def entry(self, case_id: str) -> CaseEntry | None:
        position = self._position.get(case_id)
        return None if position is None else self.entries[position]

    # --- one case ---------------------------------------------------------------------

    def case_folder(self, case_id: str) -> Path:
        """The folder of *case_id*, refusing ids that could escape ``cases/``."""
        problem = id_problem(case_id)
        if problem:
            raise CaseLoadError(problem, self.cases_dir)
        folder = self.cases_dir / case_id
        if folder.is_symlink():
            raise CaseLoadError(
                "case folder is a symbolic link; links are never followed", folder, case_id
            )
        if not folder.is_dir():
            raise CaseLoadError("no such case", folder, case_id)
        return folder

    def _inside(self, path: Path) -> bool:
        return inside_project(self.root, path)

    def load_case(self, case_id: str) -> Case:
        """Load and validate one case. Raises CaseLoadError (with file and reason).

        A broken image does not stop the case from loading (its problem is recorded so the
        reviewer sees a placeholder and the reason); a broken spec or own review does,
        because reviewing or saving on top of them could lose information.
        """
        folder = self.case_folder(case_id)
        spec = load_spec(self.root, case_id, folder)
        notes: list[CaseLoadError] = []  # an over-long text cut (``over_limit``)
        review, review_fp = load_own_review(
            self.reviewer, case_id, folder, spec, notes, self.read_only
        )
        case = Case(case_id, folder, spec, review, review_fp, warnings=notes)
        load_screening(case)
        load_other_reviews(self.reviewer, case)
        locate_images(self.root, case)
        return case

    def reload_screening(self, case: Case) -> None:
        """screening.json read again (a run was appended while the case was open)."""
        case.screening = None
        load_screening(case)

    def reload_other_reviews(self, case: Case) -> None:
        """Read the other reviewers' files again (they changed on disk); one's own review
        and the rest of the case are left as they are."""
        case.other_reviews = {}
        case.warnings = [w for w in case.warnings if not isinstance(w, ReviewError)]
        load_other_reviews(self.reviewer, case)

    def locate_images(self, case: Case) -> None:
        """Find the case's images again (one was replaced on disk)."""
        case.images, case.image_info, case.image_problems = {}, {}, {}
        locate_images(self.root, case)

    # --- saving -----------------------------------------------------------------------

    def save_review(
        self, case: Case, review: Review | None = None, force: bool = False, index: bool = True
    ) -> None:
        """Write this reviewer's review atomically.

        Refuses (ReviewConflictError) when the file changed on disk since the case was
        loaded or last saved — another window or person wrote it — unless *force*. *index*
        False: the caller updates the index entry (a save off the index's own thread).
        """
        review = review or case.review
        case.review_fingerprint = write_review_file(
            case.review_path, review, case.review_fingerprint, force, self.read_only, case.case_id
        )
        case.review = review
        if index:
            self.update_entry(case)

    def record(self, case: Case, event: str, data: dict[str, Any]) -> None:
        """Append one event to the case's history.jsonl (the audit log)."""
        if self.read_only:
            raise ReadOnlyProjectError("project is open read-only", case.history_path)
        entry = {"at": utc_now(), "reviewer": self.reviewer, "event": event, "data": data}
        append_history(case.history_path, entry)

    def replace_entry(self, entry: CaseEntry) -> None:
        """Put a changed index entry in place (a change-map flag found in the background)."""
        position = self._position.get(entry.case_id)
        if position is not None:
            self.entries[position] = entry

    def update_entry(self, case: Case) -> None:
        """Keep the index in step with a review changed in memory (the case list's icon)."""
        position = self._position.get(case.case_id)
        if position is not None:
            old = self.entries[position]
            stale = False
            if case.review.decision is not None:
                hashes = image_hashes(case.images, compute=False)  # never a read here
                stale = is_stale(case.review, hashes) if hashes is not None else old.stale
            self.entries[position] = replace(
                old,
                decision=Decision.NEEDS_RECHECK if stale else case.review.decision,
                stale=stale,
                pending_repair=any(r.status == "preview" for r in case.review.repairs),
                screening=self.screening_of(case).status,
            )

    def screening_of(self, case: Case) -> CaseScreening:
        """The filter gate on *case* as it is now, with each probe's result (stale or not)."""
        return case_screening(
            case.folder,
            case.spec,
            case.review,
            case.other_reviews.values(),
            case.screening,
            self.gate,
        )


LINK, FOLDER, OTHER = "link", "folder", "other"  # what an entry of cases/ is
ONE_BY_ONE = 256  # a piece this small looks at its entries one by one (an lstat each)


class IndexRun:
    """The listing of ``cases/``, indexed a piece at a time.

    ``next_chunk`` reads files and builds entries (it may run on a worker thread; it only
    notes what it skips); the index changes only in ``add``, on the project's thread, and
    the project is ``indexing`` until the last piece has joined it there (not when the last
    piece is read: a window asking on its own thread would believe the index whole while
    its last piece is still on the way). The listing holds names only; the first small
    piece (the window's first screenful) looks at each entry with an ``lstat``, the rest
    learn what each entry is from one ``scandir`` (the types come with the listing), made
    with the first large piece, on the thread that reads it.
    """

    def __init__(self, project: Project, listing: list[str]):
        self.project = project
        self.total = len(listing)
        self._listing = listing
        self._next = 0
        self._kinds: dict[str, str] | None = None
        self._review_name = f"{project.reviewer}.json"
        project.indexing = not self.done  # an empty cases/ is read at once

    @property
    def done(self) -> bool:
        return self._next >= len(self._listing)

    def next_chunk(self, size: int) -> list[CaseEntry]:
        items = self._listing[self._next : self._next + size]
        self._next += len(items)
        if self._kinds is None and len(items) > ONE_BY_ONE:
            self._kinds = self._kinds_listed()
        kinds, kind_of = self._kinds or {}, self._kind
        index_item, review_name = self.project.index_item, self._review_name
        return [
            e
            for name in items
            if (e := index_item(name, kinds.get(name) or kind_of(name), review_name)) is not None
        ]

    def add(self, piece: list[CaseEntry]) -> list[CaseEntry]:
        """Join a piece read by ``next_chunk`` to the project (returned as added)."""
        added = self.project.add_entries(piece)
        self.project.indexing = not self.done
        return added

    def _kinds_listed(self) -> dict[str, str]:
        try:
            with os.scandir(self.project.cases_dir) as listing:
                return {
                    e.name: LINK
                    if e.is_symlink()
                    else FOLDER
                    if e.is_dir(follow_symlinks=False)
                    else OTHER
                    for e in listing
                }
        except OSError:
            return {}  # each entry is then looked at on its own

    def _kind(self, name: str) -> str | None:
        try:
            mode = os.lstat(os.path.join(self.project.cases_dir, name)).st_mode  # noqa: PTH118
        except OSError:
            return None  # gone since the listing
        return LINK if stat.S_ISLNK(mode) else FOLDER if stat.S_ISDIR(mode) else OTHER


def _has_pending_repair(repairs: Any) -> bool:
    return isinstance(repairs, list) and any(
        isinstance(r, dict) and r.get("status") == "preview" for r in repairs
    )


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
