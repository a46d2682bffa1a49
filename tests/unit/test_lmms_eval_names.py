"""The lmms-eval task's two figures carry `score --json`'s names and values: the paper's
macro over the SABRE-Prior primaries only, and the average over every subset apart."""

from __future__ import annotations

import math
from pathlib import Path

from sabre_desk.core.case.scoring import Sample, score
from sabre_desk.core.release import lmms_eval_hooks as hooks
from sabre_desk.core.release.lmms_eval_task import task_yaml


def _doc(subset: str, group: str, probe: str, answer: str) -> dict[str, str]:
    return {"subset": subset, "group_id": group, "probe_id": probe, "eval_type": "yes_no_exact",
            "answer": answer}  # fmt: skip


def test_the_papers_macro_and_the_all_subsets_average_are_apart_and_equal_scores() -> None:
    docs = [
        _doc("language_elicitation", "l1", "q", "yes"),
        _doc("language_elicitation", "l2", "q", "yes"),
        _doc("counting", "c1", "q", "yes"),  # a pilot: in the average, not in the macro
        _doc("counting", "c2", "q", "no"),
    ]
    responses = ["yes", "no", "no", "no"]
    results = [hooks.process_results(d, [r]) for d, r in zip(docs, responses, strict=True)]
    macro = hooks.aggregate_macro([r["macro"] for r in results])
    average = hooks.aggregate_macro_all_subsets([r["macro_all_subsets"] for r in results])
    report = score(
        Sample(f"{d['group_id']}:q", d["group_id"], d["subset"], "q", "yes_no_exact",
               d["answer"], r)
        for d, r in zip(docs, responses, strict=True)
    ).to_json()  # fmt: skip
    assert (macro, average) == (0.5, 0.5) == (report["macro"], report["macro_all_subsets"])
    responses[2] = "yes"  # the pilot right: only the average moves
    results = [hooks.process_results(d, [r]) for d, r in zip(docs, responses, strict=True)]
    assert hooks.aggregate_macro([r["macro"] for r in results]) == 0.5
    assert hooks.aggregate_macro_all_subsets([r["macro_all_subsets"] for r in results]) == 0.75


def test_without_a_prior_primary_there_is_no_macro_and_the_yaml_names_both() -> None:
    docs = [_doc("counting", "c1", "q", "yes")]
    items = [hooks.process_results(d, ["yes"])["macro"] for d in docs]
    assert math.isnan(hooks.aggregate_macro(items))
    text = task_yaml("demo", Path("/r"))
    assert "metric: macro\n" in text and "metric: macro_all_subsets\n" in text
    assert "sabre_macro" not in text
