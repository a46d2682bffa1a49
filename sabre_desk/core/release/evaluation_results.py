"""An evaluation's results as one model, Qt-free: what the window's evaluation view shows
and ``report.html`` prints.

An evaluation folder is what ``evaluate`` writes (a predictions file per model and
figures.json naming the release), or any folder of predictions files in ``score``'s format
with the release named separately. Everything here is computed from those files by the
code that scores and audits them, never a second time by other rules:

- a question's right or wrong per model is ``scoring.judge``'s, taken from the very
  ``Report`` the figures come from (``Report.right``);
- the figures per subset and the macro are that report's ``to_json()``, the numbers
  ``score --json`` prints for the same predictions file;
- a question is disputed by ``audit.agreed_against``, the rule ``sabre-desk audit`` flags by.

Reading goes through the audit's loader: the release through its own path checks (no link
out of it, an image path outside it refused), every file line by line with a bound per line,
every bad input one ProjectError naming the file and the reason.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.scoring import Report, Sample, score
from sabre_desk.core.release.audit import (
    Evaluation,
    agreed_against,
    min_models_for,
)
from sabre_desk.core.release.audit import (
    load_evaluation as load_answers,
)


@dataclass(frozen=True)
class QuestionResult:
    """One question of the release with every model's answer and whether it was right."""

    question_id: str
    case_id: str
    subset: str
    question: str
    reference: str
    image: str  # the release-relative image path of the question (for thumbnails)
    answers: dict[str, str | None]  # model name → its response (None: none)
    right: dict[str, bool | None]  # model name → judged right (None: no answer)
    probe_id: str = ""
    #: the rule the answers are read by (the release's row gives it; text compared as
    #: ``exact_match`` for a result made by hand)
    eval_type: str = "exact_match"
    #: models that must agree for a dispute; 0: ``audit``'s default for this many models
    min_models: int = 0

    @property
    def agreed(self) -> str | None:
        """The answer the models agree on against the reference, as the rules read it
        (``audit``'s rule, ``audit.agreed_against``); None when they do not."""
        need = self.min_models or min_models_for(len(self.answers), None)
        return agreed_against(self.eval_type, self.reference, self.answers, need)

    @property
    def disputed(self) -> bool:
        """The models agree with each other against the reference (``audit``'s rule)."""
        return self.agreed is not None

    @property
    def failed_by_all(self) -> bool:
        """No model got it right (a model without an answer counts as wrong)."""
        return not any(self.right.values())

    @property
    def failed_by_none(self) -> bool:
        """Every model got it right."""
        return bool(self.right) and all(v is True for v in self.right.values())


@dataclass(frozen=True)
class SubsetFigure:
    """One subset's primary figure (All4 or accuracy) per model, as ``score --json`` gives it."""

    subset: str
    metric: str  # "All4" or "accuracy"
    by_model: dict[str, tuple[float, float, float]]  # accuracy, ci low, ci high (0..1)


@dataclass
class EvaluationResults:
    folder: Path
    release: Path
    release_name: str | None
    root_sha256: str | None
    models: list[str]
    subsets: list[SubsetFigure]
    questions: list[QuestionResult]
    macro: dict[str, float | None]  # the paper's macro per model, as score --json "macro"
    #: model → its predictions file
    files: dict[str, Path] = field(default_factory=dict)
    #: model → score --json's whole report for its predictions file
    reports: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def disputed(self) -> list[QuestionResult]:
        return [q for q in self.questions if q.disputed]


def _samples(rows: list[dict[str, Any]], answers: dict[str, str | None]) -> list[Sample]:
    """The release's questions with one model's responses, as ``score`` builds them."""
    return [
        Sample(
            str(row["question_id"]),
            str(row["group_id"]),
            str(row["subset"]),
            str(row["probe_id"]),
            str(row["eval_type"]),
            str(row["answer"]),
            answers.get(str(row["question_id"])),
        )
        for row in rows
    ]


def results_of(folder: Path, evaluation: Evaluation) -> EvaluationResults:
    """The results of an evaluation already read (``audit.load_evaluation``)."""
    reports: dict[str, Report] = {}
    names: dict[str, str] = {}
    for key, answers in evaluation.answers.items():
        name = evaluation.labels.get(key, key)
        names[key] = name
        reports[name] = score(_samples(evaluation.rows, answers))
    models = list(reports)
    figures = {model: report.to_json() for model, report in reports.items()}
    subsets: list[SubsetFigure] = []
    for subset in sorted({s["subset"] for f in figures.values() for s in f["subsets"]}):
        by_model: dict[str, tuple[float, float, float]] = {}
        metric = ""
        for model, figure in figures.items():
            found = next((s for s in figure["subsets"] if s["subset"] == subset), None)
            if found is None:
                continue
            metric = metric or str(found["metric"])
            low, high = found["ci95"]
            by_model[model] = (float(found["accuracy"]), float(low), float(high))
        subsets.append(SubsetFigure(subset, metric, by_model))
    need = min_models_for(len(models), None)
    questions = []
    for row in evaluation.rows:
        qid = str(row["question_id"])
        questions.append(
            QuestionResult(
                question_id=qid,
                case_id=str(row.get("case_id", row["group_id"])),
                subset=str(row["subset"]),
                question=str(row["question"]),
                reference=str(row["answer"]),
                image=str(row["image"]),
                answers={names[k]: a.get(qid) for k, a in evaluation.answers.items()},
                right={name: reports[name].right.get(qid) for name in models},
                probe_id=str(row["probe_id"]),
                eval_type=str(row["eval_type"]),
                min_models=need,
            )
        )
    return EvaluationResults(
        folder=folder,
        release=evaluation.release,
        release_name=evaluation.release_name,
        root_sha256=evaluation.root_sha256,
        models=models,
        subsets=subsets,
        questions=questions,
        macro={model: figure["macro"] for model, figure in figures.items()},
        files={names[k]: p for k, p in evaluation.files.items()},
        reports=figures,
    )


def load_evaluation(
    folder: Path, release: Path | None = None, only: Iterable[Path] | None = None
) -> EvaluationResults:
    """The results of the evaluation in *folder*: an ``evaluate`` folder (its release from
    figures.json unless *release* is given), or a folder of predictions files in ``score``'s
    format with *release*; every predictions file there, or *only* those given. Bad input
    is a ProjectError naming the file and the reason."""
    return results_of(folder, load_answers(folder, release, only))
