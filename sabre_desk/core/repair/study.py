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
from typing import Final, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import ImageRole
from sabre_desk.engines.base import RepairEngine, RepairOp
from sabre_desk.engines.opencv import TeleaEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.paths import inside_project, plain_file_name
from sabre_desk.ground.storage import atomic_write_bytes, atomic_write_json, read_json
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
    engine: str
    instruction: str
    methods: list[str]
    questions: list[StudyQuestion] = Field(min_length=1)


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
    picks: list[Pick] = Field(default_factory=list)

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
    uses its reviewer's first box on the edited (or single) image."""
    folder = study_dir(project, name)
    if folder.exists():
        raise ProjectError("a study of this name exists; choose another name", folder)
    questions: list[StudyQuestion] = []
    (folder / "original").mkdir(parents=True)
    (folder / "candidates").mkdir()
    (folder / "sessions").mkdir()
    for number, (case_id, box) in enumerate(defects):
        case = project.load_case(case_id)
        role = ImageRole.EDITED if ImageRole.EDITED in case.spec.image_roles else ImageRole.IMAGE
        if box is None:
            boxes = case.review.boxes_on(role)
            if not boxes:
                raise ProjectError(
                    f"no box on its {role.value} image: give one as {case_id}=x0,y0,x1,y1",
                    case.folder,
                )
            box = boxes[0].box
        path = case.images.get(role)
        if path is None:
            raise ProjectError(f"its {role.value} image is missing", case.folder)
        image = load_image(path)
        made = candidates_for(image, box, engine, instruction)
        stem = f"{number + 1:02d}_{case_id}"
        h, w = image.shape[:2]
        atomic_write_bytes(
            folder / "original" / f"{stem}.png",
            _png(draw_marker(image, box_to_pixels(box, w, h))),
        )
        files = {}
        for method, pixels in made.items():
            files[method] = f"{stem}__{method}.png"
            atomic_write_bytes(folder / "candidates" / files[method], _png(pixels))
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
    atomic_write_json(folder / "study.json", study.model_dump(mode="json"))
    return study


def load_study(project: Project, name: str) -> Study:
    folder = study_dir(project, name)
    data, _ = read_json(folder / "study.json", "manifest", ProjectError)
    study = Study.model_validate(data)
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
    data, _ = read_json(path, "review", ProjectError)
    return Session.model_validate(data)


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
    atomic_write_json(
        session_path(project, study, session.participant), session.model_dump(mode="json")
    )
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


def study_report(project: Project, study: Study) -> StudyReport:
    """Table 8 over the completed sessions (started ones are counted, not used)."""
    folder = study_dir(project, study.name) / "sessions"
    sessions = [
        Session.model_validate(read_json(path, "review", ProjectError)[0])
        for path in sorted(folder.glob("*.json"))
    ]
    complete = [s for s in sessions if s.complete(study)]
    votes: Counter[str] = Counter(p.chosen for s in complete for p in s.picks)
    total = sum(votes.values())
    results = []
    for method in study.methods:
        shares = [
            sum(p.chosen == method for p in s.picks) / len(s.picks) for s in complete if s.picks
        ]
        results.append(
            MethodResult(method, votes[method], votes[method] / total if total else 0.0, shares)
        )
    return StudyReport(study.name, len(complete), len(sessions), total, results)
