"""Decisions bound to their images, blind review, adjudication and the older formats."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from factories import file_sha, rgb_array, write_review

from sabre_desk.core.case.binding import bind, image_hashes, is_stale
from sabre_desk.core.case.project import Case, Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.repair import repairs
from sabre_desk.core.team.final import all_reviews, question_edits, settle
from sabre_desk.core.team.team import case_team, in_queue, queue, write_team_settings
from sabre_desk.imaging.io import encode_png

EDITED = ImageRole.EDITED


def preview(project: Project, case: Case, seed: int = 1) -> str:
    """A repair preview of the Edited image (random pixels of the same size), recorded."""
    width, height = case.image_info[EDITED].width, case.image_info[EDITED].height
    record, _ = repairs.save_preview(
        case,
        EDITED,
        encode_png(rgb_array(width, height, seed)),
        "file",
        {"op": "remove", "box": (0, 0, 1, 1)},
    )
    repairs.add_preview(project, case, record)
    return record.id


@pytest.fixture
def pair(make_project: Callable, add_case: Callable) -> Path:
    root = make_project()
    add_case(root, "c1")
    return root


def decide(project: Project, case_id: str, decision: Decision) -> Case:
    case = project.load_case(case_id)
    bind(case.review, decision, image_hashes(case.images) or {})
    project.save_review(case)
    project.update_entry(case)
    return case


def test_a_decision_records_the_hashes_of_its_images(pair: Path) -> None:
    case = decide(Project.open(pair, "alice"), "c1", Decision.KEEP)
    saved = json.loads(case.review_path.read_text())
    assert saved["version"] == 2
    assert saved["decided_on"] == {
        "base": file_sha(case.folder / "base.png"),
        "edited": file_sha(case.folder / "edited.png"),
    }
    assert saved["decided_at"].endswith("Z")


def test_an_accepted_repair_makes_every_earlier_decision_stale_and_a_revert_undoes_it(
    pair: Path,
) -> None:
    decide(Project.open(pair, "bob"), "c1", Decision.KEEP)
    alice = Project.open(pair, "alice")
    case = decide(alice, "c1", Decision.KEEP)
    repair = preview(alice, case)
    repairs.accept(alice, case, repair)
    # the repairer: "needs recheck", on the new image; bob: stale, for him and for export
    assert case.review.decision is Decision.NEEDS_RECHECK
    assert case.review.decided_on[EDITED] == file_sha(case.folder / "edited.png")
    bob = Project.open(pair, "bob")
    entry = bob.entry("c1")
    assert entry.stale and entry.decision is Decision.NEEDS_RECHECK  # in bob's case list
    bobs_case = bob.load_case("c1")
    hashes = image_hashes(bobs_case.images)
    assert is_stale(bobs_case.review, hashes)
    final = settle(all_reviews(bobs_case), hashes)
    assert final.decision is Decision.NEEDS_RECHECK and final.stale == ("bob",)
    assert final.behind == ("alice",)
    team = case_team(bob, bobs_case, hashes)
    assert team.own_stale and "bob" in team.stale
    # a revert puts the original back: bob's decision is about exactly these pixels again
    repairs.revert(alice, case, repair)
    bob = Project.open(pair, "bob")
    assert not bob.entry("c1").stale and bob.entry("c1").decision is Decision.KEEP
    again = bob.load_case("c1")
    assert not is_stale(again.review, image_hashes(again.images))
    assert is_stale(alice.load_case("c1").review, image_hashes(again.images))  # alice's is


def test_a_version_1_review_loads_and_its_adjudicated_flag_is_migrated(pair: Path) -> None:
    folder = pair / "cases/c1"
    (folder / "reviews").mkdir()
    (folder / "reviews/carol.json").write_text(
        json.dumps({"case_id": "c1", "reviewer": "carol", "decision": "keep", "adjudicated": True})
    )
    write_review(folder, "alice", "keep")
    write_review(folder, "bob", "edit_failed")
    case = Project.open(pair, "dave").load_case("c1")
    carol = case.other_reviews["carol"]
    assert carol.adjudication and carol.version == 2 and not carol.decided_on
    assert not is_stale(carol, image_hashes(case.images))  # unbound: never stale
    # a project that names no adjudicators accepts anyone's (as version 1 did) …
    assert settle(all_reviews(case)).why == "adjudicated by carol"
    # … one that names them accepts theirs only
    assert settle(all_reviews(case), adjudicators=["erin"]).decision is None
    # carol opening her own old review writes it back as version 2
    own = Project.open(pair, "carol")
    mine = own.load_case("c1")
    own.save_review(mine)
    saved = json.loads(mine.review_path.read_text())
    assert saved["version"] == 2 and saved["adjudication"] is True and "adjudicated" not in saved


def test_blind_review_hides_the_others_until_one_has_decided(pair: Path) -> None:
    folder = pair / "cases/c1"
    write_review(folder, "bob", "edit_failed", notes="the bagel is a donut")
    alice = Project.open(pair, "alice")
    case = alice.load_case("c1")
    team = case_team(alice, case, image_hashes(case.images))
    assert team.hidden and team.others == {} and team.others_count == 1
    case = decide(alice, "c1", Decision.KEEP)
    team = case_team(alice, case, image_hashes(case.images))
    assert not team.hidden and team.others["bob"].notes == "the bagel is a donut"
    # a project with blind review off shows everything at once
    write_team_settings(pair, {"blind": False})
    carol = Project.open(pair, "carol")
    other = carol.load_case("c1")
    assert not case_team(carol, other, image_hashes(other.images)).hidden


def test_an_adjudicator_sees_a_disputed_case_and_settles_it(pair: Path) -> None:
    folder = pair / "cases/c1"
    write_review(folder, "alice", "keep")
    write_review(folder, "bob", "edit_failed")
    write_team_settings(pair, {"adjudicators": ["carol"]})
    carol = Project.open(pair, "carol")
    case = carol.load_case("c1")
    hashes = image_hashes(case.images)
    team = case_team(carol, case, hashes)
    assert team.disputed and team.adjudicating and not team.hidden
    assert in_queue(carol, case, hashes)
    bind(case.review, Decision.EDIT_FAILED, hashes or {})
    case.review.adjudication = True
    carol.save_review(case)
    assert not in_queue(carol, case, hashes)
    final = settle(all_reviews(case), hashes, adjudicators=["carol"])
    assert final.decision is Decision.EDIT_FAILED and final.settled_by == "carol"
    assert final.behind == ("carol", "bob")
    # dave is no adjudicator: the dispute stays hidden from him until he decides
    dave = Project.open(pair, "dave")
    daves = dave.load_case("c1")
    assert case_team(dave, daves, hashes).hidden and not in_queue(dave, daves, hashes)


def test_conflicting_question_edits_are_shown_and_never_merged(pair: Path) -> None:
    folder = pair / "cases/c1"
    edit = {"question_edits": {"base_source": {"answer": "no"}}}
    write_review(folder, "alice", "keep", **edit)
    write_review(folder, "bob", "keep", question_edits={"base_source": {"answer": "yes"}})
    case = Project.open(pair, "alice").load_case("c1")
    reviews = all_reviews(case)
    final = settle(reviews, image_hashes(case.images))
    edits, conflicts = question_edits(reviews, final)
    assert final.decision is Decision.KEEP
    assert conflicts == ["base_source (alice: answer 'no' / bob: answer 'yes')"]
    team = case_team(Project.open(pair, "alice"), case, image_hashes(case.images))
    assert team.conflicts == tuple(conflicts)
    # an adjudicator's edit settles the probe
    write_review(folder, "carol", "keep", adjudication=True, **edit)
    case = Project.open(pair, "alice").load_case("c1")
    reviews = all_reviews(case)
    final = settle(reviews, image_hashes(case.images))
    edits, conflicts = question_edits(reviews, final)
    assert conflicts == [] and edits["base_source"].answer == "no"


def test_with_no_adjudicator_named_anyone_may_settle_and_the_queue_is_the_disputed_cases(
    pair: Path,
) -> None:
    """One rule: the words the views show, who may settle, and which cases wait, alike for
    the Team dialog's count (ratings) and Next Disagreement's queue."""
    from sabre_desk.core.team.ratings import adjudicator_rule, collect

    folder = pair / "cases/c1"
    write_review(folder, "alice", "keep")
    write_review(folder, "bob", "edit_failed")
    alice = Project.open(pair, "alice")
    case = alice.load_case("c1")
    hashes = image_hashes(case.images)
    assert alice.is_adjudicator  # none named: anyone may
    assert adjudicator_rule(None) == "adjudicators: none named (anyone may settle a disagreement)"
    disputed = [c.case_id for c in collect(alice).cases if c.disputed]
    assert disputed == ["c1"] and in_queue(alice, case, hashes)
    # carol is named: only she settles, and the case is in her queue only
    write_team_settings(pair, {"adjudicators": ["carol"]})
    alice = Project.open(pair, "alice")
    assert not alice.is_adjudicator and not in_queue(alice, alice.load_case("c1"), hashes)
    carol = Project.open(pair, "carol")
    assert in_queue(carol, carol.load_case("c1"), hashes)
    assert "only they settle" in adjudicator_rule(carol.manifest.adjudicators)


def test_the_queue_is_the_disputed_cases_whoever_reviewed_what(
    make_project: Callable, add_case: Callable
) -> None:
    """A case only its own reviewer (or only one other) has judged cannot wait in the
    queue; one two others disagree on does, for someone who never looked at it too."""
    root = make_project()
    for case_id in ("split", "mine_only", "bob_only", "agreed"):
        add_case(root, case_id)
    write_review(root / "cases/split", "alice", "keep")
    write_review(root / "cases/split", "bob", "edit_failed")
    write_review(root / "cases/mine_only", "alice", "keep")
    write_review(root / "cases/bob_only", "bob", "edit_failed")
    write_review(root / "cases/agreed", "alice", "keep")
    write_review(root / "cases/agreed", "bob", "keep")
    ids = ["split", "mine_only", "bob_only", "agreed", "no_such_case"]
    expected = {"split": True, "mine_only": False, "bob_only": False, "agreed": False}
    assert queue(Project.open(root, "alice"), ids) == {**expected, "no_such_case": False}
    assert queue(Project.open(root, "carol"), ids, exact=True) == {
        **expected,
        "no_such_case": False,
    }
