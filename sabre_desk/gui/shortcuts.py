"""The keyboard shortcuts sheet (F1), built from the window's own actions so it never lies."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTextBrowser, QVBoxLayout, QWidget

MOUSE_HELP = [
    ("Drag on an image", "draw a box"),
    ("Click on an image", "focus it and deselect (a click never makes a box)"),
    ("Drag a box / its handles", "move / resize it"),
    ("Right-click a box", "label, mirror to the other image, delete"),
    ("Wheel", "zoom around the cursor"),
    ("Middle drag, or Space + drag", "pan"),
    ("Double-click the image", "fit to window"),
    ("Tab (on an image)", "select the next box"),
    ("Hold V (on an image)", "show the other image of the pair in its place (blink)"),
    ("Drag, or Left/Right, while swiping (W)", "move the swipe divider (Shift: finer)"),
    ("Arrows / Shift+arrows", "move the selected box by 1 / 10 screen pixels"),
    ("Alt+arrows", "resize the selected box"),
    ("Escape", "deselect the box"),
]


#: Which keys need what focus (docs/keys.md, "Where the keyboard is", says the same).
FOCUS_HELP = (
    "Menu keys work wherever the keyboard is, except in a text field (notes, filter, an "
    "answer being edited), where Esc leaves the field. The image keys below (Tab, V, the "
    "arrows) need the keyboard on an image: Ctrl+I, or Esc with nothing else to cancel, "
    "puts it there and the Case tab in front (and leaves a repair comparison); closing a "
    "dialog or a panel gives it back to the image. The image with the keyboard has its "
    "caption highlighted; O moves the keyboard between Base and Edited. The panels' tabs "
    "never take the keyboard."
)


def shortcuts_html(groups: dict[str, list[QAction]]) -> str:
    parts = [f"<p>{escape(FOCUS_HELP)}</p>"]
    for title, actions in groups.items():
        rows = []
        for action in actions:
            keys = ", ".join(
                s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts()
            )
            if keys:
                name = action.text().replace("&", "")
                rows.append(f"<tr><td><b>{escape(keys)}</b></td><td>{escape(name)}</td></tr>")
        if rows:
            parts.append(f"<h4>{escape(title)}</h4><table cellspacing=4>{''.join(rows)}</table>")
    mouse = "".join(
        f"<tr><td><b>{escape(k)}</b></td><td>{escape(v)}</td></tr>" for k, v in MOUSE_HELP
    )
    parts.append(f"<h4>Images and boxes</h4><table cellspacing=4>{mouse}</table>")
    return "".join(parts)


class ShortcutsDialog(QDialog):
    def __init__(self, groups: dict[str, list[QAction]], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Keyboard Shortcuts")
        self.resize(520, 640)
        self.text = QTextBrowser()
        self.text.setHtml(shortcuts_html(groups))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.text)
        layout.addWidget(buttons)
