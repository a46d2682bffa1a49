"""The shipped prompts (paper, Appendix A), the gate's rules, the thinking setting per
model and the server's retry delay: table-driven, no network."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sabre_desk.core.case.gate import CurrentProbe, GateRule, ScreenStatus, judge
from sabre_desk.core.screening.prompts import load_prompts, shipped_prompts
from sabre_desk.engines.gemini_call import server_retry_delay, smallest_thinking
from sabre_desk.ground.errors import ProjectError


def test_the_papers_prompts_per_format() -> None:
    prompts = shipped_prompts()
    assert prompts.version == "v1"
    assert prompts.build("yes_no_exact", " Is a bagel visible? ") == (
        "Question: Is a bagel visible?\nAnswer with only one word: yes or no."
    )
    assert prompts.build("count_exact", "How many legs?").endswith(
        "Answer with only the count or shortest possible count phrase. Do not explain."
    )
    mcq = prompts.build("mcq_letter", "What is printed {options}?", ["a", "b", "c", "d"])
    assert mcq == (
        "Question: What is printed {options}?\nA. a\nB. b\nC. c\nD. d\n"
        "Answer with only the option letter. Do not explain."
    )
    assert prompts.build("exact_match", "Colour?") == prompts.build("count_exact", "Colour?")
    assert all(prompts.output_tokens(t) == 16 for t in prompts.templates)
    with pytest.raises(ProjectError, match="no prompt for eval_type 'essay'"):
        prompts.build("essay", "x")


def test_a_broken_prompt_set_is_refused_with_its_file(tmp_path: Path) -> None:
    (tmp_path / "prompts.json").write_text(
        json.dumps({"format": "sabre-desk-prompts", "version": "x", "templates": {"a": "../x"}})
    )
    with pytest.raises(ProjectError, match="is not a file name"):
        load_prompts(tmp_path)
    (tmp_path / "prompts.json").write_text(
        json.dumps({"format": "sabre-desk-prompts", "version": "x", "templates": {"a": "a.txt"}})
    )
    (tmp_path / "a.txt").write_text("no placeholder")
    with pytest.raises(ProjectError, match=r"no \{question\}"):
        load_prompts(tmp_path)


PAIRED = [
    CurrentProbe(p, p.split("_")[0], "q", a, "yes_no_exact")
    for p, a in (
        ("base_source", "yes"),
        ("base_target", "no"),
        ("edited_source", "no"),
        ("edited_target", "yes"),
    )
]


def results(*said: str | None) -> dict[str, dict[str, str]]:
    out = {}
    for probe, text in zip(PAIRED, said, strict=True):
        out[probe.probe_id] = {"response": text} if text is not None else {"failed": "timeout"}
    return out


@pytest.mark.parametrize(
    ("said", "rule", "status"),
    [
        (("yes", "no", "no", "yes"), GateRule(), ScreenStatus.SOLVED),
        (("yes", "yes", "no", "yes"), GateRule(), ScreenStatus.KEPT),  # All4 missed
        (("yes", "no", None, "yes"), GateRule(), ScreenStatus.FAILED),
        (("no", "no", None, "yes"), GateRule(), ScreenStatus.KEPT),  # a wrong one decides
        (("no", "yes", "no", "yes"), GateRule(paired="edit2"), ScreenStatus.SOLVED),
        (("yes", "no", "yes", "yes"), GateRule(paired="edit2"), ScreenStatus.KEPT),
        (("no", "yes", "yes", "no"), GateRule(paired="all_wrong"), ScreenStatus.KEPT),
        (("yes", "yes", "yes", "no"), GateRule(paired="all_wrong"), ScreenStatus.SOLVED),
    ],
)
def test_the_gate_rules(said: tuple[str | None, ...], rule: GateRule, status: ScreenStatus):
    assert judge(results(*said), PAIRED, "context_prior", rule, {}).status is status


def test_per_probe_rule_applies_to_other_subsets() -> None:
    said = results("yes", "yes", "no", "yes")
    assert judge(said, PAIRED, "counting", GateRule(), {}).status is ScreenStatus.KEPT
    rule = GateRule(per_probe="all_wrong")
    assert judge(said, PAIRED, "counting", rule, {}).status is ScreenStatus.SOLVED
    assert judge(None, PAIRED, "counting", rule, {}).status is ScreenStatus.NOT_SCREENED


def test_stale_wins_and_keeps_the_outcome() -> None:
    verdict = judge(
        results("yes", "no", "no", "yes"), PAIRED, "context_prior", GateRule(), {"edited": "new"}
    )
    assert verdict.status is ScreenStatus.STALE and verdict.outcome is ScreenStatus.SOLVED
    assert len(verdict.stale) == 2


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("gemini-3.5-flash", {"thinking_level": "minimal"}),
        ("gemini-3.1-pro", {"thinking_level": "low"}),
        ("gemini-2.5-flash", {"thinking_budget": 0}),
        ("gemini-2.5-pro", {"thinking_budget": 128}),
        ("gemini-2.0-flash", None),
    ],
)
def test_the_smallest_thinking_each_model_allows(model: str, thinking: object) -> None:
    assert smallest_thinking(model) == thinking


def test_the_servers_retry_delay_is_read() -> None:
    error = Exception("429")
    error.details = {  # type: ignore[attr-defined]
        "error": {
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "17s"}]
        }
    }
    assert server_retry_delay(error) == 17.0
    assert server_retry_delay(Exception()) is None
