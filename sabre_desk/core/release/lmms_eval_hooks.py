"""lmms-eval's hooks for a release's task: the image, the prompt, the score of one answer,
and the two averages ``sabre-desk score`` reports, under the names its ``--json`` gives them:
``macro``, the paper's Macro Avg. (the SABRE-Prior primaries only), and
``macro_all_subsets``, the mean over every subset present. Both are fractions rounded to
four places as ``score --json`` writes them, so the two tools' figures can be compared digit
for digit and one is never put in a table as the other.

A release carries this file's functions in its lmms-eval task's ``utils.py``, after the
source of ``answer_rules`` (see ``lmms_eval_task``), so that a person evaluating with
lmms-eval needs nothing of sabre-desk. Lines marked ``# release: drop`` are left out there.
"""

from __future__ import annotations  # release: drop

from typing import Any

from sabre_desk.core.case.answer_rules import (  # release: drop
    PRIOR_PRIMARIES,  # release: drop
    is_correct,  # release: drop
    subset_accuracies,  # release: drop
)  # release: drop

#: The paper's macro, named as ``score --json`` names it.
METRIC = "macro"
#: The average over every subset present, pilots included, named as ``score --json`` does.
METRIC_ALL = "macro_all_subsets"


def doc_to_visual(doc: dict[str, Any]) -> list[Any]:
    """The one image the question is about."""
    return [doc["image"].convert("RGB")]


def doc_to_text(
    doc: dict[str, Any], lmms_eval_specific_kwargs: dict[str, str] | None = None
) -> str:
    """The question (with its options A–D), then the instruction of its format."""
    kwargs = lmms_eval_specific_kwargs or {}
    text = doc["question"]
    options = doc.get("options") or {}
    if options:
        text += "\n" + "\n".join(f"{k}. {v}" for k, v in options.items() if v is not None)
    return f"{kwargs.get('pre_prompt', '')}{text}{kwargs.get(doc['format'], '')}"


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, dict[str, Any]]:
    """Whether the model's answer is right under the question's rule (SABRE, Appendix A),
    once for each average."""
    right, _ = is_correct(doc["eval_type"], results[0] if results else "", doc["answer"])
    item = {
        "subset": doc["subset"],
        "group_id": doc["group_id"],
        "probe": doc["probe_id"],
        "right": right,
    }
    return {METRIC: item, METRIC_ALL: dict(item)}


def _accuracies(items: list[dict[str, Any]]) -> dict[str, float]:
    return subset_accuracies(
        [(i["subset"], i["group_id"], i["probe"], bool(i["right"])) for i in items]
    )


def aggregate_macro(items: list[dict[str, Any]]) -> float:
    """The paper's Macro Avg.: the mean of the SABRE-Prior primaries present (All4 for
    Context and Texture), as a fraction. NaN when the release has none of them (``score``
    reports none then)."""
    accuracies = _accuracies(items)
    prior = [v for k, v in accuracies.items() if k in PRIOR_PRIMARIES]
    return round(sum(prior) / len(prior), 4) if prior else float("nan")


def aggregate_macro_all_subsets(items: list[dict[str, Any]]) -> float:
    """The mean of every subset's score present, pilots included, as a fraction."""
    accuracies = _accuracies(items)
    return round(sum(accuracies.values()) / max(len(accuracies), 1), 4)
