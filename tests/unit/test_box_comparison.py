"""One box, one comparison: the best result shown whatever order results arrive in; accepting
one closes the box's others; a result made on an image changed since can never be accepted.
Real projects, real engines, real files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import RepairRecord
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import comparison, repairs
from sabre_desk.engines.base import RepairEngine
from sabre_desk.engines.opencv import FsrEngine, NavierStokesEngine, TeleaEngine
from sabre_desk.engines.pipeline import RepairOrder
from sabre_desk.engines.registry import BY_QUALITY, ENGINES
from sabre_desk.ground.errors import RepairError

CASE = "ctx03_wrench_banana"
FRAGMENT = (0.345, 0.595, 0.41, 0.69)
OTHER_BOX = (0.1, 0.1, 0.2, 0.2)
EDITED = ImageRole.EDITED


def land(
    project: Project,
    case: Case,
    engine: RepairEngine,
    box: tuple[float, float, float, float] = FRAGMENT,
    stands_in_for: str | None = None,
) -> RepairRecord:
    """A result computed on the case's image as it is now, landing in the review now."""
    order = RepairOrder(box, "remove", "remove the jaw")
    record, _ = repairs.compute_preview(case, EDITED, order, engine, None, stands_in_for)
    repairs.add_preview(project, case, record)
    return record


def current(case: Case) -> str | None:
    return comparison.image_digest(case.images[EDITED])


def test_every_registered_engine_has_a_place_in_the_order_of_quality() -> None:
    assert set(BY_QUALITY) == set(ENGINES)
    quick = ENGINES["patchmatch"].quick_preview
    assert quick is not None
    assert list(BY_QUALITY).index("patchmatch") < list(BY_QUALITY).index(quick)


def test_a_quick_preview_landing_last_never_replaces_the_better_result(
    demo_project: Path,
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    # the better engine's result arrives first, its quick stand-in after it
    better = land(project, case, TeleaEngine())
    quick = land(project, case, FsrEngine(), stands_in_for="opencv-telea")
    shown = comparison.to_show(case.review.repairs, quick)
    assert shown.id == better.id
    box = comparison.results_of(case.review.repairs, quick)
    assert [r.id for r in box.alternatives()] == [quick.id]
    assert comparison.accept_label(shown, current(case)) == "Accept Telea result"
    # it is no longer a stand-in: the result it stood in for is here
    assert "stand-in" not in comparison.state_text(quick, box, current(case))


def test_a_stand_in_says_so_until_the_better_result_replaces_it(demo_project: Path) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    quick = land(project, case, FsrEngine(), stands_in_for="opencv-telea")
    box = comparison.results_of(case.review.repairs, quick)
    assert comparison.to_show(case.review.repairs, quick).id == quick.id
    text = comparison.state_text(quick, box, current(case))
    assert text == "quick stand-in until the Telea result arrives"
    assert comparison.accept_label(quick, current(case)) == "Accept quick FSR result"
    better = land(project, case, TeleaEngine())
    assert comparison.to_show(case.review.repairs, better).id == better.id


def test_accepting_one_result_closes_the_boxs_others_and_the_waiting_mark(
    demo_project: Path,
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    first = land(project, case, FsrEngine(), stands_in_for="opencv-telea")
    second = land(project, case, TeleaEngine())
    assert project.entry(CASE).pending_repair
    repairs.accept(project, case, second.id)
    assert not project.entry(CASE).pending_repair  # no "repair waiting" mark
    review = json.loads(case.review_path.read_text())
    by_id = {r["id"]: r for r in review["repairs"]}
    assert by_id[second.id]["status"] == "accepted"
    assert by_id[first.id]["status"] == "discarded"
    assert by_id[first.id]["not_taken_for"] == second.id
    assert (case.folder / first.preview).is_file()  # kept on disk
    box = comparison.results_of(case.review.repairs, first)
    assert comparison.state_text(first, box, current(case)) == f"not taken ({second.id} accepted)"
    events = [json.loads(x) for x in (case.folder / "history.jsonl").read_text().splitlines()]
    assert {"id": first.id, "accepted": second.id} in [
        e["data"] for e in events if e["event"] == "repair_not_taken"
    ]


def test_a_result_made_on_an_image_changed_since_can_never_be_accepted(
    demo_project: Path,
) -> None:
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    elsewhere = land(project, case, NavierStokesEngine(), box=OTHER_BOX)
    first = land(project, case, FsrEngine())
    second = land(project, case, TeleaEngine())
    repairs.accept(project, case, second.id)
    image = case.folder / "edited.png"
    before = image.read_bytes()
    for stale in (first, elsewhere):
        assert comparison.is_stale(stale, current(case))
        assert comparison.accept_label(stale, current(case)) == comparison.AGAIN
        assert not comparison.can_accept(stale, current(case))
        with pytest.raises(RepairError, match="has changed since"):
            repairs.accept(project, case, stale.id)
        assert image.read_bytes() == before  # nothing lost, nothing replaced
    # reloaded from disk, the hash it was made on is still known
    again = Project.open(demo_project, "alice").load_case(CASE)
    with pytest.raises(RepairError, match="has changed since"):
        repairs.accept(project, again, first.id)
    # back on the image it was made on, it can be accepted again
    repairs.revert(project, case, second.id)
    assert not comparison.is_stale(first, current(case))
    repairs.accept(project, case, first.id)
    assert image.read_bytes() == (case.folder / first.preview).read_bytes()


def test_reverting_the_accepted_result_reopens_the_results_it_closed(
    demo_project: Path,
) -> None:
    """Accepting one result closes the box's others; reverting it (the Revert button, or
    Ctrl+Z of the accept) puts back the image they were made on, so they wait for the
    reviewer again. Left closed, the list said "not taken (r3 accepted)" under an r3 that
    said "reverted". One the reviewer discarded before stays discarded."""
    project = Project.open(demo_project, "alice")
    case = project.load_case(CASE)
    discarded = land(project, case, NavierStokesEngine())
    repairs.discard(project, case, discarded.id)
    first = land(project, case, FsrEngine(), stands_in_for="opencv-telea")
    second = land(project, case, TeleaEngine())
    repairs.accept(project, case, second.id)
    repairs.revert(project, case, second.id)
    box = comparison.results_of(case.review.repairs, first)
    assert comparison.state_text(first, box, current(case)) == "waiting for you"
    assert comparison.state_text(second, box, current(case)) == "reverted"
    assert comparison.state_text(discarded, box, current(case)) == "discarded"
    assert project.entry(CASE).pending_repair  # the "repair waiting" mark is back
    review = json.loads(case.review_path.read_text())
    by_id = {r["id"]: r for r in review["repairs"]}
    assert by_id[first.id]["status"] == "preview" and "not_taken_for" not in by_id[first.id]
    events = [json.loads(x) for x in (case.folder / "history.jsonl").read_text().splitlines()]
    assert {"id": first.id, "restored": True, "reverted": second.id} in [
        e["data"] for e in events if e["event"] == "repair_preview"
    ]
    repairs.accept(project, case, second.id)  # accepted again: closed again
    assert comparison.state_text(first, box, current(case)) == f"not taken ({second.id} accepted)"
