"""The audit queue as the window shows it, Qt-free: the project's flagged questions (those
the evaluated models agree on against the reference, ``audit --flag``), which of them a
reviewer has settled, and the cases still holding one to settle.

It is read once a project's index is whole (``read_audit``, on a worker: every flagged
case is loaded), with ``project_standing``, the one computation ``stats`` and ``export``
count with. After that only the open case can change under the window: its flags are
settled again from its reviews as edited (``case_reviewed``), with ``audit_standing`` and
the very reviews ``project_standing`` reads once they are saved, so the case leaves the
list's "Answers the models dispute" when ``stats`` stops counting it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Review
from sabre_desk.core.jobs.events import Event
from sabre_desk.core.release.audit import (
    AuditStanding,
    audit_standing,
    project_standing,
    read_flags,
)


@dataclass(frozen=True)
class FlaggedAnswer:
    """One flagged question of a case, as the probe table shows it beside the reference."""

    question_id: str
    probe_id: str
    reference: str  # the reference the models were graded against
    agreed: str  # the answer the agreeing models give, as the answer rules read it
    answers: dict[str, str | None]  # model → its response as given (None: no answer)
    settled: bool

    def describe(self) -> str:
        """The models' answers in one line, for a tooltip."""
        said = ", ".join(
            f"{model}: {'no answer' if text is None else repr(text)}"
            for model, text in sorted(self.answers.items())
        )
        if self.settled:
            return f"Settled. The models agreed on {self.agreed!r} ({said})."
        return (
            f"The models agree on {self.agreed!r} against the reference {self.reference!r} "
            f"({said}). Edit the answer, or decide the case again, to settle it."
        )


def read_audit(project: Project) -> tuple[list[dict[str, Any]], AuditStanding]:
    """The project's flags and their standing (loads every flagged case: off the window's
    thread). Raises ProjectError for an audit.json that is not one."""
    return read_flags(project.root), project_standing(project)


class AuditQueue:
    """The flags of the open project and their standing; ``changed`` is announced with the
    cases left to settle whenever that set or any flag's standing changes."""

    def __init__(self) -> None:
        self._flags: list[dict[str, Any]] = []
        self._by_case: dict[str, list[dict[str, Any]]] = {}
        self.standing = AuditStanding((), ())
        self.changed: Event[[frozenset[str]]] = Event()

    def set(self, flags: list[dict[str, Any]], standing: AuditStanding) -> None:
        """A project's audit as ``read_audit`` found it (none: ``set([], …)``)."""
        self._flags = list(flags)
        self._by_case = {}
        for flag in self._flags:
            self._by_case.setdefault(str(flag.get("case_id")), []).append(flag)
        self.standing = standing
        self.changed.emit(self.unsettled_cases)

    def clear(self) -> None:
        self.set([], AuditStanding((), ()))

    @property
    def unsettled_cases(self) -> frozenset[str]:
        """The cases with at least one flagged question nobody settled yet."""
        left = set(self.standing.unsettled)
        return frozenset(
            case_id
            for case_id, flags in self._by_case.items()
            if any(str(f["question_id"]) in left for f in flags)
        )

    def flagged(self, case_id: str) -> dict[str, FlaggedAnswer]:
        """The flagged questions of *case_id*, by probe id (empty: none)."""
        settled = set(self.standing.settled)
        out = {}
        for flag in self._by_case.get(case_id, []):
            answers = flag.get("answers")
            qid = str(flag["question_id"])
            out[str(flag.get("probe_id"))] = FlaggedAnswer(
                qid,
                str(flag.get("probe_id")),
                str(flag.get("reference", "")),
                str(flag.get("agreed", "")),
                {str(m): None if a is None else str(a) for m, a in answers.items()}
                if isinstance(answers, dict)
                else {},
                qid in settled,
            )
        return out

    def case_reviewed(self, case_id: str, reviews: Iterable[Review]) -> bool:
        """Settle *case_id*'s flags again against *reviews* (the case's reviews as they
        are now, ``final.all_reviews``); True when its standing changed."""
        flags = self._by_case.get(case_id)
        if not flags:
            return False
        reviews = list(reviews)
        part = audit_standing(flags, lambda _case: reviews)
        mine = {str(f["question_id"]) for f in flags}
        settled = (set(self.standing.settled) - mine) | set(part.settled)
        standing = AuditStanding(
            self.standing.flagged, tuple(q for q in self.standing.flagged if q in settled)
        )
        if standing == self.standing:
            return False
        self.standing = standing
        self.changed.emit(self.unsettled_cases)
        return True
