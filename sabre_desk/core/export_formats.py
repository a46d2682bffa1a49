"""The file formats of a release besides the canonical rows: JSONL, VLMEvalKit TSVs, the card.

Every writer here names the file it was writing in any OSError it raises (a failed
``write()`` on a full disk carries no file name of its own), so the export can report
"cannot write vlmevalkit/NAME_YN.tsv (No space left on device)" instead of a traceback.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sabre_desk.core.spec import OPTION_LETTERS
from sabre_desk.ground.storage import dumps_json

VLM_FILES = {"yes_no": "YN", "multiple_choice": "MCQ", "open": "OPEN"}
VLM_CLASSES = {"YN": "ImageYORNDataset", "MCQ": "ImageMCQDataset", "OPEN": "ImageVQADataset"}


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """Let an OSError raised inside name *path* when it names no file itself."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def write_bytes(path: Path, data: bytes) -> None:
    with naming(path):
        path.write_bytes(data)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with naming(path), path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _tsv_cell(value: str) -> str:
    return value.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def write_vlmevalkit(folder: Path, name: str, rows: list[dict[str, Any]], root: Path) -> None:
    """One TSV per question format, streamed (they hold base64 images and get large)."""
    with naming(folder):
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
        with (
            naming(folder / file),
            (folder / file).open("w", encoding="utf-8", newline="\n") as out,
        ):
            out.write("\t".join(columns) + "\n")
            for row in subset:
                image = row["image"]
                if image in first_row:
                    # VLMEvalKit's convention: a short "image" cell is the index of the row
                    # that holds the image, so each image is stored once per file.
                    cell = first_row[image]
                else:
                    with naming(root / image):
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
    write_bytes(folder / f"{name}.json", dumps_json(config))


def card(name: str, cases: int, rows: int, subsets: list[str]) -> str:
    """The Hugging Face dataset card (README.md) of the release."""
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
