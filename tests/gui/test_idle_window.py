"""An idle window sleeps: with nothing pending, no timer wakes it several times a second, and
what changes on disk is still noticed, only less often looked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from factories import write_review
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from sabre_desk.gui.machinery.collector import GuiCollector
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.case_list_model import ENTRY_ROLE
from sabre_desk.gui.team.live_ui import (
    CASE_POLL_MAX_MS,
    CASE_POLL_MS,
    PROJECT_POLL_MAX_MS,
    PROJECT_POLL_MS,
)


@pytest.fixture
def project(project_with: Callable[..., Path]) -> Path:
    """Three cases: one open, two others that can change on disk meanwhile."""
    return project_with("c1", "c2", "c3")


def quick_repeating_timers(window: MainWindow) -> list[str]:
    """Every active repeating timer of the window and the application that fires more
    often than once a second."""
    app = QApplication.instance()
    timers = {*window.findChildren(QTimer), *app.findChildren(QTimer)}
    return [
        f"{t.parent().__class__.__name__}: {t.interval()} ms"
        for t in timers
        if t.isActive() and not t.isSingleShot() and t.interval() < 1000
    ]


def test_with_nothing_pending_no_timer_wakes_the_window_more_than_once_a_second(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    open_case(window, project, "c1")
    assert window.wait_for_background(15000)
    qtbot.waitUntil(lambda: window.previews.sweep.through, timeout=15000)
    # the collector slows down once it finds nothing due, the polls once they find nothing
    qtbot.waitUntil(lambda: not quick_repeating_timers(window), timeout=10000)
    collector = QApplication.instance().findChild(GuiCollector)
    assert collector is not None and collector.running  # still collecting, only less often


def test_the_open_case_is_polled_less_while_nothing_changes_and_a_change_is_still_seen(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    open_case(window, project, "c1")
    live = window.team_ui.live
    assert live.case_timer.interval() == CASE_POLL_MS  # a case just opened: looked at often
    for _ in range(4):
        live.poll_case()  # what the timer does, with nothing changed on disk
    assert live.case_timer.interval() == CASE_POLL_MAX_MS and live.case_timer.isActive()
    write_review(project / "cases/c1", "bob", "keep")  # another reviewer, elsewhere
    with qtbot.waitSignal(live.case_changed, timeout=CASE_POLL_MAX_MS + 3000) as changed:
        pass  # the backed-off timer itself notices it
    assert changed.args[0].reviewers == frozenset({"bob"})
    assert live.case_timer.interval() == CASE_POLL_MS  # something moves: quick again


def test_the_project_poll_backs_off_and_still_notices_another_case_changing(
    qtbot, window: MainWindow, open_case: Callable, project: Path
) -> None:
    open_case(window, project, "c1")
    live = window.team_ui.live
    qtbot.waitUntil(lambda: live.cases_noted == 3, timeout=5000)
    for _ in range(4):
        live.poll_project()  # what the timer does: nothing changed
        qtbot.waitUntil(lambda: live._looking is None, timeout=5000)
    assert live.project_timer.interval() == PROJECT_POLL_MAX_MS
    write_review(project / "cases/c2", "bob", "keep")
    with qtbot.waitSignal(live.cases_changed, timeout=5000) as changed:
        live.poll_project()
    assert changed.args[0] == ["c2"]
    assert live.project_timer.interval() == PROJECT_POLL_MS


class TimerEvents(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        self.count += event.type() == QEvent.Type.Timer
        return False


def test_a_case_flagged_in_the_background_repaints_its_row_without_laying_out_the_list(
    qtbot, window: MainWindow, open_case: Callable, project: Path, add_case: Callable
) -> None:
    for i in range(600):  # more rows than the list lays out in one batch
        add_case(project, f"m{i:04d}")
    open_case(window, project, "c1")
    view = window.case_list.view
    qtbot.waitUntil(lambda: window.workbench.visible_count == 603, timeout=10000)
    qtbot.wait(200)  # the first layout, in batches
    timers = TimerEvents()
    view.installEventFilter(timers)
    far = window.workbench.entry("m0500")
    window.workbench.update_entry(replace(far, changes_outside=True))  # as the sweep does
    for _ in range(20):
        QApplication.processEvents()
    assert timers.count == 0  # no layout pass over the rows, in batches or at once
    row = window.workbench.row_of("m0500")
    assert window.case_list.model.index(row).data(ENTRY_ROLE).changes_outside  # it is shown
