"""A blind study of repair methods, as in the paper's user study (its Appendix D.3, Table 8).

For each chosen case and defect box, candidates are made with several methods: the patch
blended with a soft mask (this app's repair), the same generated patch pasted hard (which
isolates the compositing), a whole-image edit, and offline inpainting. A participant sees the
original with the box marked in red and the candidates as "Method 1-4", in an order shuffled
for every question and recorded, and must pick one to go on (no skipping). Each pick is
written at once, so a session can be left and resumed. The report gives each method's votes
and preference over completed sessions, with each participant's preference for every method
(mean, standard deviation and range across participants).

Files, under ``<project>/studies/<name>/`` (outside ``cases/``, so neither validation nor
export reads them): ``study.json``, ``original/`` (the images with the red box),
``candidates/`` and ``sessions/<participant>.json``.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Final, Literal, TypeVar

import numpy as np
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.engines.base import RepairEngine, RepairOp
from sabre_desk.engines.opencv import TeleaEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.ground import limits
from sabre_desk.ground.aside import built_aside
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.paths import inside_project, plain_file_name
from sabre_desk.ground.storage import atomic_write_bytes, atomic_write_model, read_json
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.blend import BlendParams, paste
from sabre_desk.imaging.io import load_image
from sabre_desk.imaging.patch import box_to_pixels, draw_marker

STUDIES_DIR = "studies"
STUDY_FORMAT: Final = "sabre-desk-study"
Method = Literal["soft", "hard", "whole", "inpaint"]
METHOD_NAMES: dict[str, str] = {
    "soft": "patch + soft blend",
    "hard": "patch + hard paste",
    "whole": "whole-image edit",
    "inpaint": "offline inpainting (OpenCV Telea)",
}
Box = tuple[float, float, float, float]
M = TypeVar("M", bound=BaseModel)


class StudyQuestion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case_id: str
    image_role: ImageRole
    box: Box
    original: str  # file name in original/
    candidates: dict[str, str]  # method -> file name in candidates/


class Study(BaseModel):
    model_config = ConfigDict(extra="allow")

    format: Literal["sabre-desk-study"] = STUDY_FORMAT
    version: int = 1
    name: str
    created_at: str
    engine: Annotated[str, StringConstraints(max_length=limits.NAME.most)]
    instruction: Annotated[str, StringConstraints(max_length=limits.INSTRUCTION.most)]
    methods: list[str] = Field(min_length=1)
    questions: list[StudyQuestion] = Field(min_length=1, max_length=limits.STUDY_QUESTIONS.most)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        problem = id_problem(v, "study name")
        if problem:
            raise ValueError(problem)
        return v

    @model_validator(mode="after")
    def _known_methods(self) -> Study:
        """Only the methods this version makes, each once, and a candidate of each for
        every question: what the window shows and the report names is all there."""
        strangers = sorted(set(self.methods) - set(METHOD_NAMES))
        if strangers:
            known = ", ".join(METHOD_NAMES)
            raise ValueError(f"methods: unknown method {strangers[0]!r:.40} (known: {known})")
        if len(set(self.methods)) != len(self.methods):
            raise ValueError("methods: a method is named twice")
        for number, question in enumerate(self.questions, 1):
            if set(question.candidates) != set(self.methods):
                raise ValueError(f"question {number}: give one candidate for each method")
        return self


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: int
    shown: list[str]  # the methods in the order shown as Method 1, 2, …
    chosen: str
    at: str


class Session(BaseModel):
    model_config = ConfigDict(extra="allow")

    participant: str
    started_at: str
    picks: list[Pick] = Field(default_factory=list, max_length=limits.STUDY_QUESTIONS.most)

    @field_validator("participant")
    @classmethod
    def _participant(cls, v: str) -> str:
        problem = id_problem(v, "participant name")
        if problem:
            raise ValueError(problem)
        return v

    def complete(self, study: Study) -> bool:
        return {p.question for p in self.picks} >= set(range(len(study.questions)))

    def next_question(self, study: Study) -> int | None:
        done = {p.question for p in self.picks}
        return next((i for i in range(len(study.questions)) if i not in done), None)


def study_dir(project: Project, name: str) -> Path:
    problem = id_problem(name, "study name")
    if problem:
        raise ProjectError(problem, project.root / STUDIES_DIR)
    return project.root / STUDIES_DIR / name


def _png(pixels: np.ndarray) -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="PNG", compress_level=3)
    return buffer.getvalue()


def candidates_for(
    image: np.ndarray, box: Box, engine: RepairEngine, instruction: str
) -> dict[str, np.ndarray]:
    """The four candidates for one defect: soft and hard share one generated patch."""
    order = RepairOrder(box, RepairOp.REMOVE, instruction)
    patched = run_repair(image, order, engine)
    hard = paste(image, patched.reply, patched.plan.rect)
    height, width = image.shape[:2]
    everything = BlendParams(margin_fraction=0.0, min_margin_px=max(width, height))
    whole_run = run_repair(
        image, RepairOrder(box, RepairOp.REMOVE, instruction, everything), engine
    )
    whole = paste(image, whole_run.reply, whole_run.plan.rect)
    inpaint = run_repair(image, order, TeleaEngine()).image
    return {"soft": patched.image, "hard": hard, "whole": whole, "inpaint": inpaint}


def make_study(
    project: Project,
    name: str,
    defects: list[tuple[str, Box | None]],
    engine: RepairEngine,
    instruction: str,
    progress: Callable[[int, int, str], None] | None = None,
) -> Study:
    """Make the candidates for each (case, box) and write the study. A case without a box
    uses its reviewer's first box on the edited (or single) image.

    Every case is checked (it exists, has a box and its image) before anything is written,
    and the study is built aside and renamed into place whole: a run that fails or is
    killed leaves no ``studies/<name>/``, so the same name can be used again at once."""
    folder = study_dir(project, name)
    if folder.exists():
        raise ProjectError("a study of this name exists; choose another name", folder)
    for limit, size in (
        (limits.INSTRUCTION, len(instruction)),
        (limits.STUDY_QUESTIONS, len(defects)),
    ):
        problem = limit.problem(size)
        if problem is not None:  # refused before anything is made
            raise ProjectError(f"not made: {problem}", folder)
    chosen = [_question_source(project, case_id, box) for case_id, box in defects]
    questions: list[StudyQuestion] = []
    with built_aside(folder) as aside:
        for sub in ("original", "candidates", "sessions"):
            (aside / sub).mkdir()
        for number, (case_id, role, box, path) in enumerate(chosen):
            image = load_image(path)
            made = candidates_for(image, box, engine, instruction)
            stem = f"{number + 1:02d}_{case_id}"
            h, w = image.shape[:2]
            atomic_write_bytes(
                aside / "original" / f"{stem}.png",
                _png(draw_marker(image, box_to_pixels(box, w, h))),
            )
            files = {}
            for method, pixels in made.items():
                files[method] = f"{stem}__{method}.png"
                atomic_write_bytes(aside / "candidates" / files[method], _png(pixels))
            questions.append(
                StudyQuestion(
                    case_id=case_id,
                    image_role=role,
                    box=box,
                    original=f"{stem}.png",
                    candidates=files,
                )
            )
            if progress is not None:
                progress(number + 1, len(defects), case_id)
        study = Study(
            name=name,
            created_at=utc_now(),
            engine=engine.name,
            instruction=instruction,
            methods=list(METHOD_NAMES),
            questions=questions,
        )
        atomic_write_model(aside / "study.json", study, "manifest")
    return study


def _question_source(
    project: Project, case_id: str, box: Box | None
) -> tuple[str, ImageRole, Box, Path]:
    """The case's image role, defect box and image file for one question, or a ProjectError
    saying what is missing and how to give it: checked for every case before any writing."""
    case = project.load_case(case_id)
    role = ImageRole.EDITED if ImageRole.EDITED in case.spec.image_roles else ImageRole.IMAGE
    if box is None:
        boxes = case.review.boxes_on(role)
        if not boxes:
            raise ProjectError(
                f"no box on its {role.value} image: give one as --case {case_id}=x0,y0,x1,y1 "
                "(fractions of the width and height), or draw one in the review window",
                case.folder,
            )
        box = boxes[0].box
    path = case.images.get(role)
    if path is None:
        raise ProjectError(f"its {role.value} image is missing", case.folder)
    return case_id, role, box, path


def _read_model(path: Path, kind: str, model: type[M]) -> M:
    """A study file as its model, or a ProjectError naming the file and the first reason:
    study files are shared and hand-edited, so their types are checked at the door."""
    data, _ = read_json(path, kind, ProjectError)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ProjectError(describe_validation_error(exc), path) from None


def load_study(project: Project, name: str) -> Study:
    folder = study_dir(project, name)
    study = _read_model(folder / "study.json", "manifest", Study)
    problem = outside_file(project, folder, study)
    if problem:
        raise ProjectError(problem, folder / "study.json")
    return study


def outside_file(project: Project, folder: Path, study: Study) -> str | None:
    """Why *study* cannot be opened because it names a file outside its own folders (an
    absolute path, ``../``, a link leading out of the project), or None: a study copied
    from elsewhere must not make the window open any file it names."""
    for number, q in enumerate(study.questions, 1):
        named = [("original", q.original), *(("candidates", n) for n in q.candidates.values())]
        for sub, name in named:
            if not plain_file_name(name) or not inside_project(project.root, folder / sub / name):
                return (
                    f"question {number} names {name[:80]!r}, a file outside the study's "
                    f"{sub}/ folder; the study is not opened"
                )
    return None


def shown_order(study: Study, participant: str, question: int) -> list[str]:
    """The methods as Method 1-4 for this participant and question: shuffled, reproducible."""
    methods = list(study.methods)
    random.Random(f"{study.name}/{participant}/{question}").shuffle(methods)
    return methods


def session_path(project: Project, study: Study, participant: str) -> Path:
    problem = id_problem(participant, "participant")
    if problem:
        raise ProjectError(problem, study_dir(project, study.name) / "sessions")
    return study_dir(project, study.name) / "sessions" / f"{participant}.json"


def load_session(project: Project, study: Study, participant: str) -> Session:
    path = session_path(project, study, participant)
    if not path.exists():
        return Session(participant=participant, started_at=utc_now())
    return _read_model(path, "review", Session)


def record_pick(
    project: Project, study: Study, session: Session, question: int, position: int
) -> Session:
    """The participant chose Method *position* (1-based) for *question*; written at once."""
    if session.next_question(study) != question:
        raise ProjectError(f"question {question + 1} is not the one to answer now")
    shown = shown_order(study, session.participant, question)
    if not 1 <= position <= len(shown):
        raise ProjectError(f"choose one of Method 1-{len(shown)}")
    session.picks.append(
        Pick(question=question, shown=shown, chosen=shown[position - 1], at=utc_now())
    )
    atomic_write_model(session_path(project, study, session.participant), session, "review")
    return session


@dataclass
class MethodResult:
    method: str
    votes: int
    share: float  # of all selections
    per_participant: list[float] = field(default_factory=list)  # each one's preference

    @property
    def mean(self) -> float:
        return statistics.mean(self.per_participant) if self.per_participant else 0.0

    @property
    def sd(self) -> float:
        return statistics.stdev(self.per_participant) if len(self.per_participant) > 1 else 0.0


@dataclass
class StudyReport:
    study: str
    completed: int
    started: int
    selections: int
    methods: list[MethodResult]
    #: session files not read, or picks not counted, each as one line naming the file
    problems: list[str] = field(default_factory=list)


def _listed(numbers: list[str]) -> str:
    shown = ", ".join(numbers[:5])
    return f"{shown}, …" if len(numbers) > 5 else shown


def counted_picks(study: Study, session: Session) -> tuple[list[Pick], list[str]]:
    """The picks a report counts: the first for each question the study has, of a method
    it has (a session file is a participant's, and may have been edited or stuffed); and
    why the others are not counted, in a line per kind."""
    counted: dict[int, Pick] = {}
    unknown_questions: list[str] = []
    unknown_methods: list[str] = []
    repeats: Counter[int] = Counter()
    for pick in session.picks:
        if not 0 <= pick.question < len(study.questions):
            unknown_questions.append(str(pick.question + 1))
        elif pick.chosen not in study.methods:
            unknown_methods.append(repr(pick.chosen[:40]))
        elif pick.question in counted:
            repeats[pick.question] += 1
        else:
            counted[pick.question] = pick
    reasons = []
    if unknown_questions:
        reasons.append(
            f"{len(unknown_questions)} pick(s) for question {_listed(unknown_questions)}, "
            "which the study does not have, not counted"
        )
    if unknown_methods:
        reasons.append(
            f"{len(unknown_methods)} pick(s) of method {_listed(unknown_methods)}, "
            "which the study does not have, not counted"
        )
    if repeats:
        questions = _listed([str(q + 1) for q in sorted(repeats)])
        reasons.append(
            f"{sum(repeats.values())} more picks of question {questions} not counted "
            "(the first pick of each question counts)"
        )
    return [counted[q] for q in sorted(counted)], reasons


def study_report(project: Project, study: Study) -> StudyReport:
    """Table 8 over the completed sessions (started ones are counted, not used): one pick
    per participant and question. A session file that cannot be read is left out, and
    picks not counted are named, each in ``problems``."""
    folder = study_dir(project, study.name) / "sessions"
    picks: list[list[Pick]] = []
    problems: list[str] = []
    for path in sorted(folder.glob("*.json")):
        try:
            session = _read_model(path, "review", Session)
        except ProjectError as exc:
            problems.append(f"{exc.message}; the session is not counted")
            continue
        counted, reasons = counted_picks(study, session)
        picks.append(counted)
        problems += [f"{path}: {reason}" for reason in reasons]
    complete = [p for p in picks if len(p) == len(study.questions)]
    votes: Counter[str] = Counter(p.chosen for chosen in complete for p in chosen)
    total = sum(votes.values())
    results = []
    for method in study.methods:
        shares = [sum(p.chosen == method for p in chosen) / len(chosen) for chosen in complete]
        results.append(
            MethodResult(method, votes[method], votes[method] / total if total else 0.0, shares)
        )
    return StudyReport(study.name, len(complete), len(picks), total, results, problems)
