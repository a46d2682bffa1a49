"""Before the window opens a project an earlier sabre-desk wrote that does not work
unchanged, it offers the upgrade: what will change, then Upgrade, Open read-only or Cancel.

A project whose record says its cases follow today's primers is let through at once (the
primers are read, no case). An older one has its cases' specs read and, if the reviewer
agrees, is upgraded (core/upgrade/upgrade.py); both read and write files, so they run on a worker
while a progress dialog (shown only when it takes a while) holds the window's input.
Rendering a screenshot nobody watches, the need is said on stderr and the project opened
read-only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEventLoop, Qt
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from sabre_desk.core.case.manifest import project_folder, read_manifest
from sabre_desk.core.case.upgrade_journal import upgrade_under_way
from sabre_desk.core.upgrade.upgrade import BACKUP_PARENT, BACKUP_PREFIX, upgrade_project
from sabre_desk.core.upgrade.upgrade_plan import UpgradePlan, may_need_upgrade, plan_upgrade
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.session import OpenAs
from sabre_desk.gui.machinery.workers import Worker, screen_pool

UPGRADE = "Upgrade"
READ_ONLY = "Open read-only"
#: a check or an upgrade quicker than this shows no progress dialog at all
PROGRESS_AFTER_MS = 400


def upgrade_box(plan: UpgradePlan, parent: QWidget | None) -> QMessageBox:
    """The offer: what the upgrade changes, file by file under Show Details."""
    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Question)
    box.setWindowTitle("Upgrade this project?")
    box.setText(f"“{plan.name}” was written by an earlier sabre-desk.")
    box.setInformativeText(
        f"Upgrading {plan.summary()}. Every file it rewrites is first copied to "
        f"{BACKUP_PARENT}/{BACKUP_PREFIX}<time>/ inside the project.\n\n"
        "Open read-only to look without changing anything: the cases made with earlier "
        "primers are then checked against today's rules."
    )
    details = [m.line() for m in plan.moves]
    if plan.manifest is not None:
        details.append(plan.manifest.line())
    box.setDetailedText("\n".join(details))
    upgrade = box.addButton(UPGRADE, QMessageBox.ButtonRole.AcceptRole)
    box.addButton(READ_ONLY, QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(upgrade)
    return box


def ask_upgrade(plan: UpgradePlan, parent: QWidget | None) -> OpenAs | None:
    """Upgrade (None: go ahead), open read-only, or not at all."""
    box = upgrade_box(plan, parent)
    box.exec()
    clicked = box.clickedButton()
    text = clicked.text() if clicked is not None else ""
    box.deleteLater()
    if text == UPGRADE:
        return None
    return OpenAs.READ_ONLY if text == READ_ONLY else OpenAs.NOT_AT_ALL


class UpgradeOffer:
    """Asked by the window before it opens a project; holds no window, only a parent for
    its dialogs and the window's error handler."""

    def __init__(
        self,
        parent: QWidget,
        report_error: Callable[[str, str], None],
        unattended: Callable[[], bool],
    ):
        self.parent, self.report_error, self.unattended = parent, report_error, unattended
        self.pool = screen_pool(parent, 1)  # the project waits on its check or upgrade
        self._waiting = False  # a check or an upgrade is under way

    def before_open(self, path: Path) -> OpenAs:
        """How to open *path*: as it is, read-only, or not at all (the reviewer cancelled,
        or the upgrade stopped: said in a dialog)."""
        if self._waiting:  # another open (a file handed over by the desktop) meanwhile
            return OpenAs.NOT_AT_ALL
        root = project_folder(Path(path)).expanduser().absolute()
        try:
            manifest = read_manifest(root)
            if not upgrade_under_way(root) and not may_need_upgrade(root, manifest):
                return OpenAs.WRITABLE
        except ProjectError:
            return OpenAs.WRITABLE  # opening it says what is wrong
        ok, plan = self._off_thread("Checking the project…", plan_upgrade, root, manifest)
        if not ok or not isinstance(plan, UpgradePlan) or not plan.needed:
            return OpenAs.WRITABLE  # a check that failed leaves it to the case checks
        if self.unattended():
            print(f"sabre-desk: {plan.need_line()}; opened read-only", file=sys.stderr)
            return OpenAs.READ_ONLY
        choice = ask_upgrade(plan, self.parent)
        if choice is not None:
            return choice
        ok, outcome = self._off_thread("Upgrading the project…", upgrade_project, root)
        if not ok:
            message = outcome.message if isinstance(outcome, ProjectError) else str(outcome)
            self.report_error("Upgrade stopped", message)
            return OpenAs.NOT_AT_ALL
        return OpenAs.WRITABLE

    def _off_thread(self, text: str, fn: Callable[..., Any], *args: Any) -> tuple[bool, Any]:
        """Run *fn* on the worker and wait for it, the window painting but taking no input
        meanwhile; (True, result) or (False, the exception)."""
        outcome: list[tuple[bool, Any]] = []
        loop = QEventLoop()
        worker = Worker(fn, *args)
        worker.returned.connect(lambda value: outcome.append((True, value)))
        worker.errored.connect(lambda exc: outcome.append((False, exc)))
        worker.finished.connect(loop.quit)
        progress = QProgressDialog(text, "", 0, 0, self.parent)
        progress.setCancelButton(None)
        progress.setWindowTitle("sabre-desk")
        progress.setWindowModality(Qt.WindowModality.ApplicationModal)
        progress.setMinimumDuration(PROGRESS_AFTER_MS)
        worker.start(self.pool)
        self._waiting = True
        try:
            loop.exec(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)
        finally:
            self._waiting = False
            progress.reset()
            progress.deleteLater()
        return outcome[0] if outcome else (False, RuntimeError("stopped"))
