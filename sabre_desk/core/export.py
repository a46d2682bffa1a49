"""Export the accepted cases as a benchmark release.

Everything is written into a temporary folder next to OUT and renamed into place at the
end, so an interrupted or failed export leaves no half-release behind. Formats:
``benchmark.jsonl`` (canonical), ``images/``, a Hugging Face imagefolder (``metadata.jsonl``
and a dataset card), VLMEvalKit TSVs with a config, and ``MANIFEST.sha256`` + ``release.json``.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sabre_desk import __version__
from sabre_desk.core.errors import CaseLoadError, ProjectError
from sabre_desk.core.final import all_reviews, final_decision, merged_question_edits
from sabre_desk.core.project import Case, Project
from sabre_desk.core.question_edits import effective
from sabre_desk.core.release import RELEASE, write_manifest
from sabre_desk.core.repairs import encode_png
from sabre_desk.core.review import Decision
from sabre_desk.core.spec import OPTION_LETTERS, ImageRole
from sabre_desk.core.storage import dumps_json
from sabre_desk.imaging.io import load_image

Progress = Callable[[int, int, str], None]
VLM_FILES = {"yes_no": "YN", "multiple_choice": "MCQ", "open": "OPEN"}
VLM_CLASSES = {"YN": "ImageYORNDataset", "MCQ": "ImageMCQDataset", "OPEN": "ImageVQADataset"}


class ExportCancelledError(ProjectError):
    """The export was cancelled; nothing was written at the destination."""


@dataclass
class ExportSummary:
    out: Path
    cases: int = 0
    questions: int = 0
    images: int = 0
    root_hash: str = ""
    skipped: list[str] = field(default_factory=list)  # case: why it was left out


def _copy_image(case: Case, role: ImageRole, folder: Path) -> str:
    """Copy the image into the release, upright: a photo with an EXIF rotation is written
    as the pixels a viewer shows (PNG), because many loaders ignore the tag."""
    source = case.images[role]
    info = case.image_info.get(role)
    if info is not None and info.orientation != 1:
        name = f"images/{case.case_id}__{role.value}.png"
        (folder / name).write_bytes(encode_png(load_image(source)))
    else:
        name = f"images/{case.case_id}__{role.value}{source.suffix.lower()}"
        try:
            # The project never rewrites an image in place (accepting a repair replaces the
            # file), so a hard link is a safe, instant copy when both are on one disk.
            os.link(source, folder / name)
        except OSError:
            shutil.copyfile(source, folder / name)
    return name


def _rows(
    case: Case, decision: Decision, why: str, reviews: dict, files: dict[str, str]
) -> list[dict[str, Any]]:
    edits = merged_question_edits(reviews, decision)
    accepted = [
        {"id": r.id, "image_role": r.image_role, "engine": r.engine, "op": r.op}
        for review in reviews.values()
        for r in review.repairs
        if r.status == "accepted"
    ]
    rows = []
    for question in case.spec.questions:
        prompt, answer = effective(question, edits.get(question.probe_id))
        row: dict[str, Any] = {
            "question_id": f"{case.case_id}:{question.probe_id}",
            "case_id": case.case_id,
            "group_id": case.case_id,
            "subset": case.spec.pressure_test_type,
            "probe_id": question.probe_id,
            "image_role": question.image_role.value,
            "format": question.question_type.value,
            "eval_type": question.eval_type,
            "question": prompt,
            "answer": answer,
        }
        if question.options:
            row["options"] = dict(zip(OPTION_LETTERS, question.options, strict=True))
        row.update(files)
        row["image"] = files[
            f"{question.image_role.value}_file_name"
            if question.image_role is not ImageRole.IMAGE
            else "file_name"
        ]
        row["provenance"] = {
            "concept_id": case.spec.concept_id,
            "decision": decision.value,
            "decided": why,
            "reviewers": sorted(reviews),
            "repairs": accepted,
            "edited": question.probe_id in edits,
        }
        rows.append(row)
    return rows


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _tsv_cell(value: str) -> str:
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _write_vlmevalkit(folder: Path, name: str, rows: list[dict[str, Any]], root: Path) -> None:
    """One TSV per question format, streamed (they hold base64 images and get large)."""
    folder.mkdir()
    config = {}
    for fmt, suffix in VLM_FILES.items():
        subset = [r for r in rows if r["format"] == fmt]
        if not subset:
            continue
        columns = ["index", "image", "question", "answer", "category"]
        if fmt == "multiple_choice":
            columns[3:3] = list(OPTION_LETTERS)
        file = f"{name}_{suffix}.tsv"
        first_row: dict[str, str] = {}  # image → index of the row that carries it
        with (folder / file).open("w", encoding="utf-8", newline="\n") as out:
            out.write("\t".join(columns) + "\n")
            for row in subset:
                image = row["image"]
                if image in first_row:
                    # VLMEvalKit's convention: a short "image" cell is the index of the row
                    # that holds the image, so each image is stored once per file.
                    cell = first_row[image]
                else:
                    cell = base64.b64encode((root / image).read_bytes()).decode()
                    first_row[image] = str(row["index"])
                answer = row["answer"].capitalize() if fmt == "yes_no" else row["answer"]
                cells = {
                    "index": str(row["index"]),
                    "image": cell,
                    "question": row["question"],
                    "answer": answer,
                    "category": row["subset"],
                    **row.get("options", {}),
                }
                out.write("\t".join(_tsv_cell(cells[c]) for c in columns) + "\n")
        config[f"{name}_{suffix}"] = {"class": VLM_CLASSES[suffix], "data_file": file}
    (folder / f"{name}.json").write_bytes(dumps_json(config))


def _card(name: str, cases: int, rows: int, subsets: list[str]) -> str:
    size = "n<1K" if rows < 1000 else "1K<n<10K" if rows < 10_000 else "10K<n<100K"
    listed = "\n".join(f"- `{s}`" for s in subsets)
    return f"""---
