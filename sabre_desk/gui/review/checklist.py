"""The Verify box: the spec's review targets, then the checklist of the case's primer, and
the primer's Task Design a click away."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.primers import Primer
from sabre_desk.core.case.project import Case


def checklist_key(role: str, label: str) -> str:
    return f"{role}:{label}"


def checklist_items(case: Case | None, primer: Primer | None) -> list[tuple[str, str]]:
    """(key, text) of each thing to verify: the spec's review targets, then the primer's."""
    items: list[tuple[str, str]] = []
    for target in case.spec.review_targets if case else []:
        text = f"{target.label} ({target.image_role.value}): {target.description}"
        items.append((checklist_key(target.image_role.value, target.label), text))
    if primer is not None:
        items += [(f"primer:{item.id}", item.text) for item in primer.header.checklist]
    return items


class CheckItem(QWidget):
    """A checklist item whose text wraps: a check box cannot wrap its own text, and an item
    cut at the pane's edge hides what the reviewer is asked to check.

    Items are kept from case to case and given the next case's key and text (``show_item``):
    making five widgets with their layouts at every case switch cost the GUI thread a few
    milliseconds each time."""

    def __init__(self, toggled: Callable[[str, bool], object]) -> None:
        super().__init__()
        self.key = ""
        self.box = QCheckBox()
        self.box.toggled.connect(lambda on: toggled(self.key, on))
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.label.setBuddy(self.box)
        self.label.mousePressEvent = lambda _event: self.box.toggle()  # type: ignore[method-assign]
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.box, 0, Qt.AlignmentFlag.AlignTop)
        layout.addWidget(self.label, 1)

    def show_item(self, key: str, text: str) -> None:
        self.key = key
        self.box.setAccessibleName(text)
        self.label.setText(text)


class VerifyChecklist(QGroupBox):
    """Ticks go to ``toggled(key, on)``; the review is never edited here."""

    def __init__(self, toggled: Callable[[str, bool], object]) -> None:
        super().__init__("Verify")
        self._toggled = toggled
        self._layout = QVBoxLayout(self)
        self.design_button = QPushButton("Task design…")
        self.design_button.setToolTip("What this stress test is for, how its images are made")
        self.design_button.clicked.connect(self.show_task_design)
        #: the primer's title, wrapped: a group box's title never wraps, and a long one would
        #: widen the pane past its view (the text beside it then cut instead of wrapped)
        self.primer_label = QLabel()
        self.primer_label.setWordWrap(True)
        self._layout.addWidget(self.primer_label)
        self._layout.addWidget(self.design_button)
        self._rows: list[CheckItem] = []
        self.primer: Primer | None = None
        self.design_dialog: QDialog | None = None
        #: each item's check box by key
        self.boxes: dict[str, QCheckBox] = {}

    def show_for(self, case: Case | None, primer: Primer | None) -> None:
        """The items of this case (none when it could not be read)."""
        items = checklist_items(case, primer)
        self.primer = primer
        self.design_button.setVisible(primer is not None)
        self.primer_label.setText(f"Primer: {primer.header.title}" if primer else "")
        self.primer_label.setVisible(primer is not None)
        self.setVisible(bool(items))
        while len(self._rows) < len(items):
            row = CheckItem(self._toggled)
            self._layout.addWidget(row)
            self._rows.append(row)
        self.boxes = {}
        for row, (key, text) in zip(self._rows, items, strict=False):
            row.show_item(key, text)
            row.show()
            self.boxes[key] = row.box
        for row in self._rows[len(items) :]:
            row.hide()

    def tick(self, ticked: Mapping[str, bool]) -> None:
        """Show the review's ticks without sending them back."""
        for key, box in self.boxes.items():
            box.blockSignals(True)
            box.setChecked(ticked.get(key, False))
            box.blockSignals(False)

    def show_task_design(self) -> None:
        """The primer's Task Design, rendered, in a window the reviewer can keep open: one
        window (asked again, it shows this primer's design and comes to the front)."""
        if self.primer is None:
            return
        dialog = self.design_dialog
        if dialog is None:
            dialog = QDialog(self)
            dialog.resize(560, 620)
            layout = QVBoxLayout(dialog)
            layout.addWidget(QTextBrowser(dialog))
            buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
            buttons.rejected.connect(dialog.close)
            layout.addWidget(buttons)
            self.design_dialog = dialog
        dialog.setWindowTitle(self.primer.header.title)
        text = dialog.findChild(QTextBrowser)
        if text is not None:
            text.setMarkdown(self.primer.design)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
