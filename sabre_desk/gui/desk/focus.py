"""Where the keys go: a text field keeps them, a tab bar never takes them.

Shared by the window's keyboard home and the dialogs that hold tabs (the team dialog), so a
decision key is never typed into a field, nor an arrow spent switching tabs.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTabWidget,
    QTextEdit,
    QWidget,
)

#: Widgets that keep the keyboard when the window comes back: something is being typed.
TEXT_INPUTS = (QLineEdit, QAbstractSpinBox, QPlainTextEdit, QTextEdit)


def typing_in(widget: QWidget | None) -> bool:
    """*widget* is a place where keys are text (a decision key there would be typed)."""
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return isinstance(widget, TEXT_INPUTS)


def tabs_take_no_focus(tabs: QTabWidget | QTabBar) -> None:
    """A tab bar chosen by click only: arrows stay with what the reviewer works on."""
    bar = tabs.tabBar() if isinstance(tabs, QTabWidget) else tabs
    bar.setFocusPolicy(Qt.FocusPolicy.NoFocus)
