"""The Hugging Face side of a release: ``metadata.jsonl``, its one schema, and the dataset card.

One schema on every row and in every ``datasets`` version from 2.21 on: each row is one
question with exactly one image column, ``image`` (from ``file_name``), the image the
question is about, and every other column present on every row (``options`` is null
outside multiple choice). The pair of a paired case is joined by ``group_id`` and
``image_role``. Two facts of the readers decide this layout:

- ``datasets`` before 3 keys imagefolder rows by image file, so rows sharing an image
  collapse into one (32 questions on 20 images load as 20 rows). Each row therefore names
  its own file in ``hf/``: a hard link to the release's image where the disk allows
  (no extra space), else a copy.
- ``datasets`` 3 and later turn every ``*_file_name`` column into an image column and fail
  on rows where one is null, so ``metadata.jsonl`` has no other ``*_file_name`` column
  (``benchmark.jsonl`` keeps ``base_file_name`` and ``edited_file_name``).

The card declares these features, quotes every free-text value (a release named 2026
stays the string "2026") and names a license the Hub accepts.
"""

from __future__ import annotations

import json
from typing import Any

from sabre_desk.core.case.spec import OPTION_LETTERS
from sabre_desk.core.team.counts import left_out_text

HF_FOLDER = "hf"
#: metadata.jsonl's columns in order, with their Hugging Face feature types.
HF_COLUMNS: tuple[tuple[str, str], ...] = (
    ("file_name", "image"),  # loaded as the column "image"
    ("index", "int64"),
    ("question_id", "string"),
    ("case_id", "string"),
    ("group_id", "string"),
    ("subset", "string"),
    ("probe_id", "string"),
    ("image_role", "string"),
    ("format", "string"),
    ("eval_type", "string"),
    ("question", "string"),
    ("answer", "string"),
    ("options", "struct"),  # A–D, or null
)
#: Licenses the Hugging Face Hub knows by id that suit a dataset; "other" needs a name
#: and a link, which the card then gives.
HF_LICENSES = frozenset(
    {
        "apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause", "cc0-1.0", "cc-by-2.0",
        "cc-by-3.0", "cc-by-4.0", "cc-by-sa-3.0", "cc-by-sa-4.0", "cc-by-nc-2.0",
        "cc-by-nc-3.0", "cc-by-nc-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-3.0", "cc-by-nc-nd-4.0",
        "cc-by-nc-sa-2.0", "cc-by-nc-sa-3.0", "cc-by-nc-sa-4.0", "cdla-sharing-1.0",
        "cdla-permissive-1.0", "cdla-permissive-2.0", "odc-by", "odbl", "pddl", "gpl-3.0",
        "agpl-3.0", "lgpl-3.0", "mpl-2.0", "openrail", "unlicense", "other",
    }
)  # fmt: skip


def hf_file_name(row: dict[str, Any], suffix: str) -> str:
    """The row's own image file in hf/ (see the module docstring)."""
    return f"{HF_FOLDER}/{row['index']:06d}__{row['case_id']}__{row['image_role']}{suffix}"


def hf_row(row: dict[str, Any], file_name: str) -> dict[str, Any]:
    """A metadata.jsonl row: every column of HF_COLUMNS, in order, on every row."""
    values = {**row, "file_name": file_name, "options": row.get("options")}
    return {name: values[name] for name, _ in HF_COLUMNS}


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's string syntax is YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def _features() -> str:
    lines = []
    for name, dtype in HF_COLUMNS:
        name = "image" if name == "file_name" else name
        if dtype == "struct":
            lines.append(f"  - name: {name}\n    struct:")
            lines += [f"    - name: {letter}\n      dtype: string" for letter in OPTION_LETTERS]
        else:
            lines.append(f"  - name: {name}\n    dtype: {dtype}")
    return "\n".join(lines)


