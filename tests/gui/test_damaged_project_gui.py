"""A project damaged in every way the validator knows, in the real window: the case list's
footer, each case's mark and reason, the case panel, the Pipeline panel and the Team dialog
say what `validate --json` and `stats --json` say of the same folder."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from damaged_projects import SCREENING, TRUNCATED, damage_every_way, validate_reason
from PySide6.QtCore import Qt

from sabre_desk.cli import main
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.review.case_list_model import ENTRY_ROLE


def command_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    main([*args, "--json", "--reviewer", "alice"])
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def damaged_window(
    qtbot, window: MainWindow, demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[MainWindow, dict[str, Any], dict[str, Any]]:
    expected = damage_every_way(demo_project)
    validate = {
        c["case_id"]: c for c in command_json(capsys, "validate", str(demo_project))["cases"]
    }
    assert {c for c, r in validate.items() if not r["valid"]} == set(expected)
    stats = command_json(capsys, "stats", str(demo_project))
    with qtbot.waitSignal(window.verdicts.finished, timeout=60_000):
        assert window.open_project(demo_project)
    return window, validate, stats


def test_the_list_marks_counts_and_explains_each_case_as_validate_does(
    qtbot, damaged_window: tuple[MainWindow, dict[str, Any], dict[str, Any]]
) -> None:
    window, validate, stats = damaged_window
    counts = stats["counts"]
    footer = (
        f"decided by me {counts['decided_by_me']} / {counts['valid']} valid · "
        f"invalid {counts['invalid']}"
    )
    assert window.case_list.progress.text() == footer
    model = window.case_list.model
    invalid_icon = model._invalid.cacheKey()
    rows = {}
    for row in range(model.rowCount()):
        index = model.index(row)
        entry = model.data(index, ENTRY_ROLE)
        icon = model.data(index, Qt.ItemDataRole.DecorationRole)
        rows[entry.case_id] = (
            icon.cacheKey() == invalid_icon,
            model.data(index, Qt.ItemDataRole.ToolTipRole),
        )
    assert set(rows) == set(validate)
    for case_id, report in validate.items():
        marked_invalid, tooltip = rows[case_id]
        assert marked_invalid == (not report["valid"]), case_id
        if not report["valid"]:
            assert tooltip == f"Invalid — {validate_reason(report)}", case_id
    # the case with the corrupt screening.json was kept by alice: invalid all the same
    assert rows[SCREENING][0]


def test_each_case_shows_its_own_reason_and_a_cut_image_is_not_called_a_repair(
    qtbot,
    open_case: Callable,
    damaged_window: tuple[MainWindow, dict[str, Any], dict[str, Any]],
) -> None:
    window, validate, _stats = damaged_window
    for case_id in ("attr02_traffic_light", "count01_apples"):  # one after the other
        with qtbot.waitSignal(window.images_shown, timeout=10_000):
            window.case_list.select(case_id)
        own = validate_reason(validate[case_id])
        panel = window.case_panel.summary
        qtbot.waitUntil(lambda o=own, p=panel: o in p.toPlainText(), timeout=10_000)
        summary = panel.toPlainText()
        others = [
            validate_reason(r) for c, r in validate.items() if c != case_id and not r["valid"]
        ]
        assert not any(reason in summary for reason in others), case_id
    with qtbot.waitSignal(window.images_shown, timeout=10_000):
        window.case_list.select(TRUNCATED)
    section = window.team_ui.section
    qtbot.waitUntil(lambda: "truncated" in section.notice.text(), timeout=10_000)
    assert "repair" not in section.notice.text()


def test_the_pipeline_panel_and_the_team_dialog_give_stats_figures(
    qtbot, damaged_window: tuple[MainWindow, dict[str, Any], dict[str, Any]]
) -> None:
    window, _validate, stats = damaged_window
    ui = window.pipeline_ui
    with qtbot.waitSignal(ui.refreshed, timeout=20_000):
        ui.action.trigger()
    rows = ui.panel.stages
    shown = {n.text(): c.text() for n, c in zip(rows.names, rows.counts, strict=True)}
    pipeline = stats["pipeline"]
    for name, key in (
        ("Imaged", "imaged"),
        ("Valid", "valid"),
        ("Screened", "screened"),
        ("Kept by the filter", "kept"),
        ("Decided by anyone", "decided_by_anyone"),
        ("Final Keep", "final_keep"),
    ):
        assert shown[name] == str(pipeline[key]), name
    window.team_ui.dialog_action.trigger()
    dialog = window.team_ui.dialog
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.summary is not None, timeout=20_000)
    header = dialog.header.text().replace("\xa0", " ")
    counts = stats["counts"]
    assert (
        f"cases {counts['cases']}: valid {counts['valid']}, invalid {counts['invalid']}" in header
    )
    assert (
        f"decided by me {counts['decided_by_me']}, decided by anyone "
        f"{counts['decided_by_anyone']}, stale {counts['stale']}, disputed {counts['disputed']}"
    ) in header
    dialog.close()
