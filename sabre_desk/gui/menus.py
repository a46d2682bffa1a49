"""The window's actions and menus: every command has a menu entry and a key.

The shortcuts sheet (F1) is generated from these actions, so it is always complete.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QAction, QKeySequence, QUndoGroup
from PySide6.QtWidgets import QMenu, QMessageBox

from sabre_desk import __version__
from sabre_desk.core.review import Decision
from sabre_desk.core.workbench import Go
from sabre_desk.gui.dialogs.shortcuts import ShortcutsDialog
from sabre_desk.gui.models.probe_model import ANSWER

if TYPE_CHECKING:
    from sabre_desk.gui.main_window import MainWindow

Keys = str | QKeySequence.StandardKey | list[str]


class WindowActions:
    def __init__(self, window: MainWindow):
        self.w = window
        self.groups: dict[str, list[QAction]] = {}
        bar = window.menuBar()

        file = bar.addMenu("&File")
        self._add(
            file, "File", "&Open Project…", QKeySequence.StandardKey.Open, window._choose_project
        )
        self.recent_menu = file.addMenu("Open &Recent")
        self.fill_recent()
        self._add(
            file,
            "File",
            "&Save Now",
            QKeySequence.StandardKey.Save,
            lambda: window._controller_call("save_now"),
        )
        file.addSeparator()
        self._add(file, "File", "&Quit", QKeySequence.StandardKey.Quit, window.close)

        self.edit = bar.addMenu("&Edit")
        self._undo_actions: list[QAction] = []
        self._undo_anchor = self.edit.addSeparator()
        self._add(self.edit, "Edit", "Draw &Box in the Middle of the View", "B", self._drop_box)
        self._add(self.edit, "Edit", "&Mirror Box to Other Image", "M", self._mirror)
        self._add(self.edit, "Edit", "&Delete Box", ["Delete", "Backspace"], self._delete_box)
        self._add(self.edit, "Edit", "Edit &Answers", "E", self._edit_answers)
        self._add(self.edit, "Edit", "Edit &Notes", "Ctrl+Shift+N", self._edit_notes)

        review = bar.addMenu("&Review")
        for i, decision in enumerate(Decision):
            self._add(
                review,
                "Decide",
                decision.label,
                str(i + 1),
                lambda _=False, d=decision: window._controller_call("set_decision", d),
            )
        self._add(
            review,
            "Decide",
            "Clear Decision",
            "0",
            lambda: window._controller_call("set_decision", None),
        )
        review.addSeparator()
        self.auto_advance = self._add(
            review,
            "Decide",
            "&Auto-advance to Next Unreviewed",
            "Ctrl+Shift+A",
            self._toggle_auto_advance,
        )
        self.auto_advance.setCheckable(True)
        self.auto_advance.setChecked(window.settings.auto_advance)

        go = bar.addMenu("&Go")
        self._add(go, "Go", "&Next Case", ["N", "PgDown"], lambda: window.go(Go.NEXT))
        self._add(go, "Go", "&Previous Case", ["P", "PgUp"], lambda: window.go(Go.PREVIOUS))
        self._add(go, "Go", "Next &Unreviewed", "Shift+N", lambda: window.go(Go.UNREVIEWED))
        self._add(go, "Go", "&First Case", "Home", lambda: window.go(Go.FIRST))
        self._add(go, "Go", "&Last Case", "End", lambda: window.go(Go.LAST))
        self._add(go, "Go", "&Go to Case…", "Ctrl+G", window.go_to_case)
        self._add(go, "Go", "Focus Case &List", "Ctrl+L", lambda: window.case_list.view.setFocus())
        self._add(go, "Go", "&Filter Cases", QKeySequence.StandardKey.Find, self._focus_filter)

        self.view = view = bar.addMenu("&View")
        self._add(view, "View", "&Fit to Window", ["F", "Ctrl+0"], window.compare.fit)
        self._add(view, "View", "&Actual Size (100%)", "Ctrl+1", window.compare.actual_size)
        self._add(
            view, "View", "Zoom &In", ["+", "=", "Ctrl++"], lambda: window.compare.zoom_by(1.25)
        )
        self._add(view, "View", "Zoom &Out", ["-", "Ctrl+-"], lambda: window.compare.zoom_by(0.8))
        self.sync = self._add(view, "View", "&Synchronize Zoom and Pan", "S", self._toggle_sync)
        self.sync.setCheckable(True)
        self.sync.setChecked(window.compare.sync)
        self._view_anchor = view.addSeparator()
        view.addAction(window.cases_dock.toggleViewAction())
        view.addAction(window.case_panel_dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        self._add(help_menu, "Help", "&Keyboard Shortcuts", "F1", self.show_shortcuts)
        self._add(help_menu, "Help", "&About sabre-desk", None, self._about)

    def _add(self, menu: QMenu, group: str, text: str, keys: Keys | None, slot: object) -> QAction:
        action = QAction(text, self.w)
        if isinstance(keys, list):
            action.setShortcuts([QKeySequence(k) for k in keys])
        elif keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        menu.addAction(action)
        self.groups.setdefault(group, []).append(action)
        return action

    def bind_undo(self, group: QUndoGroup) -> None:
        for action in self._undo_actions:
            self.edit.removeAction(action)
            self.groups["Edit"].remove(action)
        undo = group.createUndoAction(self.w, "&Undo")
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        redo = group.createRedoAction(self.w, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.edit.insertActions(self._undo_anchor, [undo, redo])
        self._undo_actions = [undo, redo]
        self.groups["Edit"] = [undo, redo, *self.groups.get("Edit", [])]

    def add_to_edit(self, action: QAction) -> None:
        self.edit.addAction(action)
        self.groups.setdefault("Edit", []).append(action)

    def add_to_view(self, action: QAction) -> None:
        self.view.insertAction(self._view_anchor, action)
        self.groups.setdefault("View", []).append(action)

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.w.settings.recent_projects:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.w.open_project(Path(p)))
        self.recent_menu.setEnabled(bool(self.w.settings.recent_projects))

    # --- slots ------------------------------------------------------------------------------

    def _drop_box(self) -> None:
        canvas = self.w.active_canvas()
        if canvas is not None:
            canvas.setFocus()
            canvas.drop_box_at_center()

    def _mirror(self) -> None:
        target = self.w.focused_box()
        if target:
            self.w._controller_call("mirror_box", *target)

    def _delete_box(self) -> None:
        target = self.w.focused_box()
        if target:
            self.w._controller_call("remove_box", *target)

    def _edit_answers(self) -> None:
        panel = self.w.case_panel
        if panel is None or panel.probe_model.rowCount() == 0:
            return
        index = panel.probe_model.index(max(0, panel.probes.currentIndex().row()), ANSWER)
        panel.probes.setFocus()
        panel.probes.setCurrentIndex(index)
        if index != QModelIndex():
            panel.probes.edit(index)

    def _focus_filter(self) -> None:
        self.w.case_list.filter.setFocus()
        self.w.case_list.filter.selectAll()

    def _edit_notes(self) -> None:
        if self.w.case_panel is not None:
            self.w.case_panel.notes.setFocus()

    def _toggle_auto_advance(self) -> None:
        self.w.settings.auto_advance = self.auto_advance.isChecked()
        self.w._save_settings()

    def _toggle_sync(self) -> None:
        self.w.compare.sync = self.sync.isChecked()
        self.w.settings.sync_views = self.w.compare.sync

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self.groups, self.w).exec()

    def _about(self) -> None:
        QMessageBox.about(
            self.w,
            "About sabre-desk",
            f"sabre-desk {__version__}\nHuman verification of SABRE stress-test cases, offline.",
        )
