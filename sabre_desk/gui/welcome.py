"""What the window shows before a project is open: where to start, not blank panes."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)


class WelcomePage(QWidget):
    open_requested = Signal()  # choose a project folder
    demo_requested = Signal()  # write (or reopen) the demo project and open it
    new_requested = Signal()  # make a new, empty project
    recent_requested = Signal(object)  # a Path

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("welcome")
        title = QLabel(
            "<h2>sabre-desk</h2><p>Verify, repair and curate SABRE stress-test cases.</p>"
        )
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.open_button = QPushButton("Open a project folder…  (Ctrl+O)")
        self.demo_button = QPushButton("Open the demo project (13 cases, made here)")
        self.new_button = QPushButton("New project…  (Ctrl+N)")
        self.open_button.clicked.connect(self.open_requested)
        self.new_button.clicked.connect(self.new_requested)
        self.demo_button.clicked.connect(self.demo_requested)
        self.recent_label = QLabel("Recent projects")
        self.recent = QListWidget()
        self.recent.setMaximumWidth(520)
        self.recent.setMaximumHeight(160)
        self.recent.itemActivated.connect(self._on_recent)
        self.recent.itemClicked.connect(self._on_recent)
        hint = QLabel("You can also drop a project folder on this window.")
        hint.setObjectName("hint")
        column = QVBoxLayout()
        column.setSpacing(10)
        buttons = (self.open_button, self.demo_button, self.new_button)
        for widget in (title, *buttons, self.recent_label, self.recent):
            column.addWidget(widget, 0, Qt.AlignmentFlag.AlignHCenter)
        column.addWidget(hint, 0, Qt.AlignmentFlag.AlignHCenter)
        layout = QVBoxLayout(self)
        layout.addStretch(1)
        layout.addLayout(column)
        layout.addStretch(2)

    def set_recent(self, paths: list[str]) -> None:
        self.recent.clear()
        for path in paths:
            item = QListWidgetItem(path)
            item.setData(Qt.ItemDataRole.UserRole, path)
            self.recent.addItem(item)
        self.recent.setVisible(bool(paths))
        self.recent_label.setVisible(bool(paths))

    def _on_recent(self, item: QListWidgetItem) -> None:
        self.recent_requested.emit(Path(item.data(Qt.ItemDataRole.UserRole)))
