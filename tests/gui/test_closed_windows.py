"""A closed window is freed: nothing the window set going for later (a sweep of its dock
tabs, the engines' marks, the rest of the index, the paint's follow-up) keeps its Python
side alive once Qt has deleted it. A reviewer who opens and closes windows all day (File >
New Window, a study, the second reviewer on a shared laptop) does not pay for each of them
until the app quits."""

from __future__ import annotations

import ast
import gc
import weakref
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

import sabre_desk
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.settings import load_settings


def closed_and_deleted(qtbot, project: Path | None, painted: bool) -> weakref.ref[MainWindow]:
    settings, _ = load_settings()
    window = MainWindow("bob", settings)
    window.show()
    if project is not None:
        assert window.open_project(project)
    if painted:
        qtbot.waitSignal(window.images_shown, timeout=10000).wait()
    ref = weakref.ref(window)
    window.close()
    window.deleteLater()  # before the work it queued for later has run
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    return ref


@pytest.mark.parametrize(
    ("opened", "painted"),
    [(False, False), (True, False), (True, True)],
    ids=["welcome page", "closed as it opens", "case shown"],
)
def test_a_closed_window_is_collected(
    qtbot, demo_project: Path, opened: bool, painted: bool
) -> None:
    ref = closed_and_deleted(qtbot, demo_project if opened else None, painted)
    qtbot.wait(50)  # timers that were due, paints
    gc.collect()
    assert ref() is None, [type(r).__name__ for r in gc.get_referrers(ref())]


def test_no_single_shot_holds_a_context() -> None:
    """``QTimer.singleShot(ms, context, slot)`` keeps *slot* (and the window it holds) alive
    for good when *context* is deleted first, in PySide6; ``call_soon`` is used instead."""
    offenders = []
    for path in Path(sabre_desk.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "singleShot"
                and len(node.args) == 3
            ):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_call_soon_runs_its_slot_and_forgets_it_with_its_context(qtbot) -> None:
    from sabre_desk.gui.machinery.soon import call_soon

    ran: list[str] = []
    alive, gone = QObject(), QObject()
    call_soon(alive, lambda: ran.append("alive"))
    call_soon(gone, lambda: ran.append("gone"))
    gone.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qtbot.waitUntil(lambda: ran == ["alive"], timeout=2000)
    qtbot.wait(20)
    assert ran == ["alive"]
    assert alive.children() == []  # its timer deleted once it fired
