"""The window's actions and menus: every command has a menu entry and a key.

The shortcuts sheet (F1) is generated from these actions, so it is always complete. The
actions act on the parts they are given (the session's controller, the canvases, the case
list, the settings); what only the window can do (open a project, quit) comes in as a
callback, so nothing here holds the window.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMenu, QMenuBar, QMessageBox, QWidget

from sabre_desk import __version__
from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.workbench import Go
from sabre_desk.gui.crash_report import open_log_folder
from sabre_desk.gui.desk.canvas.compare_view import CompareView
from sabre_desk.gui.desk.controller import CaseController
from sabre_desk.gui.desk.session import Session
from sabre_desk.gui.review.case_list import CaseList
from sabre_desk.gui.review.case_panel import CasePanel
from sabre_desk.gui.review.probe_model import ANSWER
from sabre_desk.gui.shortcuts import ShortcutsDialog
from sabre_desk.settings import Settings

Keys = str | QKeySequence.StandardKey | list[str]
NO_BOX_SELECTED = "Select a box first: click it, or Tab to it on the image."


@dataclass
class WindowParts:
    """What the menus act on. ``panel`` is the case panel of the open project, if any."""

    parent: QWidget  # owner of the actions and of the dialogs they open
    session: Session
    compare: CompareView
    case_list: CaseList
    settings: Settings
    docks: list[QDockWidget]
    panel: Callable[[], CasePanel | None]
    choose_project: Callable[[], None]
    new_project: Callable[[], None]
    new_case: Callable[[], object]
    open_project: Callable[[Path], object]
    export_release: Callable[[], object]
    focus_image: Callable[[], None]  # the keyboard on the image, the Case tab in front
    save_settings: Callable[[], None]
    quit: Callable[[], object]


class WindowActions:
    def __init__(self, bar: QMenuBar, parts: WindowParts):
        self.parts = parts
        self.groups: dict[str, list[QAction]] = {}
        self._project_actions: list[QAction] = []
        session, compare, case_list = parts.session, parts.compare, parts.case_list

        file = bar.addMenu("&File")
        self.new_action = self._add(
            file, "File", "&New Project…", QKeySequence.StandardKey.New, parts.new_project
        )
        self.open_action = self._add(
            file, "File", "&Open Project…", QKeySequence.StandardKey.Open, parts.choose_project
        )
        self.new_case_action = self._add(
            file, "File", "New &Case from Photos…", "Ctrl+Shift+C", parts.new_case, True
        )
        self.recent_menu = file.addMenu("Open &Recent")
        self.fill_recent()
        self.save_action = self._add(
            file, "File", "&Save Now", QKeySequence.StandardKey.Save, self._save_now, True
        )
        self.export_action = self._add(
            file, "File", "&Export Release…", "Ctrl+Shift+E", parts.export_release, True
        )
        self.file = file
        self._file_anchor = file.addSeparator()
        self._add(file, "File", "&Quit", QKeySequence.StandardKey.Quit, parts.quit)

        self.edit = bar.addMenu("&Edit")
        self._undo_actions: list[QAction] = []
        self._undo_anchor = self.edit.addSeparator()
        edit, box = self.edit, "Draw &Box in the Middle of the View"
        self._add(edit, "Edit", box, "B", self._drop_box, True)
        self._add(edit, "Edit", "&Mirror Box to Other Image", "M", self._mirror, True)
        self._add(edit, "Edit", "&Delete Box", ["Delete", "Backspace"], self._delete_box, True)
        self._add(edit, "Edit", "Edit &Answers", "E", self._edit_answers, True)
        self._add(edit, "Edit", "Edit &Notes", "Ctrl+Shift+N", self._edit_notes, True)

        self.review = review = bar.addMenu("&Review")
        for i, decision in enumerate(Decision):
            self._add(
                review,
                "Decide",
                decision.label,
                str(i + 1),
                lambda _=False, d=decision: self._decide(d),
                True,
            )
        self._add(review, "Decide", "Clear Decision", "0", lambda: self._decide(None), True)
        review.addSeparator()
        self.auto_advance = self._add(
            review,
            "Decide",
            "&Auto-advance to Next Unreviewed",
            "Ctrl+Shift+A",
            self._toggle_auto_advance,
        )
        self.auto_advance.setCheckable(True)
        self.auto_advance.setChecked(parts.settings.auto_advance)

        self.go = go = bar.addMenu("&Go")
        for text, keys, where in (
            ("&Next Case", ["N", "PgDown"], Go.NEXT),
            ("&Previous Case", ["P", "PgUp"], Go.PREVIOUS),
            ("Next &Unreviewed", "Shift+N", Go.UNREVIEWED),
            ("&First Case", "Home", Go.FIRST),
            ("&Last Case", "End", Go.LAST),
        ):
            self._add(go, "Go", text, keys, lambda _=False, w=where: case_list.go(w), True)
        self._add(go, "Go", "&Go to Case…", "Ctrl+G", case_list.go_to_case, True)
        self._add(go, "Go", "Focus Case &List", "Ctrl+L", case_list.focus_list, True)
        find = QKeySequence.StandardKey.Find
        self._add(go, "Go", "&Filter Cases", find, case_list.focus_filter, True)
        self.focus_image = self._add(
            go,
            "Go",
            "Back to the &Image and the Case Tab",
            ["Ctrl+I", "Esc"],
            parts.focus_image,
            True,
        )
        other = self._on_image(compare.keyboard.to_other)
        self._add(go, "Go", "Keyboard to the &Other Image", "O", other, True)

        self.view = view = bar.addMenu("&View")
        fit, actual = "&Fit to Window", "&Actual Size (100%)"
        fit_slot, actual_slot = self._on_image(compare.fit), self._on_image(compare.actual_size)
        self.fit_action = self._add(view, "View", fit, ["F", "Ctrl+0"], fit_slot, True)
        self.actual_action = self._add(view, "View", actual, "Ctrl+1", actual_slot, True)
        zoom_in = self._on_image(lambda: compare.zoom_by(1.25))
        zoom_out = self._on_image(lambda: compare.zoom_by(0.8))
        self._add(view, "View", "Zoom &In", ["+", "=", "Ctrl++"], zoom_in, True)
        self._add(view, "View", "Zoom &Out", ["-", "Ctrl+-"], zoom_out, True)
        self.sync = self._add(view, "View", "&Synchronize Zoom and Pan", "S", self._toggle_sync)
        self.sync.setCheckable(True)
        self.sync.setChecked(compare.sync)
        self.swipe = self._add(
            view, "View", "S&wipe (Base Left of a Divider)", "W", self._toggle_swipe, True
        )
        self.swipe.setCheckable(True)
        compare.swipe_changed.connect(self.swipe.setChecked)  # also when its comparison ends
        self._view_anchor = view.addSeparator()
        for dock in parts.docks:
            view.addAction(dock.toggleViewAction())

        help_menu = bar.addMenu("&Help")
        self._add(help_menu, "Help", "&Keyboard Shortcuts", "F1", self.show_shortcuts)
        self._add(
            help_menu, "Help", "Open &Log Folder", None, lambda: open_log_folder(parts.parent)
        )
        self._add(help_menu, "Help", "&About sabre-desk", None, self._about)
        session.opened.connect(self.bind_undo)
        session.opened.connect(lambda _controller: self._enable_project_actions())

    def _add(
        self,
        menu: QMenu,
        group: str,
        text: str,
        keys: Keys | None,
        slot: object,
        needs_project: bool = False,
    ) -> QAction:
        """An action in *menu* (and the shortcuts sheet); one that *needs_project* is
        greyed out until a project is open (Save, Export, a decision, Next Case, Fit…)."""
        action = QAction(text, self.parts.parent)
        if needs_project:
            action.setEnabled(False)
            self._project_actions.append(action)
        if isinstance(keys, list):
            action.setShortcuts([QKeySequence(k) for k in keys])
        elif keys is not None:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(slot)
        menu.addAction(action)
        self.groups.setdefault(group, []).append(action)
        return action

    def _enable_project_actions(self) -> None:
        for action in self._project_actions:
            action.setEnabled(True)

    def bind_undo(self, controller: CaseController) -> None:
        """Undo and Redo for *controller*'s cases. Undo is the controller's own: with nothing
        left to undo on the open case it goes back to the case last changed (after
        auto-advance, pressing 1 then Ctrl+Z takes the decision back)."""
        for action in self._undo_actions:
            self.edit.removeAction(action)
            self.groups["Edit"].remove(action)
        group = controller.undo_group
        undo = QAction("&Undo", self.parts.parent)
        undo.setShortcut(QKeySequence.StandardKey.Undo)
        undo.triggered.connect(controller.undo)

        def update() -> None:
            stack = group.activeStack()
            here = stack is not None and stack.canUndo()
            undo.setEnabled(controller.can_undo())
            undo.setText(f"&Undo {stack.undoText()}" if here and stack is not None else "&Undo")

        for signal in (group.canUndoChanged, group.indexChanged, group.activeStackChanged):
            signal.connect(lambda *_: update())
        update()
        redo = group.createRedoAction(self.parts.parent, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.edit.insertActions(self._undo_anchor, [undo, redo])
        self._undo_actions = [undo, redo]
        self.groups["Edit"] = [undo, redo, *self.groups.get("Edit", [])]

    def _needs_project(self, action: QAction) -> None:
        """Greyed out until a project is open: with none, it would have nothing to act on."""
        if self.parts.session.controller is None:
            action.setEnabled(False)
        self._project_actions.append(action)

    def add_to_edit(self, action: QAction, needs_project: bool = False) -> None:
        self.edit.addAction(action)
        self.groups.setdefault("Edit", []).append(action)
        if needs_project:
            self._needs_project(action)

    def add_to(self, menu: QMenu, group: str, action: QAction, needs_project: bool = False) -> None:
        """Another part's action, in a menu and under *group* in the shortcuts sheet."""
        menu.addAction(action)
        self.groups.setdefault(group, []).append(action)
        if needs_project:
            self._needs_project(action)

    def add_to_file(self, action: QAction, needs_project: bool = False) -> None:
        """Another part's action in the File menu, above Quit."""
        self.file.insertAction(self._file_anchor, action)
        self.groups.setdefault("File", []).append(action)
        if needs_project:
            self._needs_project(action)

    def add_to_view(self, action: QAction, needs_project: bool = False) -> None:
        self.view.insertAction(self._view_anchor, action)
        self.groups.setdefault("View", []).append(action)
        if needs_project:
            self._needs_project(action)

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.parts.settings.recent_projects
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.parts.open_project(Path(p)))
        self.recent_menu.setEnabled(bool(recent))

    # --- slots ------------------------------------------------------------------------------

    def _open_case(self) -> CaseController | None:
        """The controller of the open case; with no case open, the status bar says so."""
        controller = self.parts.session.controller
        if controller is None or controller.case is None:
            self.parts.session.say("Open a case first (the project has none open).", 5000)
            return None
        return controller

    def _on_image(self, act: Callable[[], object]) -> Callable[[], None]:
        """*act* on the images shown; with no case open, the status bar says so."""

        def slot() -> None:
            if self._open_case() is not None:
                act()

        return slot

    def _save_now(self) -> None:
        controller = self._open_case()
        if controller is None:
            return
        if controller.save_now():
            self.parts.session.say_here("Everything of this case is saved.", 3000)

    def _decide(self, decision: Decision | None) -> None:
        controller = self._open_case()
        if controller is None or controller.case is None:
            return
        if decision is None and controller.case.review.decision is None:
            self.parts.session.say_here("This case has no decision to clear.", 4000)
            return
        controller.set_decision(decision)

    def _drop_box(self) -> None:
        canvas = self.parts.compare.active_canvas()
        if self._open_case() is not None and canvas is not None:
            canvas.setFocus()
            canvas.drop_box_at_center()

    def _mirror(self) -> None:
        target = self.parts.compare.focused_box()
        controller = self._open_case()
        if controller is None:
            return
        if not target:
            self.parts.session.say_here(NO_BOX_SELECTED, 5000)
        elif len(self.parts.compare.visible_roles) < 2:
            self.parts.session.say_here("This case has one image: there is none to mirror to.")
        else:
            controller.mirror_box(*target)

    def _delete_box(self) -> None:
        target = self.parts.compare.focused_box()
        controller = self._open_case()
        if controller is None:
            return
        if not target:
            self.parts.session.say_here(NO_BOX_SELECTED, 5000)
        else:
            controller.remove_box(*target)

    def _edit_answers(self) -> None:
        panel = self.parts.panel()
        if self._open_case() is None or panel is None:
            return
        if panel.probe_model.rowCount() == 0:
            self.parts.session.say_here("This case has no questions to answer.", 5000)
            return
        index = panel.probe_model.index(max(0, panel.probes.currentIndex().row()), ANSWER)
        panel.probes.setFocus()
        panel.probes.setCurrentIndex(index)
        if index != QModelIndex():
            panel.probes.edit(index)

    def _edit_notes(self) -> None:
        panel = self.parts.panel()
        if self._open_case() is not None and panel is not None:
            panel.notes.setFocus()

    def _toggle_auto_advance(self) -> None:
        self.parts.settings.auto_advance = self.auto_advance.isChecked()
        self.parts.save_settings()

    def _toggle_sync(self) -> None:
        self.parts.compare.sync = self.sync.isChecked()
        self.parts.settings.sync_views = self.parts.compare.sync

    def _toggle_swipe(self) -> None:
        """A pair in one canvas, Base left of a divider dragged with the mouse (or moved
        with Left/Right): the edge shows where a change begins."""
        self.parts.compare.set_swiping(self.swipe.isChecked())

    def show_shortcuts(self) -> None:
        ShortcutsDialog(self.groups, self.parts.parent).exec()

    def _about(self) -> None:
        QMessageBox.about(
            self.parts.parent,
            "About sabre-desk",
            f"sabre-desk {__version__}\nHuman verification of SABRE stress-test cases, offline.",
        )
