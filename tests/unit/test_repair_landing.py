"""Which landed repair opens the comparison: decided without a window (core/desk)."""

from __future__ import annotations

from sabre_desk.core.case.review import RepairRecord
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.repair_landing import Landing, RepairLandings


def record(rid: str, box: tuple[float, float, float, float], role: str = "edited") -> RepairRecord:
    return RepairRecord(
        id=rid,
        image_role=ImageRole(role),
        box=box,
        op="clean",
        engine="opencv-telea",
        preview=f"repairs/{rid}.png",
        status="preview",
    )


BOX = (0.1, 0.1, 0.3, 0.3)


def test_a_result_for_the_case_on_screen_is_shown_and_another_cases_is_not() -> None:
    landings = RepairLandings()
    assert landings.landing("c1", record("r1", BOX), open_case="c1") is Landing.SHOW
    assert landings.landing("c1", record("r1", BOX), open_case="c2") is Landing.ELSEWHERE
    assert landings.landing("c1", record("r1", BOX), open_case=None) is Landing.ELSEWHERE


def test_a_late_result_for_a_box_the_reviewer_went_back_from_waits_in_the_list() -> None:
    landings = RepairLandings()
    quick, better = record("r1", BOX), record("r2", BOX)
    landings.comparison_left("c1", quick)
    assert landings.landing("c1", better, open_case="c1") is Landing.LIST
    # another box, the other image, or another case are not held back
    assert landings.landing("c1", record("r3", (0.5, 0.5, 0.7, 0.7)), "c1") is Landing.SHOW
    assert landings.landing("c1", record("r4", BOX, role="base"), "c1") is Landing.SHOW
    assert landings.landing("c2", record("r5", BOX), "c2") is Landing.SHOW


def test_a_new_repair_on_the_case_shows_its_results_again() -> None:
    landings = RepairLandings()
    landings.comparison_left("c1", record("r1", BOX))
    landings.comparison_left("c2", record("r1", BOX))
    landings.started("c1")
    assert landings.landing("c1", record("r2", BOX), "c1") is Landing.SHOW
    assert landings.landing("c2", record("r2", BOX), "c2") is Landing.LIST


def test_a_repair_of_the_same_box_keeps_the_zoom_and_another_box_does_not() -> None:
    assert RepairLandings.same_box(record("r1", BOX), record("r2", BOX))
    assert not RepairLandings.same_box(record("r1", BOX), record("r2", (0.5, 0.5, 0.7, 0.7)))
    assert not RepairLandings.same_box(None, record("r2", BOX))
