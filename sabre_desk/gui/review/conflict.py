"""The question asked when a review changed on disk since it was opened."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def ask_conflict(message: str, parent: QWidget) -> str | None:
    """Ask how to resolve a save conflict: "mine", "theirs" or None (decide later)."""
    box = QMessageBox(
        QMessageBox.Icon.Warning,
        "Review changed on disk",
        f"{message}\n\nKeep your version (overwrite the file), or load the "
        "version on disk (your unsaved changes to this case are dropped)?",
        parent=parent,
    )
    mine = box.addButton("Keep mine", QMessageBox.ButtonRole.AcceptRole)
    theirs = box.addButton("Load from disk", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    clicked = box.clickedButton()
    return "mine" if clicked is mine else "theirs" if clicked is theirs else None
