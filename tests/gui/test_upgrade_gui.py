"""The window and a project an earlier sabre-desk wrote: it offers the upgrade on open
(what will change; Upgrade, Open read-only, Cancel), and accepting it migrates the project
before it opens."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.gui.making.upgrade_ui import READ_ONLY, UPGRADE

FIXTURES = Path(__file__).parent.parent / "fixtures" / "projects"
MOVED = ("attr01_red_triangles", "attr02_blue_circles", "spatial01_desk", "spatial02_above_red")


@pytest.fixture
def earlier(tmp_path: Path) -> Path:
    return Path(shutil.copytree(FIXTURES / "format1-earlier-primers", tmp_path / "earlier"))


def answer_offer(button: str, seen: list[dict[str, object]]) -> None:
    """Click *button* of the upgrade offer once it is shown (the check before it runs on a
    worker; until then there is no offer to answer); *seen* gets what the offer said."""

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        buttons = {b.text().replace("&", ""): b for b in box.buttons()}
        seen.append(
            {
                "text": box.text(),
                "informative": box.informativeText(),
                "details": box.detailedText(),
                "buttons": list(buttons),
            }
        )
        buttons[button].click()

    QTimer.singleShot(0, click)


def on_disk(root: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_window_offers_the_upgrade_and_accepting_it_migrates(
    qtbot, window: MainWindow, earlier: Path
) -> None:
    reviews = {p: p.read_bytes() for p in earlier.glob("cases/*/reviews/*.json")}
    offers: list[dict[str, object]] = []
    answer_offer(UPGRADE, offers)
    with qtbot.waitSignal(window.images_shown, timeout=15000):
        assert window.open_project(earlier)
    (offer,) = offers
    assert "written by an earlier sabre-desk" in str(offer["text"])
    said = str(offer["informative"])
    assert "attribute_count → attribute_two_property ×2" in said
    assert "spatial → spatial_relations ×2" in said and "upgrade-backup-" in said
    assert "cases/spatial01_desk/spec.json" in str(offer["details"])
    assert {UPGRADE, READ_ONLY, "Cancel"} <= set(offer["buttons"])  # and Show Details…
    for case_id in MOVED:
        spec = json.loads((earlier / "cases" / case_id / "spec.json").read_text())
        assert spec["pressure_test_type"] in ("attribute_two_property", "spatial_relations")
    assert json.loads((earlier / "sabre-project.json").read_text())["version"] == 3
    assert {p: p.read_bytes() for p in reviews} == reviews
    assert window.project is not None and not window.project.read_only
    assert "[read-only]" not in window.windowTitle()
    assert window.case_list.model.rowCount() == 5
    # the case panel shows the checklist of the primer the case follows now
    window.case_list.select("attr01_red_triangles")
    qtbot.waitUntil(lambda: window.controller.case.case_id == "attr01_red_triangles")
    items = PrimerLibrary.for_project(earlier).primers["two_property"].header.checklist
    assert {f"primer:{c.id}" for c in items} <= set(window.case_panel.checklist)


def test_open_read_only_changes_nothing(qtbot, window: MainWindow, earlier: Path) -> None:
    before = on_disk(earlier)
    offers: list[dict[str, object]] = []
    answer_offer(READ_ONLY, offers)
    with qtbot.waitSignal(window.images_shown, timeout=15000):
        assert window.open_project(earlier)
    assert len(offers) == 1
    assert window.project is not None and window.project.read_only
    assert "[read-only]" in window.windowTitle()
    assert {k: v for k, v in on_disk(earlier).items() if ".sabre-desk-cache" not in k} == before


def test_cancel_leaves_the_project_closed_and_as_it_was(window: MainWindow, earlier: Path) -> None:
    before = on_disk(earlier)
    offers: list[dict[str, object]] = []
    answer_offer("Cancel", offers)
    assert window.open_project(earlier) is False
    assert len(offers) == 1 and window.project is None
    assert on_disk(earlier) == before


def test_a_project_of_the_current_format_opens_without_an_offer(
    qtbot, window: MainWindow, demo_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[object] = []
    monkeypatch.setattr("sabre_desk.gui.making.upgrade_ui.ask_upgrade", lambda *a: asked.append(a))
    with qtbot.waitSignal(window.images_shown, timeout=15000):
        assert window.open_project(demo_project)
    assert asked == [] and not window.project.read_only


def test_unattended_the_need_is_said_and_the_project_opened_read_only(
    qtbot, window: MainWindow, earlier: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    window.unattended = True
    before = on_disk(earlier)
    with qtbot.waitSignal(window.images_shown, timeout=15000):
        assert window.open_project(earlier)
    err = capsys.readouterr().err
    assert f"sabre-desk upgrade {earlier}" in err and "opened read-only" in err
    assert window.project is not None and window.project.read_only
    assert {k: v for k, v in on_disk(earlier).items() if ".sabre-desk-cache" not in k} == before


def test_an_upgrade_that_stops_is_said_and_the_project_not_opened(
    window: MainWindow, earlier: Path, warnings_shown: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sabre_desk.core.upgrade import upgrade_switch

    def full_disk(*args: object) -> None:
        raise OSError(28, "No space left on device", str(earlier / "sabre-project.json"))

    monkeypatch.setattr(upgrade_switch, "atomic_write_bytes", full_disk)
    answer_offer(UPGRADE, [])
    assert window.open_project(earlier) is False
    assert window.project is None
    assert len(warnings_shown) == 1 and warnings_shown[0].startswith("Upgrade stopped:")
    assert "No space left on device" in warnings_shown[0]


def test_a_project_an_upgrade_left_part_way_is_never_opened_as_it_is(
    window: MainWindow, earlier: Path, warnings_shown: list[str]
) -> None:
    """The journal of a killed upgrade: the window offers to finish it, and read-only is
    refused in words that say to run the upgrade (its files may be part old, part new)."""
    (earlier / ".sabre-desk").mkdir(exist_ok=True)
    (earlier / ".sabre-desk" / "upgrade-journal.json").write_text("{}")
    offers: list[dict[str, object]] = []
    answer_offer(READ_ONLY, offers)
    assert window.open_project(earlier) is False
    assert window.project is None
    assert "stopped part-way" in str(offers[0]["informative"])
    assert len(warnings_shown) == 1 and "sabre-desk upgrade" in warnings_shown[0]


def test_the_offer_lists_what_changes(earlier: Path, qtbot) -> None:
    from sabre_desk.core.upgrade.upgrade_plan import plan_upgrade
    from sabre_desk.gui.making.upgrade_ui import upgrade_box

    box = upgrade_box(plan_upgrade(earlier), None)
    qtbot.addWidget(box)
    assert box.defaultButton().text().replace("&", "") == UPGRADE
    assert len(box.detailedText().splitlines()) == 5  # four specs and the manifest
