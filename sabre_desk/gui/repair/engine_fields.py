"""The Repair panel's fields for the values a repair engine takes, made from each engine's
own list of parameters (``RepairEngine.params``): a file chooser for an image, a line for
text. Only the chosen engine's fields are shown; the panel knows no engine by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QFormLayout, QLineEdit, QPushButton

from sabre_desk.engines.base import EngineParam, EngineSettings, ParamKind, ParamValue, RepairEngine

IMAGE_FILTER = "Images (*.png *.jpg *.jpeg *.webp)"


class FileField(QPushButton):
    """An image on disk: a button that opens a file dialog and then shows the file's name."""

    def __init__(self, param: EngineParam, changed: Callable[[], None]) -> None:
        super().__init__("Choose image…")
        self.param = param
        self.path: Path | None = None
        self._changed = changed
        self.setToolTip(param.help)
        self.clicked.connect(self._choose)

    def _choose(self) -> None:
        title = self.param.help[:1].upper() + self.param.help[1:]
        path, _ = QFileDialog.getOpenFileName(self, title, "", IMAGE_FILTER)
        if path:
            self.set_path(Path(path))

    def set_path(self, path: Path | None) -> None:
        self.path = path
        self.setText(path.name if path else "Choose image…")
        self.setToolTip(str(path) if path else self.param.help)
        self._changed()

    def value(self) -> ParamValue | None:
        return self.path


class TextField(QLineEdit):
    """A line of text; left empty, the parameter's default (shown greyed) is used."""

    def __init__(self, param: EngineParam, changed: Callable[[], None]) -> None:
        super().__init__()
        self.param = param
        self.setToolTip(param.help)
        self.textChanged.connect(lambda _text: changed())

    def show_default(self, settings: EngineSettings) -> None:
        self.setPlaceholderText(self.param.default_for(settings) or "")

    def value(self) -> ParamValue | None:
        return self.text().strip() or None


Field = FileField | TextField


class EngineFields(QObject):
    """The fields of every engine's parameters, as rows of the panel's form; one engine's
    rows are shown at a time."""

    changed = Signal()  # a value was chosen or typed

    def __init__(
        self,
        engines: Iterable[type[RepairEngine]],
        settings: EngineSettings,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.fields: dict[str, dict[str, Field]] = {}
        for cls in engines:
            self.fields[cls.name] = {
                param.name: (
                    FileField(param, self.changed.emit)
                    if param.kind is ParamKind.IMAGE_FILE
                    else TextField(param, self.changed.emit)
                )
                for param in cls.params
            }
        self.form: QFormLayout | None = None

    def add_to(self, form: QFormLayout) -> None:
        """Add a row for each field to ``form`` (all hidden until ``show_engine``)."""
        self.form = form
        for fields in self.fields.values():
            for field in fields.values():
                form.addRow(field.param.label, field)
                form.setRowVisible(field, False)

    def show_engine(self, name: str | None) -> None:
        """Show the rows of engine ``name`` and hide the others."""
        for engine, fields in self.fields.items():
            for field in fields.values():
                shown = engine == name
                if self.form is not None:
                    self.form.setRowVisible(field, shown)
                if shown and isinstance(field, TextField):
                    field.show_default(self.settings)

    def field(self, engine: str, param: str) -> Field:
        return self.fields[engine][param]

    def values(self, engine: str) -> dict[str, ParamValue | None]:
        """What the reviewer gave for engine ``engine``'s parameters (None: not given)."""
        return {name: field.value() for name, field in self.fields.get(engine, {}).items()}
