"""What the index knows of one case (``CaseEntry``), and the full check's verdict on it
(``Verdict``): valid, or the first problem that makes it invalid, in one line that every
surface says the same way (`validate`, `stats`, the case list, the refusal of Keep)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sabre_desk.core.case.gate import ScreenStatus
from sabre_desk.core.case.review import Decision


def problem_text(file: Path | None, folder: Path, reason: str) -> str:
    """One problem of a case in one line, naming its file (or the case folder): the words
    of `validate`, the case list's tooltip, the refusal of Keep and the reports' lists."""
    return f"{(file or folder).name}: {reason}"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The full check's word on one case (``validity.Validity.check``, the rule `validate`,
    `stats`, `export` and the window apply): valid, or the first problem that makes it
    invalid, in `validate`'s words. ``Project.record_verdict`` puts it into the index."""

    case_id: str
    #: the file the problem is about (None: the case folder itself)
    file: Path | None = None
    #: None: the case is valid
    reason: str | None = None
    #: every image was decoded in full (False: a check without decoding, which a
    #: truncated image passes: a valid verdict of it leaves the entry unchecked)
    decoded: bool = True

    @property
    def valid(self) -> bool:
        return self.reason is None

    @property
    def text(self) -> str | None:
        """Why the case is invalid in one line, as ``CaseEntry.problem_text`` and
        ``CaseReport.reason`` say it (None: valid)."""
        if self.reason is None:
            return None
        return problem_text(self.file, Path(self.case_id), self.reason)


@dataclass(frozen=True, slots=True)
class CaseEntry:
    """One row of the index: enough for the case list and stats, no image decoded."""

    case_id: str
    cases_dir: Path
    subset: str | None = None
    concept_id: str | None = None
    generation_mode: str | None = None
    decision: Decision | None = None
    problem: str | None = None
    #: the file the problem is about (None: the case folder itself)
    problem_file: Path | None = None
    #: a repair preview is waiting for the reviewer to accept or discard it
    pending_repair: bool = False
    #: the change map found changes well outside the edit (None: not compared yet)
    changes_outside: bool | None = None
    #: this reviewer's decision was made on images since replaced (``decision`` then says
    #: "needs recheck")
    stale: bool = False
    #: the case is assigned to this reviewer (None: the project has no assignments)
    assigned_to_me: bool | None = None
    #: other reviewers disagree and nobody has settled it (known once the team was read)
    disputed: bool = False
    #: the filter gate on the latest screening run (None: could not be told when indexed)
    screening: ScreenStatus | None = None
    #: ``problem`` is the full check's verdict on the files as they are (``Verdict``,
    #: recorded by ``Project.record_verdict``), not only what the index saw of them: an
    #: unchecked entry without a problem may still be invalid (an image that does not
    #: decode, a spec that breaks its schema or its primer, another's unreadable review)
    checked: bool = False

    @property
    def folder(self) -> Path:
        # Derived, not stored: building 100,000 Path objects is a third of indexing time.
        return self.cases_dir / self.case_id

    @property
    def is_valid(self) -> bool:
        return self.problem is None

    @property
    def problem_text(self) -> str | None:
        """Why the case is invalid as far as the index knows, in `validate`'s words
        ("spec.json: unreadable (…)"); None: no problem known."""
        if self.problem is None:
            return None
        return problem_text(self.problem_file, self.folder, self.problem)
