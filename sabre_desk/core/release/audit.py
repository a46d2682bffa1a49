"""The audit queue: questions where the evaluated models agree with each other against the
reference answer.

When several models give the same answer and none gives the reference, the reference may
be what is wrong (Northcutt et al. 2021 found label errors in every widely used test set
they looked at this way). These are candidates for a reviewer, not verdicts: ``audit``
lists them, ``audit --flag`` records them in the project (``audit.json``), and a reviewer
settles one by editing the question's answer or deciding the case again after the flag.

Answers are compared as the answer rules read them (``parse``), so "Yes." and "yes" agree
and an unparseable response agrees with nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sabre_desk.core.case.answer_rules import grade, normalize, parse
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Review, utc_now
from sabre_desk.core.release.audit_file import (
    AUDIT_KIND,
    check_audit,
    excerpt,
    write_audit,
)
from sabre_desk.core.release.release import BENCHMARK, MAX_ROW
from sabre_desk.core.release.release_read import benchmark_row, path_problem, release_file
from sabre_desk.core.release.score_files import (
    jsonl_objects,
    predictions_name,
    read_predictions,
    release_identity,
)
from sabre_desk.core.team.final import all_reviews
from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.reading import read_json_file

#: The project's file of flagged questions.
AUDIT_NAME = "audit.json"
#: Agreeing models needed by default (all of them when fewer were evaluated).
DEFAULT_MIN_MODELS = 3
#: Where ``evaluate`` writes which release it evaluated (see evaluate.write_results).
FIGURES_NAME = "figures.json"


@dataclass(frozen=True)
class Dispute:
    """One question the models agree on against its reference."""

    question_id: str
    case_id: str
    probe_id: str
    subset: str
    question: str
    reference: str
    agreed: str  # the answer the agreeing models give, as the rules read it
    answers: dict[str, str | None]  # model → its response as given

    def to_json(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "case_id": self.case_id,
            "probe_id": self.probe_id,
            "subset": self.subset,
            "question": self.question,
            "reference": self.reference,
            "agreed": self.agreed,
            "answers": dict(self.answers),
        }


def min_models_for(models: int, asked: int | None) -> int:
    """The agreement needed: *asked*, else 3, and never more than the models there are."""
    return min(asked if asked is not None else DEFAULT_MIN_MODELS, models)


def agreed_against(
    eval_type: str, reference: str, given: Mapping[str, str | None], min_models: int
) -> str | None:
    """The answer at least *min_models* of the models in *given* (model → response, None:
    no response) agree on when none of them gives *reference*, as the rules read it; None
    when they do not so agree: the one rule of a disputed question (``audit`` and the
    evaluation's results)."""
    parsed = [parse(eval_type, r) for r in given.values() if r is not None]
    if any(p is not None and grade(eval_type, p, reference) for p in parsed):
        return None
    tally: dict[str, int] = {}
    for value in parsed:
        if value is not None:
            tally[value] = tally.get(value, 0) + 1
    agreed = max(tally, key=lambda v: tally[v], default=None)
    if agreed is None or tally[agreed] < max(min_models, 1):
        return None
    return agreed


def find_disputes(
    rows: list[dict[str, Any]], answers: Mapping[str, Mapping[str, str | None]], min_models: int
) -> list[Dispute]:
    """The questions of *rows* (a release's benchmark rows) where at least *min_models* of
    the models in *answers* (model → question_id → response) give one same answer and no
    model gives the reference."""
    out = []
    for row in rows:
        qid, eval_type, reference = str(row["question_id"]), row["eval_type"], row["answer"]
        given = {model: by_question.get(qid) for model, by_question in answers.items()}
        agreed = agreed_against(str(eval_type), str(reference), given, min_models)
        if agreed is None:
            continue
        out.append(
            Dispute(
                qid,
                str(row.get("case_id", row["group_id"])),
                str(row["probe_id"]),
                str(row["subset"]),
                str(row["question"]),
                str(reference),
                agreed,
                given,
            )
        )
    return out


@dataclass
class Evaluation:
    """A release and every model's answers to it."""

    release: Path
    rows: list[dict[str, Any]]
    answers: dict[str, dict[str, str | None]]  # model → question_id → response
    root_sha256: str | None
    #: model (as in *answers*: its file's name) → its predictions file
    files: dict[str, Path] = field(default_factory=dict)
    #: model (as in *answers*) → the name ``evaluate`` gave it (``openai:gpt-5.4``), where
    #: figures.json records it; else its file's name
    labels: dict[str, str] = field(default_factory=dict)
    release_name: str | None = None


def _model_name(path: Path) -> str:
    stem = path.stem
    return stem.removeprefix("predictions-")


#: What a row must hold besides what every reader takes (``BenchmarkRow``).
_ROW_FIELDS = ("group_id", "subset", "probe_id", "answer")


def release_rows(release: Path) -> list[dict[str, Any]]:
    """The rows of *release*'s benchmark.jsonl, read through the release's own path checks
    (no link out of it), a line at a time with a bound per line; a row without what the
    scoring and the audit read, or naming an image outside the release, is one error naming
    the file and the line."""
    path = release_file(release, BENCHMARK)
    if not path.is_file():
        raise ProjectError(f"is not a release (no {BENCHMARK})", release)
    rows = []
    for number, row in jsonl_objects(path, MAX_ROW):
        try:
            checked = benchmark_row(row)
        except ValueError as exc:
            raise ProjectError(f"line {number} is not a benchmark row ({exc})", path) from exc
        lacking = [name for name in _ROW_FIELDS if name not in row]
        if lacking:
            raise ProjectError(f"line {number} has no {lacking[0]!r}", path)
        try:
            row["index"] = int(str(row["index"]))
        except KeyError as exc:
            raise ProjectError(f"line {number} has no 'index'", path) from exc
        except (TypeError, ValueError, OverflowError) as exc:
            raise ProjectError(f"line {number}: 'index' is not a number", path) from exc
        why = path_problem(release, checked.image)
        if why is not None:
            raise ProjectError(f"line {number}: its image is refused: {why}", path)
        rows.append(row)
    return rows


def _figures(eval_dir: Path) -> dict[str, Any]:
    figures = eval_dir / FIGURES_NAME
    if not figures.exists() and not figures.is_symlink():
        return {}
    data, _ = read_json_file(figures, "release", ProjectError, follow_links=False)
    if not isinstance(data, dict):
        raise ProjectError("is not a JSON object", figures)
    return data


def load_evaluation(
    eval_dir: Path, release: Path | None = None, only: Iterable[Path] | None = None
) -> Evaluation:
    """The evaluation in *eval_dir*: every predictions file there (``predictions-*.jsonl``
    written by ``evaluate``, or any ``*.jsonl`` / ``*.tsv`` in ``score``'s format), or
    *only* those given, read against *release*, else the release ``evaluate`` recorded in
    ``figures.json``."""
    if not eval_dir.is_dir():
        what = "is not a folder" if eval_dir.exists() else "no such folder"
        raise ProjectError(what, eval_dir)
    figures = _figures(eval_dir)
    if release is None:
        path = figures.get("release_path")
        if not isinstance(path, str):
            raise ProjectError(
                f"names no release (no {FIGURES_NAME} from `sabre-desk evaluate`); "
                "give the release with --release",
                eval_dir,
            )
        release = Path(path)
    if not release.is_dir():
        raise ProjectError("is not a release folder (missing)", release)
    rows = release_rows(release)
    by_index = {int(row["index"]): str(row["question_id"]) for row in rows}
    files = sorted(
        p
        for p in (eval_dir.iterdir() if only is None else only)
        if p.is_file() and p.suffix.lower() in (".jsonl", ".tsv") and p.name != "ledger.jsonl"
    )
    if not files:
        raise ProjectError("holds no predictions file (.jsonl or .tsv)", eval_dir)
    recorded = figures.get("models")
    named = {predictions_name(m): m for m in recorded} if isinstance(recorded, dict) else {}
    answers: dict[str, dict[str, str | None]] = {}
    paths: dict[str, Path] = {}
    labels: dict[str, str] = {}
    for file in files:
        by_id, by_idx = read_predictions([file])
        merged = dict(by_id)
        for index, response in by_idx.items():
            if index in by_index:
                merged.setdefault(by_index[index], response)
        model = _model_name(file)
        answers[model] = merged
        paths[model] = file
        labels[model] = named.get(file.name, model)
    name, root = release_identity(release)
    return Evaluation(release, rows, answers, root, paths, labels, name)


def write_flags(project_root: Path, evaluation: Evaluation, disputes: list[Dispute]) -> Path:
    """Record *disputes* in the project's ``audit.json`` (replacing an earlier audit's
    flags of the same questions, keeping the others and when each was first flagged)."""
    path = project_root / AUDIT_NAME
    flags = {f["question_id"]: f for f in read_flags(project_root)}
    now = utc_now()
    for dispute in disputes:
        earlier = flags.get(dispute.question_id, {})
        flag = dispute.to_json()
        flag["answers"] = {m: excerpt(a) for m, a in dispute.answers.items()}
        flags[dispute.question_id] = {
            **flag,
            "flagged_at": earlier.get("flagged_at", now),
            "release_root_sha256": evaluation.root_sha256,
        }
    write_audit(path, sorted(flags.values(), key=_key))  # validated as read, or refused
    return path


def _key(flag: dict[str, Any]) -> str:
    return str(flag["question_id"])


def read_flags(project_root: Path) -> list[dict[str, Any]]:
    """The flagged questions recorded in the project (none when there is no audit.json)."""
    path = project_root / AUDIT_NAME
    if not path.exists():
        return []
    data, _ = read_json_file(path, AUDIT_KIND, ProjectError)
    return check_audit(data, path)


def is_settled(flag: Mapping[str, Any], reviews: Iterable[Review]) -> bool:
    """Whether a reviewer has settled a flagged question: one of the case's reviews gives the
    question another answer than the flagged reference, or decides the case after the flag."""
    probe, reference = str(flag.get("probe_id")), str(flag.get("reference", ""))
    flagged_at = str(flag.get("flagged_at", ""))
    for review in reviews:
        edit = review.question_edits.get(probe)
        answer = edit.answer if edit is not None else None
        if answer is not None and normalize(answer) != normalize(reference):
            return True
        if review.decision is not None and (review.decided_at or "") > flagged_at:
            return True
    return False


@dataclass(frozen=True)
class AuditStanding:
    """The flagged questions of a project and which of them a reviewer has settled: the one
    computation ``stats``, ``export`` and the window show."""

    flagged: tuple[str, ...]  # question ids
    settled: tuple[str, ...]

    @property
    def unsettled(self) -> tuple[str, ...]:
        return tuple(q for q in self.flagged if q not in self.settled)

    def to_json(self) -> dict[str, Any]:
        return {
            "flagged": len(self.flagged),
            "settled": len(self.settled),
            "unsettled": list(self.unsettled),
        }


def audit_standing(
    flags: list[dict[str, Any]], reviews_of: Callable[[str], Iterable[Review] | None]
) -> AuditStanding:
    """Settle each flag against its case's reviews (``reviews_of(case_id)``; None: the case
    is gone, and its flag stays unsettled)."""
    settled = []
    for flag in flags:
        reviews = reviews_of(str(flag.get("case_id")))
        if reviews is not None and is_settled(flag, reviews):
            settled.append(str(flag["question_id"]))
    return AuditStanding(tuple(str(f["question_id"]) for f in flags), tuple(settled))


def project_standing(project: Project) -> AuditStanding:
    """The audit standing of *project*: its flags settled against its cases' reviews."""

    def reviews_of(case_id: str) -> Iterable[Review] | None:
        try:
            return all_reviews(project.load_case(case_id)).values()
        except (ProjectError, OSError, ValueError):
            return None

    return audit_standing(read_flags(project.root), reviews_of)
