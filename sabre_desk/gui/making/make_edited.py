"""New Case's "Make Edited with Gemini…": for a paired case with a Base photo and no Edited
one, the Edited image made by a whole-image edit of the photo (``core.edited_maker``).

The instruction is asked for first, prefilled from the primer's ``edit_prompt`` with the
attributes given so far; the call runs on a worker, never on the window's thread, with a
busy bar and Cancel in the dialog, and whatever goes wrong (no key, a safety stop, a
timeout, a reply of another shape) is said there with its reason. The image is kept in a
folder of the dialog's own until the case is saved (the case copies it) or the dialog
closes (the folder goes).
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.spec import GenerationMode, ImageRole
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.making.authoring import CaseDraft, MadeImage, edit_instruction
from sabre_desk.core.making.edited_maker import make_edited
from sabre_desk.engines.gemini_make import GeminiImageMaker, MakeCancelledError, MakeFailedError
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.buttons import note, ok_cancel
from sabre_desk.gui.machinery.workers import Worker, screen_pool

#: how long closing the dialog waits for a cancelled call to end
CLOSE_WAIT_MS = 10_000


class EditInstructionDialog(QDialog):
    """What the model is asked to change in the Base photo."""

    def __init__(self, instruction: str, model: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Make the Edited Image")
        self.text = QPlainTextEdit(instruction)
        self.text.setPlaceholderText(
            "What to change, and that everything else stays: e.g. Replace only the mug with "
            "one pineapple at the same place; keep everything else exactly as it is."
        )
        self.buttons = ok_cancel(self, "Make Edited")
        self.text.textChanged.connect(self._changed)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Edit instruction"))
        layout.addWidget(self.text, 1)
        layout.addWidget(
            note(
                f"{model} edits the whole Base photo by this instruction; the result is fitted "
                "to the photo's size and becomes the Edited image. The call is entered in the "
                "project's cost ledger."
            )
        )
        layout.addWidget(self.buttons)
        self.resize(560, 260)
        self._changed()

    @property
    def instruction(self) -> str:
        return self.text.toPlainText().strip()

    def _changed(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.instruction))


class MakeEditedRow(QWidget):
    """The button, and while the model works a busy bar and Cancel; what came of it below."""

    made = Signal(object)  # MadeImage
    failed = Signal(str)  # the reason nothing was made ("cancelled" included)

    def __init__(
        self,
        root: Path,
        read_only: bool,
        draft: Callable[[], CaseDraft],
        new_maker: Callable[[], GeminiImageMaker],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.root, self.read_only, self.draft, self.new_maker = root, read_only, draft, new_maker
        self.model = new_maker().model
        self.button = QPushButton("Make Edited with Gemini…")
        self.button.clicked.connect(self.ask)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setMaximumWidth(160)
        self.cancel = QPushButton("Cancel")
        self.cancel.clicked.connect(self.stop)
        self.status = QLabel()
        self.status.setWordWrap(True)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.button)
        row.addWidget(self.bar)
        row.addWidget(self.cancel)
        row.addWidget(self.status, 1)
        self.setLayout(row)
        self.pool = screen_pool(self, 1)  # the user clicked and waits for the image
        self.folder: Path | None = None
        self.dialog: EditInstructionDialog | None = None
        self._stop: threading.Event | None = None
        self._show_running(False)

    @property
    def running(self) -> bool:
        return self._stop is not None

    def refresh(self) -> None:
        """Follow the draft: shown for a pair, enabled when it can run."""
        draft = self.draft()
        self.setVisible(draft.mode is GenerationMode.PAIRED_EDIT)
        why = self._why_not(draft)
        self.button.setEnabled(why is None and not self.running)
        self.button.setToolTip(
            why
            or f"Ask {self.model} to make the Edited image from the Base photo by an "
            "instruction (prefilled from the primer)"
        )

    def _why_not(self, draft: CaseDraft) -> str | None:
        if self.read_only:
            return "This project is read-only: a case cannot be saved into it."
        if ImageRole.BASE not in draft.images:
            return "Choose the Base photo first."
        if ImageRole.EDITED in draft.images and draft.edited_by_model is None:
            return "An Edited photo is chosen; this makes one for a Base photo without it."
        return self.new_maker().unavailable_reason()

    def ask(self) -> None:
        """The instruction first (a window of its own), then the call."""
        draft = self.draft()
        made = draft.edited_by_model
        self.dialog = EditInstructionDialog(
            made.prompt if made is not None else edit_instruction(draft), self.model, self
        )
        self.dialog.accepted.connect(lambda: self.start(self.dialog.instruction))
        self.dialog.open()

    def start(self, instruction: str) -> bool:
        draft = self.draft()
        base = draft.images.get(ImageRole.BASE)
        why = self._why_not(draft) or ("" if instruction else "Give an instruction.")
        if why or base is None or self.running:
            self.status.setText(why or "The model is already at work.")
            return False
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="sabre-desk-edited-"))
        self._stop = threading.Event()
        case_id = draft.concept_id.strip() or None
        worker = Worker(self._make, base, instruction, self._stop, self.folder, case_id)
        worker.returned.connect(self._on_made)
        worker.errored.connect(self._on_failed)
        worker.finished.connect(self._on_finished)
        self.status.setText(f"Asking {self.model} to edit the Base photo…")
        self._show_running(True)
        worker.start(self.pool)
        return True

    def _make(
        self, base: Path, prompt: str, stop: threading.Event, out: Path, case_id: str | None
    ) -> MadeImage:
        """On the worker."""
        maker = self.new_maker()
        with maker:
            return make_edited(
                base, prompt, maker, stop, Ledger.of_project(self.root), out, case_id
            )

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self.status.setText("Cancelling…")

    def _on_made(self, made: MadeImage) -> None:
        notes = f" — {'; '.join(made.notes)}" if made.notes else ""
        self.status.setText(f"Edited image made by {made.model}{notes}")
        self.made.emit(made)

    def _on_failed(self, exc: Exception) -> None:
        if isinstance(exc, MakeCancelledError):
            reason = "cancelled: no Edited image was made"
        elif isinstance(exc, MakeFailedError):
            reason = exc.reason
        elif isinstance(exc, ProjectError):
            reason = exc.message
        else:
            reason = f"{type(exc).__name__}: {exc}"
        self.status.setText(f"Not made: {reason}")
        self.failed.emit(reason)

    def _on_finished(self) -> None:
        self._show_running(False)

    def _show_running(self, running: bool) -> None:
        if not running:
            self._stop = None
        self.bar.setVisible(running)
        self.cancel.setVisible(running)
        self.refresh()

    def shutdown(self) -> None:
        """The dialog closes: stop the call, let it end, remove the folder."""
        if self._stop is not None:
            self._stop.set()
        self.pool.waitForDone(CLOSE_WAIT_MS)
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None
