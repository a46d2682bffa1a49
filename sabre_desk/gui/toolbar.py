"""The toolbar: the actions reviewers use most, the same QActions as the menus (one
definition of each: text, keys, state), with the style's own icons."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QStyle, QToolBar

from sabre_desk.gui.menus import WindowActions

SP = QStyle.StandardPixmap


def build_toolbar(
    window: QMainWindow, actions: WindowActions, changes: QAction, repair: QAction
) -> QToolBar:
    """Open, save, export | fit, 100 %, sync, changes | repair, each with its key in the tip."""
    bar = QToolBar("Tools", window)
    bar.setObjectName("toolbar")
    bar.setIconSize(QSize(18, 18))
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    style = window.style()
    icons = (
        (actions.open_action, SP.SP_DialogOpenButton, "Open"),
        (actions.save_action, SP.SP_DialogSaveButton, "Save"),
        (actions.export_action, SP.SP_DialogApplyButton, "Export"),
        None,
        (actions.fit_action, SP.SP_TitleBarMaxButton, "Fit"),
        (actions.actual_action, SP.SP_TitleBarNormalButton, "100%"),
        (actions.sync, SP.SP_BrowserReload, "Sync"),
        (changes, SP.SP_FileDialogContentsView, "Changes"),
        None,
        (repair, SP.SP_DialogResetButton, "Repair"),
    )
    for entry in icons:
        if entry is None:
            bar.addSeparator()
            continue
        action, pixmap, short = entry
        action.setIcon(style.standardIcon(pixmap))
        action.setIconText(short)  # the button's label; the menu keeps the full text
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        name = action.text().replace("&", "").rstrip("…")
        action.setToolTip(f"{name} ({keys})" if keys else name)
        bar.addAction(action)
    window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    return bar
