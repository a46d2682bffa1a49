"""One participant's session of a blind repair study: the original with the defect boxed in
red, the candidates as Method 1-4 in a shuffled order, one required pick per question.

Keys 1-4 pick as well as a click does. Every pick is saved at once; closing the window
keeps the session, and opening it again resumes at the first unanswered question.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sabre_desk.core.case.project import Project
from sabre_desk.core.repair.study import (
    Session,
    Study,
    load_session,
    record_pick,
    shown_order,
    study_dir,
)
from sabre_desk.ground.errors import ProjectError

INSTRUCTIONS = (
    "The red box marks something to remove. Pick the result that removes it most naturally "
    "and seamlessly, with nothing else in the image changed. Click a result or press 1-4."
)
THUMB = 360


class StudyDialog(QDialog):
    def __init__(
        self, project: Project, study: Study, participant: str, parent: QWidget | None = None
    ):
        super().__init__(parent)
        self.project, self.study = project, study
        self.session: Session = load_session(project, study, participant)
        self.folder = study_dir(project, study.name)
        self.setWindowTitle(f"Repair study {study.name} — {participant}")
        self.progress = QLabel()
        self.progress.setObjectName("progress")
        note = QLabel(INSTRUCTIONS)
        note.setWordWrap(True)
        self.original = QLabel()
        self.original.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.choices: list[QPushButton] = []
        grid = QGridLayout()
        for i in range(len(study.methods)):
            button = QPushButton()
            button.setIconSize(
                button.iconSize().scaled(THUMB, THUMB, Qt.AspectRatioMode.KeepAspectRatio)
            )
            button.clicked.connect(lambda _=False, n=i + 1: self.choose(n))
            self.choices.append(button)
            grid.addWidget(button, i // 2, i % 2)
        self.status = QLabel()
        layout = QVBoxLayout(self)
        layout.addWidget(self.progress)
        layout.addWidget(note)
        layout.addWidget(self.original, 1)
        layout.addLayout(grid, 2)
        layout.addWidget(self.status)
        self.resize(900, 760)
        self.show_question()

    @property
    def question(self) -> int | None:
        return self.session.next_question(self.study)

    def show_question(self) -> None:
        number = self.question
        total = len(self.study.questions)
        if number is None:
            self.progress.setText(f"All {total} questions answered. Thank you!")
            for button in self.choices:
                button.setEnabled(False)
            return
        q = self.study.questions[number]
        self.progress.setText(f"Question {number + 1} of {total}")
        self.original.setPixmap(self._pixmap(self.folder / "original" / q.original, 2 * THUMB))
        shown = shown_order(self.study, self.session.participant, number)
        for position, (button, method) in enumerate(zip(self.choices, shown, strict=True), 1):
            button.setText(f"Method {position}")
            button.setIcon(self._pixmap(self.folder / "candidates" / q.candidates[method], THUMB))
            button.setEnabled(True)

    @staticmethod
    def _pixmap(path: Path, side: int) -> QPixmap:
        pixmap = QPixmap(str(path))
        return pixmap.scaled(
            side,
            side,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )

    def choose(self, position: int) -> None:
        number = self.question
        if number is None:
            return
        try:
            self.session = record_pick(self.project, self.study, self.session, number, position)
        except (ProjectError, OSError) as exc:
            message = exc.message if isinstance(exc, ProjectError) else str(exc)
            self.status.setText(f"Not saved: {message}")
            return
        self.status.setText(f"Saved: Method {position} for question {number + 1}.")
        self.show_question()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        digit = event.text()
        if digit.isdigit() and 1 <= int(digit) <= len(self.choices):
            self.choose(int(digit))
            return
        super().keyPressEvent(event)
