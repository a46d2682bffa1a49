"""File > New Case: a case made by hand around a reviewer's own photos.

The primer lays the case out (its attributes, its fixed probes with their wording and
answers, or the question types it allows); the photos are chosen or dropped; every change is
checked at once by the rules `validate` applies, and the reasons are listed until none is
left. For a pair whose Edited photo does not exist, a model can make it from the Base photo
(``make_edited``). The case is saved the way `import` saves one and goes through the same
review.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QIcon, QImage, QImageReader, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import ROLES_FOR_MODE, GenerationMode, ImageRole, QuestionType
from sabre_desk.core.desk.workbench import Workbench
from sabre_desk.core.making.authoring import (
    MadeImage,
    QuestionDraft,
    allowed_types,
    new_draft,
    problems,
    readable,
    save_draft,
)
from sabre_desk.engines.gemini_make import GeminiImageMaker
from sabre_desk.ground.errors import ProjectError
from sabre_desk.gui.desk.session import SelectCase, Session
from sabre_desk.gui.making.make_edited import MakeEditedRow
from sabre_desk.imaging.io import IMAGE_EXTENSIONS

COLUMNS = ["Probe", "Image", "Type", "Question", "Answer", "Options (A; B; C; D)"]
PROBE, ROLE, TYPE, PROMPT, ANSWER, OPTIONS = range(len(COLUMNS))
THUMBNAIL = QSize(96, 72)  # the chosen photo on its button
PHOTO_FILTER = "Images (" + " ".join(f"*{e}" for e in IMAGE_EXTENSIONS) + ")"


class PhotoButton(QPushButton):
    """Shows the chosen photo, small, and its name; click to choose one, or drop a file on
    it. The thumbnail is what the reviewer checks: the right photo, the right way up."""

    def __init__(self, role: ImageRole, choose: object):
        super().__init__()
        self.role = role
        self.thumbnail: QImage | None = None
        self.setIconSize(THUMBNAIL)
        self.setMinimumHeight(THUMBNAIL.height() + 12)  # the same with or without a photo
        self.reset()
        self.setAcceptDrops(True)
        self._choose = choose

    def reset(self) -> None:
        self.setText(f"{self.role.value.capitalize()} photo: choose or drop a file…")
        self.thumbnail = None
        self.setIcon(QIcon())

    def show_photo(self, path: Path, text: str) -> None:
        """*path* shown as a thumbnail (turned as its EXIF says, read at thumbnail size),
        with *text*; a file that cannot be read shows its name only (the problems list
        says why)."""
        self.setText(text)
        reader = QImageReader(str(path))
        reader.setAutoTransform(True)
        size = reader.size()
        if size.isValid():
            reader.setScaledSize(size.scaled(THUMBNAIL, Qt.AspectRatioMode.KeepAspectRatio))
        image = reader.read()
        self.thumbnail = None if image.isNull() else image
        self.setIcon(QIcon() if image.isNull() else QIcon(QPixmap.fromImage(image)))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self._choose(self.role, Path(event.mimeData().urls()[0].toLocalFile()))  # type: ignore[operator]


class NewCaseDialog(QDialog):
    def __init__(
        self,
        project: Project,
        parent: QWidget | None = None,
        new_maker: Callable[[], GeminiImageMaker] = GeminiImageMaker,
    ):
        super().__init__(parent)
        self.setWindowTitle("New Case from Photos")
        self.project = project
        self.saved: str | None = None
        self.library = PrimerLibrary.for_project(project.root)
        self.draft = new_draft(None)
        self._filling = False

        self.primer = QComboBox()
        self.primer.addItem("(no primer)", None)
        for primer in sorted(self.library.primers.values(), key=lambda p: p.name):
            self.primer.addItem(f"{primer.name}: {primer.header.title}", primer.name)
        self.primer.currentIndexChanged.connect(self._primer_changed)
        self.case_id = QLineEdit()
        self.case_id.setPlaceholderText("e.g. kitchen_mug_01")
        self.case_id.textChanged.connect(self._changed)
        self.kind = QComboBox()
        self.kind.addItem("Single image", GenerationMode.SINGLE_IMAGE)
        self.kind.addItem("Base + Edited pair", GenerationMode.PAIRED_EDIT)
        self.kind.currentIndexChanged.connect(self._kind_changed)
        self.photos: dict[ImageRole, PhotoButton] = {}
        photo_row = QHBoxLayout()
        for role in ImageRole:
            button = PhotoButton(role, self.set_image)
            button.clicked.connect(lambda _=False, r=role: self._browse(r))
            self.photos[role] = button
            photo_row.addWidget(button)
        self.make_edited = MakeEditedRow(
            project.root, project.read_only, lambda: self.draft, new_maker, self
        )
        self.make_edited.made.connect(self._on_edited_made)
        self.attributes_form = QFormLayout()
        self.attribute_edits: dict[str, QLineEdit] = {}
        self.questions = QTableWidget(0, len(COLUMNS))
        self.questions.setHorizontalHeaderLabels(COLUMNS)
        self.questions.horizontalHeader().setStretchLastSection(True)
        self.questions.setColumnWidth(PROMPT, 300)
        self.questions.itemChanged.connect(self._cell_changed)
        self.add_question = QPushButton("Add question")
        self.add_question.clicked.connect(self._add_question)
        self.remove_question = QPushButton("Remove question")
        self.remove_question.clicked.connect(self._remove_question)
        self.problem_list = QLabel()
        self.problem_list.setObjectName("problem")
        self.problem_list.setWordWrap(True)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        top = QFormLayout()
        top.addRow("Test Primer", self.primer)
        top.addRow("Case id", self.case_id)
        top.addRow("Kind", self.kind)
        question_buttons = QHBoxLayout()
        question_buttons.addWidget(self.add_question)
        question_buttons.addWidget(self.remove_question)
        question_buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addLayout(photo_row)
        layout.addWidget(self.make_edited)
        layout.addLayout(self.attributes_form)
        layout.addWidget(QLabel("Questions and their answers (check each one)"))
        layout.addWidget(self.questions, 1)
        layout.addLayout(question_buttons)
        layout.addWidget(self.problem_list)
        layout.addWidget(self.buttons)
        self.resize(960, 600)
        default = self.primer.findData(project.manifest.primer) if project.manifest.primer else -1
        self.primer.setCurrentIndex(max(default, 0))
        self._primer_changed()

    # --- the draft follows the widgets ---------------------------------------------------

    def _primer_changed(self) -> None:
        name = self.primer.currentData()
        images, concept, made = self.draft.images, self.case_id.text(), self.draft.made_edited
        self.draft = new_draft(self.library.primers.get(name) if name else None)
        self.draft.images, self.draft.concept_id = images, concept
        self.draft.made_edited = made
        self.draft.chosen_mode = GenerationMode(self.kind.currentData())
        self.kind.setEnabled(not self.draft.mode_fixed)
        if self.draft.mode_fixed:
            self.kind.setCurrentIndex(self.kind.findData(self.draft.mode))
        while self.attributes_form.rowCount():
            self.attributes_form.removeRow(0)
        self.attribute_edits = {}
        for attribute in self.draft.attributes:
            edit = QLineEdit()
            edit.textChanged.connect(self._changed)
            edit.textChanged.connect(self._show_prompts)
            self.attribute_edits[attribute] = edit
            self.attributes_form.addRow(attribute.replace("_", " ").capitalize(), edit)
        self._fill_questions()
        self._show_photos()
        self._changed()

    def _kind_changed(self) -> None:
        self.draft.chosen_mode = GenerationMode(self.kind.currentData())
        roles = ROLES_FOR_MODE[self.draft.mode]
        for q in self.draft.questions:
            if not q.fixed and q.image_role not in roles:
                q.image_role = roles[-1]
        self._fill_questions()
        self._show_photos()
        self._changed()

    def _show_photos(self) -> None:
        roles = ROLES_FOR_MODE[self.draft.mode]
        for role, button in self.photos.items():
            button.setVisible(role in roles)

    def _fill_questions(self) -> None:
        self._filling = True
        table = self.questions
        table.setRowCount(len(self.draft.questions))
        for row, q in enumerate(self.draft.questions):
            prompt = readable(q.prompt, self.draft.attributes)
            cells = [q.probe_id, q.image_role.value, q.question_type.value, prompt, q.answer]
            cells.append("; ".join(q.options))
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                editable = column in (PROMPT, OPTIONS) or (column == ANSWER and not q.answer_fixed)
                editable |= not q.fixed and column in (PROBE, ROLE, TYPE)
                if not editable:
                    item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEditable)
                table.setItem(row, column, item)
        # The primer's probe ids whole (component_count_…), never narrower than before.
        width = table.columnWidth(PROBE)
        table.resizeColumnToContents(PROBE)
        table.setColumnWidth(PROBE, max(width, table.columnWidth(PROBE)))
        self._filling = False

    def _show_prompts(self) -> None:
        """The questions read with the attributes typed so far (the primer's wording keeps
        its placeholders underneath, filled when the case is saved)."""
        for name, edit in self.attribute_edits.items():
            self.draft.attributes[name] = edit.text()
        self._filling = True
        for row, q in enumerate(self.draft.questions):
            item = self.questions.item(row, PROMPT)
            if item is not None:
                item.setText(readable(q.prompt, self.draft.attributes))
        self._filling = False

    def _cell_changed(self, item: QTableWidgetItem) -> None:
        if self._filling:
            return
        q = self.draft.questions[item.row()]
        text = item.text().strip()
        column = item.column()
        if column == PROBE:
            q.probe_id = text
        elif column == ROLE:
            q.image_role = ImageRole(text) if text in ImageRole._value2member_map_ else q.image_role
        elif column == TYPE:
            if text in QuestionType._value2member_map_:
                q.question_type = QuestionType(text)
        elif column == PROMPT:
            if item.text() != readable(q.prompt, self.draft.attributes):  # rewritten by hand
                q.prompt = item.text()
        elif column == ANSWER:
            q.answer = text
        else:
            q.options = [o.strip() for o in item.text().split(";")]
        self._changed()

    def _add_question(self) -> None:
        kind = allowed_types(self.draft.primer)[0]
        roles = ROLES_FOR_MODE[self.draft.mode]
        number = len(self.draft.questions) + 1
        options = ["", "", "", ""] if kind is QuestionType.MULTIPLE_CHOICE else []
        self.draft.questions.append(QuestionDraft(f"q{number}", roles[-1], kind, "", "", options))
        self._fill_questions()
        self._changed()

    def _remove_question(self) -> None:
        row = self.questions.currentRow()
        if 0 <= row < len(self.draft.questions) and not self.draft.questions[row].fixed:
            del self.draft.questions[row]
            self._fill_questions()
            self._changed()

    def _browse(self, role: ImageRole) -> None:
        chosen, _ = QFileDialog.getOpenFileName(self, f"{role.value} photo", "", PHOTO_FILTER)
        if chosen:
            self.set_image(role, Path(chosen))

    def set_image(self, role: ImageRole, path: Path) -> None:
        if role is ImageRole.BASE and self.draft.edited_by_model is not None:
            # made from the Base photo being replaced: it does not go with the new one
            del self.draft.images[ImageRole.EDITED]
            self.draft.made_edited = None
            self.photos[ImageRole.EDITED].reset()
            self.make_edited.status.setText("The Base photo changed: make the Edited image again.")
        self.draft.images[role] = path
        self.photos[role].show_photo(path, f"{role.value.capitalize()}: {path.name}")
        if not self.case_id.text():
            stem = path.stem.removesuffix(f"_{role.value}")
            self.case_id.setText("".join(c if c.isalnum() or c in "._-" else "_" for c in stem))
        self._changed()

    def _changed(self) -> None:
        draft = self.draft
        draft.concept_id = self.case_id.text()
        for name, edit in self.attribute_edits.items():
            draft.attributes[name] = edit.text()
        left = problems(draft, self.project)
        self.problem_list.setText(
            "Ready to save." if not left else "Still to do:\n• " + "\n• ".join(left[:6])
        )
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        save.setEnabled(not left and not self.project.read_only)
        self.current_problems = left
        self.make_edited.refresh()

    def _on_edited_made(self, made: MadeImage) -> None:
        self.draft.made_edited = made
        self.set_image(ImageRole.EDITED, made.path)
        self.photos[ImageRole.EDITED].setText(f"Edited: made by {made.model}")

    def save(self) -> None:
        try:
            self.saved = save_draft(self.project, self.draft)
        except (ProjectError, OSError) as exc:
            message = exc.message if isinstance(exc, ProjectError) else str(exc)
            self.problem_list.setText(f"Not saved: {message}")
            return
        self.accept()

    def done(self, result: int) -> None:
        self.make_edited.shutdown()  # a call under way is stopped; the made image goes
        super().done(result)


def author_new_case(
    parent: QWidget, session: Session, workbench: Workbench, select_case: SelectCase, model: str
) -> str | None:
    """File > New Case: the dialog, then the new case in the list and on screen."""
    project = session.project
    if project is None:
        session.say("Open or make a project first (File > New Project…).")
        return None
    if project.indexing:
        session.say("The project's index is still being read; try again in a moment.")
        return None
    dialog = NewCaseDialog(project, parent, lambda: GeminiImageMaker(model))
    if not dialog.exec() or dialog.saved is None:
        return None
    entry = project.entry(dialog.saved)
    if entry is not None:
        workbench.append_entries([entry])
        select_case(dialog.saved)
    session.say(f"Case {dialog.saved} saved; it goes through screening and review like the rest.")
    return dialog.saved