pretty_name: {name}
license: other  # placeholder: choose the license of this release before publishing
task_categories:
- visual-question-answering
size_categories:
- {size}
configs:
- config_name: default
  data_files:
  - split: test
    path:
    - metadata.jsonl
    - images/*
---

# {name}

A stress-test benchmark for vision-language models, curated with sabre-desk: {cases} cases
reviewed by people, {rows} questions. Subsets:

{listed}

Each row of `metadata.jsonl` (and of the canonical `benchmark.jsonl`) is one question about
one image (`file_name`); paired cases also give `base_file_name` and `edited_file_name`.
Context and Texture cases are scored together per `group_id` (All4). Verify the files with
`sha256sum -c MANIFEST.sha256` or `sabre-desk verify`.
"""


def export(
    project: Project,
    out: Path,
    decisions: set[Decision] | None = None,
    name: str | None = None,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> ExportSummary:
    """Write the release to *out* (which must not exist yet)."""
    out = Path(out).absolute()
    if out.exists():
        raise ProjectError("already exists; choose a new folder for the release", out)
    decisions = decisions or {Decision.KEEP}
    name = name or "".join(c if c.isalnum() else "_" for c in project.name).strip("_") or "sabre"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
    try:
        summary = _export_into(
            project, tmp, out, decisions, name, progress, cancel or threading.Event()
        )
        tmp.replace(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


def _export_into(
    project: Project,
    tmp: Path,
    out: Path,
    decisions: set[Decision],
    name: str,
    progress: Progress | None,
    cancel: threading.Event,
) -> ExportSummary:
    summary = ExportSummary(out)
    (tmp / "images").mkdir()
    rows: list[dict[str, Any]] = []
    entries = project.entries
    for done, entry in enumerate(entries, 1):
        if cancel.is_set():
            raise ExportCancelledError("export cancelled; nothing was written", out)
        if progress:
            progress(done, len(entries), entry.case_id)
        if entry.problem:
            summary.skipped.append(f"{entry.case_id}: invalid ({entry.problem})")
            continue
        try:
            case = project.load_case(entry.case_id)
        except CaseLoadError as exc:
            summary.skipped.append(f"{entry.case_id}: {exc.reason}")
            continue
        reviews = all_reviews(case)
        decision, why = final_decision(reviews)
        if decision is None or decision not in decisions:
            if decision is None and reviews:
                summary.skipped.append(f"{entry.case_id}: {why}")
            continue
        if case.image_problems:
            problem = next(iter(case.image_problems.values()))
            summary.skipped.append(f"{entry.case_id}: {problem.reason}")
            continue
        files: dict[str, str] = {}
        for role in case.spec.image_roles:
            target = _copy_image(case, role, tmp)
            key = "file_name" if role is ImageRole.IMAGE else f"{role.value}_file_name"
            files[key] = target
            summary.images += 1
        rows += _rows(case, decision, why, reviews, files)
        summary.cases += 1
    for index, row in enumerate(rows):
        row["index"] = index
        rows[index] = {"index": index, **{k: v for k, v in row.items() if k != "index"}}
    summary.questions = len(rows)
    _jsonl(tmp / "benchmark.jsonl", rows)
    _jsonl(
        tmp / "metadata.jsonl",
        [
            {
                "file_name": r["image"],
                **{k: v for k, v in r.items() if k not in ("image", "provenance", "file_name")},
            }
            for r in rows
        ],
    )
    subsets = sorted({r["subset"] for r in rows})
    (tmp / "README.md").write_text(_card(name, summary.cases, len(rows), subsets), encoding="utf-8")
    _write_vlmevalkit(tmp / "vlmevalkit", name, rows, tmp)
    summary.root_hash = write_manifest(tmp)
    release = {
        "format": "sabre-desk-release",
        "version": 1,
        "name": name,
        "project": project.name,
        "created_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool": f"sabre-desk {__version__}",
        "decisions": sorted(d.value for d in decisions),
        "cases": summary.cases,
        "questions": summary.questions,
        "images": summary.images,
        "subsets": {s: sum(r["subset"] == s for r in rows) for s in subsets},
        "root_sha256": summary.root_hash,
        "skipped": summary.skipped,
    }
    (tmp / RELEASE).write_bytes(dumps_json(release))
    with contextlib.suppress(OSError):
        tmp.chmod(0o755)  # mkdtemp made it private; a release is for sharing
    return summary
