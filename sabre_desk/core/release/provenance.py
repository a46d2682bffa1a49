"""Where each released case came from, so a release can be audited without the project:
its primer (name and the hash of the file), its generation record, the filtering model's
latest run, the final reviewers' boxes and the repairs that replaced its images; and the
funnel of the whole project (the paper's Appendix D.4): candidates, solved by the filter,
reviewed, accepted, repaired.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Case
from sabre_desk.core.case.review import Review
from sabre_desk.engines.models import qualified_name
from sabre_desk.ground.hashing import file_sha256


def case_provenance(
    case: Case, reviews: dict[str, Review], primers: PrimerLibrary, default_primer: str | None
) -> dict[str, Any]:
    """What every question of *case* carries about the case (beside the decision)."""
    primer, _ = primers.for_spec(case.spec, default_primer)
    latest = case.screening.latest if case.screening else None
    return {
        "primer": (
            {"name": primer.name, "sha256": file_sha256(primer.path)}
            if primer is not None
            else None
        ),
        "generation": case.spec.generation,
        "screening": (
            {
                "model": qualified_name(latest.engine or "gemini", latest.model),
                "at": latest.at,
                "prompt_version": latest.prompt_version,
                "gate": latest.gate,
            }
            if latest is not None
            else None
        ),
        "boxes": {
            name: [
                b.model_dump(mode="json", include={"image_role", "label", "box"}) for b in r.boxes
            ]
            for name, r in sorted(reviews.items())
            if r.boxes
        },
        "repairs": [
            {
                "id": r.id,
                "image_role": r.image_role,
                "engine": r.engine,
                "model": r.model,
                "op": r.op,
                "instruction": r.instruction,
                "by": review.reviewer,
            }
            for review in reviews.values()
            for r in review.repairs
            if r.status == "accepted"
        ],
    }


def probe_screening(case: Case, probe_id: str) -> dict[str, Any] | None:
    """The filtering model's answer to this probe in the latest run, or None."""
    latest = case.screening.latest if case.screening else None
    result = latest.results.get(probe_id) if latest is not None else None
    if result is None:
        return None
    return {"parsed": result.parsed, "correct": result.correct, "failed": result.failed}


@dataclass
class Funnel:
    """How the project's cases became the release, under the names of ``counts``."""

    cases: int = 0  # case folders in the project
    valid: int = 0
    solved_by_filter: int = 0  # the filtering model answered them: discarded
    with_final: int = 0  # a final decision was reached (with the release's --min-reviews)
    exported: int = 0  # in this release
    repaired: int = 0  # released with at least one accepted repair
    left_out: dict[str, int] = field(default_factory=dict)  # by reason (counts.LeftOut)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)
