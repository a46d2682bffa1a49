"""The file formats of a release besides the canonical rows: JSONL, VLMEvalKit TSVs, the card.

Every writer here names the file it was writing in any OSError it raises (a failed
``write()`` on a full disk carries no file name of its own), so the export can report
"cannot write vlmevalkit/NAME_YN.tsv (No space left on device)" instead of a traceback.
"""

from __future__ import annotations

import base64
import contextlib
import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sabre_desk.core.case.spec import OPTION_LETTERS
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


#: VLMEvalKit's VQA score is VQA v2's consensus over several people's answers: each
#: reference counts with min(1, matches among the *other* references / 3). With one
#: reference even a perfect prediction scores 0, so an open answer is written as this many
#: copies of the reference (as if that many people agreed), and an exact answer scores 100 %.
VQA_REFERENCES = 10
#: A model VLMEvalKit knows by name (``supported_VLM``), so the config runs as written;
#: replace it with the model to evaluate.
VLMEVALKIT_MODEL = "Qwen2.5-VL-7B-Instruct"
#: Name parts VLMEvalKit's dataset classes match to switch to another benchmark's rules
#: (e.g. a name containing "MME" is rated as MME, "circular" as a circular MCQ).
VLMEVALKIT_RESERVED = (
    "MME",
    "Hallusion",
    "POPE",
    "AMBER",
    "VSR-zeroshot",
    "MMBench",
    "CCBench",
    "circular",
    "MMCR",
    "MMT",
    "MMSci",
    "MMVP",
    "MMMU",
    "COT",
    "TextVQA",
    "ChartQA",
    "OCRVQA",
    "GQA",
    "DocVQA",
    "InfoVQA",
    "LEGO",
    "BLINK",
    "WeMath",
)


def vlmevalkit_name_problem(name: str) -> str | None:
    """Why *name* would make VLMEvalKit score a release by another benchmark's rules."""
    for part in VLMEVALKIT_RESERVED:
        if part in (name.lower() if part.islower() else name):
            return (
                f"a release name containing {part!r} makes VLMEvalKit score it as its own "
                f"{part} benchmark; choose another --name"
            )
    return None


def write_vlmevalkit(
    folder: Path, name: str, rows: list[dict[str, Any]], root: Path
) -> dict[str, str]:
    """One TSV per question format, streamed (they hold base64 images and get large), and
    the config ``run.py --config`` reads (``{"model": …, "data": {NAME: {class, dataset}}}``).

    Cells are written by the csv module (quoted where needed), as pandas reads them back.
    Returns the TSV file of each VLMEvalKit dataset name.
    """
    with naming(folder):
        folder.mkdir()
    data: dict[str, dict[str, str]] = {}
    files: dict[str, str] = {}
    for fmt, suffix in VLM_FILES.items():
        subset = [r for r in rows if r["format"] == fmt]
        if not subset:
            continue
        columns = ["index", "image", "question", "answer", "category"]
        if fmt == "multiple_choice":
            columns[3:3] = list(OPTION_LETTERS)
        dataset = f"{name}_{suffix}"
        file = f"{dataset}.tsv"
        first_row: dict[str, str] = {}  # image → index of the row that carries it
        with (
            naming(folder / file),
            (folder / file).open("w", encoding="utf-8", newline="") as out,
        ):
            writer = csv.writer(out, delimiter="\t", lineterminator="\n")
            writer.writerow(columns)
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
                answer = row["answer"]
                if fmt == "yes_no":
                    answer = answer.capitalize()  # VLMEvalKit compares with "Yes" / "No"
                elif fmt == "open":
                    answer = repr([answer] * VQA_REFERENCES)
                cells = {
                    "index": str(row["index"]),
                    "image": cell,
                    "question": row["question"],
                    "answer": answer,
                    "category": row["subset"],
                    **row.get("options", {}),
                }
                writer.writerow([cells[c] for c in columns])
        data[dataset] = {"class": VLM_CLASSES[suffix], "dataset": dataset}
        files[dataset] = file
    config = {"model": {VLMEVALKIT_MODEL: {}}, "data": data}
    write_bytes(folder / f"{name}.json", dumps_json(config))
    return files
