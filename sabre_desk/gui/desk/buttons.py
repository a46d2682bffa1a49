"""What the small dialogs share: a note in words and the OK/Cancel row, OK named for what it
does ("Write", "Make Edited"), so no dialog answers a question with a bare "OK"."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel


def note(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    return label


def ok_cancel(dialog: QDialog, ok_text: str) -> QDialogButtonBox:
    """OK (named *ok_text*) accepts *dialog*, Cancel rejects it."""
    buttons = QDialogButtonBox(
        QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
    )
    buttons.button(QDialogButtonBox.StandardButton.Ok).setText(ok_text)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    return buttons
