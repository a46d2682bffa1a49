"""lmms-eval's hooks for a release's task: the image, the prompt, the score of one answer,
and the macro average.

A release carries this file's functions in its lmms-eval task's ``utils.py``, after the
source of ``answer_rules`` (see ``lmms_eval_task``), so that a person evaluating with
lmms-eval needs nothing of sabre-desk. Lines marked ``# release: drop`` are left out there.
"""

from __future__ import annotations  # release: drop

from typing import Any

from sabre_desk.core.case.answer_rules import is_correct, subset_accuracies  # release: drop

METRIC = "sabre_macro"


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
    """Whether the model's answer is right under the question's rule (SABRE, Appendix A)."""
    right, _ = is_correct(doc["eval_type"], results[0] if results else "", doc["answer"])
    return {
        METRIC: {
            "subset": doc["subset"],
            "group_id": doc["group_id"],
            "probe": doc["probe_id"],
            "right": right,
        }
    }


def aggregate_macro(items: list[dict[str, Any]]) -> float:
    """The macro average (%) of the subset accuracies, All4 for Context and Texture."""
    accuracies = subset_accuracies(
        [(i["subset"], i["group_id"], i["probe"], bool(i["right"])) for i in items]
    )
    return 100.0 * sum(accuracies.values()) / max(len(accuracies), 1)
