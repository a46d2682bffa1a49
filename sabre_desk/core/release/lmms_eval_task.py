"""The lmms-eval task folder of a release: a task YAML over the Hugging Face layout and a
``utils.py`` that scores by the SABRE rules.

``utils.py`` is assembled from the sources of ``answer_rules`` and ``lmms_eval_hooks``
(read from the installed package), so the rules a release is scored by in lmms-eval are
the same lines ``sabre-desk score`` and the screening use, not a copy kept by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

from sabre_desk.core.case import answer_rules
from sabre_desk.core.release import lmms_eval_hooks
from sabre_desk.core.release.export_formats import naming, write_bytes

FOLDER = "lmms-eval"  # not importable as a package, so it never shadows lmms_eval
DROP = "# release: drop"
#: The instruction after each question, by format (the zero-shot prompts of the paper's
#: screening: one word, the letter only, the count or the shortest phrase).
INSTRUCTIONS = {
    "yes_no": "\nAnswer with one word: yes or no.",
    "multiple_choice": "\nAnswer with the option letter only.",
    "open": "\nAnswer with only the count or the shortest phrase.",
}


def _source(module_file: str | None) -> str:
    """A module's source text. A frozen bundle names its modules ``….pyc``; it carries these
    two sources as data files beside them (packaging/sabre-desk.spec)."""
    return Path(module_file or "").with_suffix(".py").read_text(encoding="utf-8")


def task_name(name: str) -> str:
    return f"sabre_{name.lower()}"


def utils_source() -> str:
    """The task's utils.py: the answer rules verbatim, then the hooks."""
    rules = _source(answer_rules.__file__)
    hooks = _source(lmms_eval_hooks.__file__)
    kept = "\n".join(line for line in hooks.splitlines() if not line.endswith(DROP))
    header = "# Written by sabre-desk export: the SABRE answer rules, then lmms-eval's hooks.\n"
    return f"{header}{rules}\n\n# --- lmms-eval hooks ---\n{kept}\n"


def task_yaml(name: str, dataset_path: Path) -> str:
    instructions = "\n".join(f"    {k}: {json.dumps(v)}" for k, v in INSTRUCTIONS.items())
    return f"""# lmms-eval task over this release's Hugging Face layout (metadata.jsonl + hf/).
# dataset_path is where the release was exported: change it if the release moves.
task: {task_name(name)}
dataset_path: {json.dumps(str(dataset_path))}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_target: answer
generation_kwargs:
  max_new_tokens: 16
  temperature: 0
  do_sample: false
process_results: !function utils.process_results
metric_list:
  - metric: {lmms_eval_hooks.METRIC}
    aggregation: !function utils.aggregate_macro
    higher_is_better: true
  - metric: {lmms_eval_hooks.METRIC_ALL}
    aggregation: !function utils.aggregate_macro_all_subsets
    higher_is_better: true
lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
{instructions}
metadata:
  version: 1
"""


def write_task(folder: Path, name: str, dataset_path: Path) -> None:
    """Write ``lmms-eval/<task>.yaml`` and ``lmms-eval/utils.py`` into the release."""
    with naming(folder):
        folder.mkdir()
    write_bytes(folder / f"{task_name(name)}.yaml", task_yaml(name, dataset_path).encode())
    write_bytes(folder / "utils.py", utils_source().encode())
