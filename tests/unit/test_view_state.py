"""The view state without Qt: a case opens fitted, comparisons give back their zoom."""

from __future__ import annotations

from sabre_desk.core.desk.view_state import Comparison, ViewState, Zoom


def test_another_case_opens_fitted_and_the_same_one_keeps_its_zoom() -> None:
    state = ViewState()
    state.open_case("a")
    state.set_zoom(Zoom(2000.0, 0.3, 0.4))
    state.open_case("a")  # shown again (a comparison left, an image replaced)
    assert state.zoom == Zoom(2000.0, 0.3, 0.4)
    state.open_case("b")
    assert state.fitted


def test_leaving_a_comparison_gives_back_the_zoom_it_came_with() -> None:
    state = ViewState()
    state.open_case("a")
    state.set_zoom(Zoom(900.0))
    state.enter(Comparison.REPAIR)
    state.set_zoom(Zoom(4000.0, 0.2, 0.2))  # zoomed on the repaired box
    state.enter(Comparison.SWIPE)
    state.set_zoom(None)
    state.leave(Comparison.SWIPE)
    assert state.zoom == Zoom(4000.0, 0.2, 0.2) and state.repairing
    state.enter(Comparison.SWIPE)
    state.leave(Comparison.REPAIR)  # a swipe entered inside the comparison ends with it
    assert state.zoom == Zoom(900.0) and state.comparisons == ()


def test_a_swipe_stays_on_from_case_to_case_and_a_repair_comparison_does_not() -> None:
    state = ViewState()
    seen: list[tuple[Comparison, ...]] = []
    state.comparison_changed.connect(lambda: seen.append(state.comparisons))
    state.open_case("a")
    state.enter(Comparison.SWIPE)
    state.enter(Comparison.REPAIR)
    state.open_case("b")
    assert state.comparisons == (Comparison.SWIPE,) and state.fitted
    assert seen[-1] == (Comparison.SWIPE,)
    state.set_zoom(Zoom(1500.0))
    state.leave(Comparison.SWIPE)
    assert state.fitted  # the swipe came, on this case, with the fitted view


def test_another_project_keeps_nothing_of_the_last_case_view() -> None:
    """The same case id in another project is another case: it opens fitted."""
    state = ViewState()
    state.open_case("a")
    state.enter(Comparison.REPAIR)
    state.set_zoom(Zoom(3000.0))
    state.close()
    state.open_case("a")
    assert state.fitted and not state.repairing


def test_a_zoom_is_announced_once_and_entering_twice_changes_nothing() -> None:
    state = ViewState()
    zooms: list[Zoom | None] = []
    state.zoom_changed.connect(lambda: zooms.append(state.zoom))
    state.open_case("a")
    state.set_zoom(Zoom(800.0))
    state.set_zoom(Zoom(800.0))
    state.enter(Comparison.SWIPE)
    state.set_zoom(Zoom(1600.0))
    state.enter(Comparison.SWIPE)  # already on: the zoom it came with stays 800
    state.leave(Comparison.SWIPE)
    assert zooms == [Zoom(800.0), Zoom(1600.0), Zoom(800.0)]
