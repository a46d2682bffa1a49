"""An evaluation to test with: the demo exported as a release, and two models' answers to it
written as predictions files in `score`'s format (one answer hostile markup, one left out)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision

HOSTILE = "<script>alert('x')</script> & <b>bold</b>"


def demo_release(demo_master: Path, folder: Path) -> Path:
    """The demo, every case kept, exported to *folder*/release."""
    project_dir = Path(shutil.copytree(demo_master, folder / "demo"))
    project = Project.open(project_dir, "alice")
    for entry in project.index():
        case = project.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    out = folder / "release"
    assert main(["--reviewer", "alice", "export", str(project_dir), str(out)]) == 0
    return out


def rows_of(release: Path) -> list[dict[str, Any]]:
    text = (release / "benchmark.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def wrong(row: dict[str, Any]) -> str:
    """An answer the rules read as one definite wrong answer."""
    answer = str(row["answer"])
    if row["eval_type"] == "yes_no_exact":
        return "no" if answer.lower() == "yes" else "yes"
    if row["eval_type"] == "mcq_letter":
        return "D" if answer.upper() != "D" else "C"
    if row["eval_type"] == "count_exact":
        return str(int(answer) + 1) if answer.isdigit() else "7"
    return "purple elephant"


def plan(rows: list[dict[str, Any]]) -> dict[str, dict[str, str | None]]:
    """Two models' answers: the first right but for every third question, the second wrong
    on every other; the first answers one question with markup, the second leaves one out."""
    first: dict[str, str | None] = {}
    second: dict[str, str | None] = {}
    for i, row in enumerate(rows):
        qid = str(row["question_id"])
        first[qid] = wrong(row) if i % 3 == 0 else str(row["answer"])
        second[qid] = wrong(row) if i % 2 == 0 else str(row["answer"])
    first[str(rows[1]["question_id"])] = HOSTILE
    second[str(rows[-1]["question_id"])] = None
    return {"alpha": first, "beta": second}


def write_predictions(folder: Path, answers: dict[str, dict[str, str | None]]) -> None:
    """One ``MODEL.jsonl`` per model in *folder*; a None answer is left out."""
    folder.mkdir(parents=True, exist_ok=True)
    for model, by_id in answers.items():
        lines = [
            json.dumps({"question_id": qid, "response": response})
            for qid, response in by_id.items()
            if response is not None
        ]
        (folder / f"{model}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