def _size(rows: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if rows < limit:
            return label
    return "100K<n<1M"


def _license(license_id: str | None) -> tuple[str, str]:
    """The card's license lines and its License section."""
    if license_id and license_id != "other":
        return f"license: {license_id}", f"`{license_id}`."
    lines = f"license: other\nlicense_name: {_q('not-chosen-yet')}\nlicense_link: {_q('README.md')}"
    return lines, (
        "No license has been chosen for this release yet: export it again with "
        "`sabre-desk export … --license ID` before publishing it."
    )


def _funnel(funnel: dict[str, Any] | None) -> str:
    """How the project's cases became this release (the paper's Appendix D.4), under the
    names every report of sabre-desk uses (``counts``)."""
    if not funnel:
        return ""
    left_out = left_out_text(funnel.get("left_out") or {})
    return (
        f"\nFrom {funnel['cases']} cases in the project ({funnel['valid']} valid): "
        f"{funnel['solved_by_filter']} solved by the filtering model (discarded), "
        f"{funnel['with_final']} with a final decision, {funnel['exported']} exported into this "
        f"release, {funnel['repaired']} of them after a localized repair"
        + (f"; left out: {left_out}" if left_out else "")
        + ". Each question's `provenance` in `benchmark.jsonl` names "
        "its primer (and the hash of its file), its generation record, the filtering model's "
        "answer, the reviewers' boxes and the repairs.\n"
    )


def card(
    name: str,
    cases: int,
    rows: int,
    subsets: list[str],
    license_id: str | None = None,
    task: str = "",
    tsv: dict[str, str] | None = None,
    funnel: dict[str, Any] | None = None,
    data_bytes: int = 0,
) -> str:
    """The dataset card (README.md): its YAML header, how the release is laid out, and how to
    evaluate a model on it with datasets, lmms-eval, VLMEvalKit and sabre-desk.

    *data_bytes* is the size of the files the loaders read (metadata.jsonl and hf/): the
    header's ``num_bytes``, ``download_size`` and ``dataset_size``, without which ``datasets``
    calls the card's ``splits`` malformed at every load."""
    listed = "\n".join(f"- `{s}`" for s in subsets)
    license_lines, license_text = _license(license_id)
    tsv = tsv or {}
    copies = " ".join(f"vlmevalkit/{file}" for file in tsv.values())
    predictions = " \\\n      ".join(f"~/vlmeval-runs/MODEL/*/MODEL_{d}.tsv" for d in tsv)
    return f"""---
pretty_name: {_q(name)}
{license_lines}
task_categories:
- visual-question-answering
language:
- en
size_categories:
- {_size(rows)}
dataset_info:
  features:
{_features()}
  splits:
  - name: test
    num_bytes: {data_bytes}
    num_examples: {rows}
  download_size: {data_bytes}
  dataset_size: {data_bytes}
configs:
- config_name: default
  data_files:
  - split: test
    path:
    - metadata.jsonl
    - {HF_FOLDER}/*
---

# {name}

A stress-test benchmark for vision-language models, curated with sabre-desk: {cases} cases
reviewed by people, {rows} questions. Subsets:

{listed}
{_funnel(funnel)}
Each row of `metadata.jsonl` is one question about one image (`image`); the canonical
`benchmark.jsonl` holds the same rows with provenance, and `images/` each image once.
Context and Texture cases are scored together per `group_id` (All4: a case is right only
when its four probes are). Verify the files with `sha256sum -c MANIFEST.sha256` or
`sabre-desk verify`.

## Evaluating

- **datasets** (2.21 or later): `load_dataset("path/to/this/folder", split="test")`.
- **lmms-eval**: `lmms-eval --include_path lmms-eval --tasks {task} --model …`; its
  `utils.py` parses answers by the SABRE rules and reports `macro`, the paper's Macro Avg.
  (the SABRE-Prior primaries only), and `macro_all_subsets`, the average over every subset,
  as fractions under the names and with the figures of `sabre-desk score --json`. lmms-eval
  0.7.3 needs `filelock<4` in its environment (`pip install lmms-eval "filelock<4"`). Its
  `dataset_path` is this folder where it was exported; set it to the new folder or the
  Hub repository id if the release moves (in a copy of `lmms-eval/`, so `verify` stays clean).
- **VLMEvalKit**: it writes decoded images next to its TSVs, so give it a copy of them,
  never this folder, and a work folder outside it:

  ```bash
  export LMUData=$HOME/LMUData && mkdir -p "$LMUData" && cp {copies} "$LMUData"/
  PRED_FORMAT=tsv python run.py --config vlmevalkit/{name}.json --work-dir ~/vlmeval-runs
  ```

  (the config names a model; replace it with yours). VLMEvalKit scores yes/no and multiple
  choice by exact matching and the open answers by its VQA score, against ten copies of
  the reference (so an exact answer scores 100 %). For the SABRE rules (counts in words,
  the first integer of a sentence, All4, the macro average and its interval):

  ```bash
  sabre-desk score . {predictions}
  ```

- **sabre-desk**: `sabre-desk score . predictions.jsonl` with `{{"question_id", "response"}}`
  lines.

## License

{license_text}
"""
