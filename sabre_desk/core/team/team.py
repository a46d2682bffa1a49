"""What one reviewer may see of the others on a case, and the project's team settings.

Blind review: while a project is blind (the default: ``"blind"`` absent or true in
sabre-project.json) the other reviewers' decisions, notes and boxes stay hidden until you
have decided the case yourself, so that the agreement figures measure independent
judgements. An adjudicator sees a disputed case whole (settling it is their job), and their
decision on it is recorded as an adjudication.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from sabre_desk.core.case.binding import Hashes, image_hashes, is_stale
from sabre_desk.core.case.case_files import anyone_else_reviewed
from sabre_desk.core.case.manifest import TEAM_VERSION
from sabre_desk.core.case.project import MANIFEST_NAME, Case, Manifest, Project
from sabre_desk.core.case.review import Review
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.case.validity import ERROR, CaseReport
from sabre_desk.core.team.final import current_decisions, edit_conflicts
from sabre_desk.core.team.live import PAUSE_EVERY
from sabre_desk.core.team.ratings import adjudicators_of, case_disputed, is_adjudication
from sabre_desk.ground.errors import CaseLoadError, NotAProjectError, StorageError
from sabre_desk.ground.storage import atomic_write_json, file_lock, read_json
from sabre_desk.ground.validation_messages import describe_validation_error


@dataclass(frozen=True)
class CaseTeam:
    """The open case as the team left it, seen by one reviewer."""

    #: the others' work is hidden from this reviewer now
    hidden: bool
    #: how many other reviewers have written a review of the case
    others_count: int
    #: the other reviews this reviewer may see (empty while hidden)
    others: dict[str, Review] = field(default_factory=dict)
    #: reviewers (possibly this one) whose decision was made on images since replaced
    stale: frozenset[str] = frozenset()
    #: the others disagree and no other adjudicator has settled it
    disputed: bool = False
    #: this reviewer's decision settles the disagreement (they are an adjudicator)
    adjudicating: bool = False
    #: probes that the visible reviews (this reviewer's included) edited differently
    conflicts: tuple[str, ...] = ()

    @property
    def own_stale(self) -> bool:
        return self.me in self.stale

    me: str = ""
    #: why this reviewer's decision is stale, in words (``stale_reason``; "" when it is not)
    own_stale_why: str = ""


def stale_reason(
    case: Case, review: Review, hashes: Hashes | None, report: CaseReport | None = None
) -> str:
    """Why *review*'s decision no longer counts, in words ("" when it still does): each
    image changed since it was decided, and how. An image that does not decode or is gone
    is said to be so in `validate`'s words (*report*: the case's full check, which knows a
    truncated file); one that a repair replaced (accepted or reverted after the decision,
    as the case's reviews record) is said to be repaired; any other was replaced outside
    the app. Never "a repair" for a file nobody repaired."""
    if not is_stale(review, hashes) or hashes is None:
        return ""
    problems = {
        p.file: p.reason
        for p in reversed(report.problems if report is not None else [])
        if p.severity == ERROR
    }
    reviews = [review, *case.other_reviews.values()]
    parts = []
    for role, digest in review.decided_on.items():
        if hashes.get(role) == digest:
            continue
        path = case.images.get(role)
        unreadable = case.image_problems.get(role)  # gone, a link out, a broken header
        name = path.name if path is not None else f"the {role.value} image"
        broken = problems.get(str(path)) if path is not None else None
        if unreadable is not None:
            parts.append(f"{(unreadable.path or case.folder).name}: {unreadable.reason}")
        elif broken is not None:
            parts.append(f"{name} changed since and is unreadable: {broken}")
        elif _repaired_after(reviews, role, review.decided_at):
            parts.append(f"a repair of {name} was accepted or reverted since")
        else:
            parts.append(f"{name} was replaced since (not by a repair made in sabre-desk)")
    return "; ".join(parts)


def _repaired_after(reviews: list[Review], role: ImageRole, decided_at: str | None) -> bool:
    """Whether a repair of image *role* was accepted or reverted after *decided_at*, by
    anyone (a review records its own repairs)."""
    for review in reviews:
        for repair in review.repairs:
            if repair.image_role != role or repair.status not in ("accepted", "reverted"):
                continue
            if decided_at is None or (repair.decided_at or "") >= decided_at:
                return True
    return False


def blind(manifest: Manifest) -> bool:
    return manifest.blind is not False


def others_disputed(case: Case, hashes: Hashes | None, adjudicators: list[str] | None) -> bool:
    """The other reviewers' current decisions differ and none of them settled it."""
    current, _ = current_decisions(dict(case.other_reviews), hashes)
    if any(is_adjudication(r, adjudicators) for r in current.values()):
        return False
    ratings = {r.decision for r in current.values()}
    return len(ratings) > 1


def case_team(
    project: Project, case: Case, hashes: Hashes | None, report: CaseReport | None = None
) -> CaseTeam:
    """What *project*'s reviewer sees of the others on *case* (images with *hashes*;
    *report*: the case's full check, when it has landed, for ``own_stale_why``)."""
    me = case.review.reviewer
    adjudicators = adjudicators_of(project)
    disputed = others_disputed(case, hashes, adjudicators)
    adjudicating = project.is_adjudicator and disputed
    hidden = (
        blind(project.manifest)
        and bool(case.other_reviews)
        and case.review.decision is None
        and not adjudicating
    )
    everyone = {**case.other_reviews, me: case.review}
    stale = frozenset(name for name, r in everyone.items() if is_stale(r, hashes))
    others = {} if hidden else dict(case.other_reviews)
    visible = {**others, me: case.review}
    settled_by = me if case.review.adjudication else None
    return CaseTeam(
        hidden=hidden,
        others_count=len(case.other_reviews),
        others=others,
        stale=stale,
        disputed=disputed,
        adjudicating=adjudicating,
        conflicts=tuple(edit_conflicts(visible, settled_by)),
        me=me,
        own_stale_why=stale_reason(case, case.review, hashes, report),
    )


def in_queue(project: Project, case: Case, hashes: Hashes | None) -> bool:
    """The case waits in this adjudicator's queue: disputed (as the Team dialog counts
    it), and this reviewer may settle it."""
    return project.is_adjudicator and case_disputed(case, hashes, adjudicators_of(project))


def queue(
    project: Project,
    case_ids: list[str],
    exact: bool = False,
    pause: Callable[[], None] | None = None,
) -> dict[str, bool]:
    """Which of *case_ids* wait in this adjudicator's queue (reads the cases: for a worker
    thread). Without *exact* the images are not hashed, so a disagreement that a repair
    made stale still shows until the case is opened (opening it checks exactly): hashing
    every image of a project would keep a core busy for minutes. A case that cannot be
    read is not in the queue. *pause* (if given) is called every PAUSE_EVERY cases."""
    flags: dict[str, bool] = {}
    cases_dir = str(project.cases_dir)
    for index, case_id in enumerate(case_ids):
        if pause is not None and index % PAUSE_EVERY == 0:
            pause()
        flags[case_id] = False  # a case that cannot be read is not in the queue
        # nobody else reviewed it: read no further (a solo project of 100,000 cases
        # otherwise loads every one, and the window's thread waits for the lock meanwhile)
        if not anyone_else_reviewed(os.path.join(cases_dir, case_id), project.reviewer):  # noqa: PTH118
            continue
        try:
            case = project.load_case(case_id)
        except CaseLoadError:
            continue
        hashes = image_hashes(case.images) if exact else None
        flags[case_id] = in_queue(project, case, hashes)
    return flags


# --- the settings in sabre-project.json ----------------------------------------------------


def write_team_settings(root: Path, changes: dict[str, Any]) -> Manifest:
    """Change the team settings (``reviewers``, ``adjudicators``, ``blind``) of the project
    manifest, keeping every other key; the manifest becomes at least version 2 (a later one
    is kept: only `init` and `upgrade` write the primers record version 3 promises)."""
    path = root / MANIFEST_NAME
    with file_lock(path):
        data, _ = read_json(path, "manifest", NotAProjectError)
        if not isinstance(data, dict):
            raise NotAProjectError("not a JSON object", path)
        found = data.get("version")
        version = max(found, TEAM_VERSION) if type(found) is int else TEAM_VERSION
        data = {**data, **changes, "version": version}
        for key, value in changes.items():
            if value is None:  # back to the default: the key is left out
                data.pop(key)
        try:
            manifest = Manifest.model_validate(data)
        except ValidationError as exc:
            reason = describe_validation_error(exc)
            raise StorageError(
                f"not saved: {reason}; the previous version is unchanged", path
            ) from exc
        atomic_write_json(path, data, kind="manifest")  # never past what its reader takes
    return manifest
