"""The right-click menu of a box: its label, a mirror on the other image, delete."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QMenu, QWidget

from sabre_desk.core.case.spec import ImageRole
from sabre_desk.core.desk.boxes import LABEL_CHOICES
from sabre_desk.gui.desk.controller import CaseController


def box_menu(
    controller: CaseController, role: ImageRole, index: int, pos: QPoint, parent: QWidget
) -> QMenu:
    """Pop up the menu at *pos* (global); each choice is one undoable command. The menu
    belongs to *parent* (else it would vanish as soon as it is shown) until it closes."""
    menu = QMenu(parent)
    menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    for label in LABEL_CHOICES:
        action = menu.addAction(f"Label: {label}")
        action.triggered.connect(lambda _=False, lb=label: controller.relabel_box(role, index, lb))
    menu.addSeparator()
    if role is not ImageRole.IMAGE:
        menu.addAction("Mirror to the other image").triggered.connect(
            lambda: controller.mirror_box(role, index)
        )
    menu.addAction("Delete box").triggered.connect(lambda: controller.remove_box(role, index))
    menu.popup(pos)
    return menu
