"""The audit queue end to end on a held-out copy of the demo: export, evaluate two models
against local OpenAI-compatible servers, `audit --flag` names exactly the questions where
both agree against the reference, `stats` counts them, settling one (editing its answer)
takes it off the count, and `export` names the ones left to settle."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.openai_server import FakeOpenAI, completion

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision, QuestionEdit
from sabre_desk.core.release.audit import find_disputes

GPT, LOCAL = "openai:gpt-5.4", "local:qwen"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["--reviewer", "alice", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _wrong(row: dict[str, Any]) -> str:
    """An answer the rules read as one definite wrong answer."""
    answer = str(row["answer"])
    if row["eval_type"] == "yes_no_exact":
        return "no" if answer.lower() == "yes" else "yes"
    if row["eval_type"] == "mcq_letter":
        return "D" if answer.upper() != "D" else "C"
    if row["eval_type"] == "count_exact":
        return str(int(answer) + 1) if answer.isdigit() else "7"
    return "purple elephant"


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeOpenAI, FakeOpenAI]]:
    gpt, local = FakeOpenAI(), FakeOpenAI()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "q" * 32)
    monkeypatch.setenv("OPENAI_BASE_URL", gpt.url)
    monkeypatch.setenv("SABRE_DESK_LOCAL_BASE_URL", local.url)
    try:
        yield gpt, local
    finally:
        gpt.close()
        local.close()


def _answering(rows: list[dict[str, Any]], plan: dict[str, str], second: bool) -> Any:
    """A server rule answering each question by *plan* (question_id → answer), found by the
    question's text in the prompt. A text asked of several images (a paired edit's probes)
    gets "yes" from one model and "no" from the other: never the same wrong answer."""
    texts = Counter(str(r["question"]) for r in rows)

    def rule(body: dict[str, Any]) -> Any:
        sent = json.dumps(body)
        found = [r for r in rows if json.dumps(str(r["question"]))[1:-1] in sent]
        found.sort(key=lambda r: -len(str(r["question"])))
        row = found[0]
        if texts[str(row["question"])] > 1:
            return completion("no" if second else "yes")
        return completion(plan.get(str(row["question_id"]), str(row["answer"])))

    return rule


def test_audit_flags_exactly_where_both_models_agree_against_the_reference(
    servers: tuple[FakeOpenAI, FakeOpenAI],
    demo_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    _isolated_settings: Path,
) -> None:
    project = Project.open(demo_project, "alice")
    for entry in project.index():
        case = project.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp_path / "release"
    assert run(capsys, "export", str(demo_project), str(release))[0] == 0
    rows = [json.loads(line) for line in (release / "benchmark.jsonl").read_text().splitlines()]
    texts = Counter(str(r["question"]) for r in rows)
    unique = [r for r in rows if texts[str(r["question"])] == 1]
    assert len(unique) >= 4
    agreed = {str(r["question_id"]): _wrong(r) for r in unique[:2]}
    only_gpt = {str(unique[2]["question_id"]): _wrong(unique[2])}  # the other one is right
    gpt, local = servers
    gpt.rule = _answering(rows, {**agreed, **only_gpt}, second=False)
    local.rule = _answering(rows, agreed, second=True)

    evaluation = tmp_path / "eval"
    argv = ["evaluate", str(release), "--models", f"{GPT},{LOCAL}", "--out", str(evaluation)]
    code, _, err = run(capsys, *argv)
    assert code == 0, err

    code, out, err = run(capsys, "audit", str(evaluation), str(demo_project), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["min_models"] == 2  # default 3, all of them when fewer were evaluated
    assert {q["question_id"] for q in report["questions"]} == set(agreed)
    first = next(q for q in report["questions"] if q["question_id"] in agreed)
    assert set(first["answers"]) == {"openai_gpt-5.4", "local_qwen"}
    assert set(first["answers"].values()) == {agreed[first["question_id"]]}
    assert not (demo_project / "audit.json").exists()  # listing records nothing

    # the same answers as predictions files from elsewhere (score's format, by row index)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    index = {str(r["question_id"]): r["index"] for r in rows}
    for file in evaluation.glob("predictions-*.jsonl"):
        lines = [json.loads(line) for line in file.read_text().splitlines()]
        (elsewhere / file.name.removeprefix("predictions-")).write_text(
            "".join(
                json.dumps({"index": index[p["question_id"]], "response": p["response"]}) + "\n"
                for p in lines
            )
        )
    argv = ["audit", str(elsewhere), str(demo_project), "--release", str(release), "--json"]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    assert {q["question_id"] for q in json.loads(out)["questions"]} == set(agreed)
    code, _, err = run(capsys, "audit", str(elsewhere), str(demo_project))
    assert code != 0 and "--release" in err and str(elsewhere) in err  # which release?

    code, out, _ = run(capsys, "audit", str(evaluation), str(demo_project), "--flag")
    assert code == 0 and "2 question(s)" in out
    for qid in agreed:
        assert qid in out
    recorded = json.loads((demo_project / "audit.json").read_text())
    root = json.loads((release / "release.json").read_text())["root_sha256"]
    assert {f["release_root_sha256"] for f in recorded["flags"]} == {root}

    code, out, _ = run(capsys, "stats", str(demo_project), "--json")
    assert json.loads(out)["audit"] == {"flagged": 2, "settled": 0, "unsettled": sorted(agreed)}

    # the reviewer agrees with the models: the reference was wrong, and is edited
    settled_id = sorted(agreed)[0]
    case_id, probe = settled_id.split(":")
    case = project.load_case(case_id)
    case.review.question_edits[probe] = QuestionEdit(answer=agreed[settled_id])
    project.save_review(case)
    code, out, _ = run(capsys, "stats", str(demo_project), "--json")
    left = sorted(agreed)[1]
    assert json.loads(out)["audit"] == {"flagged": 2, "settled": 1, "unsettled": [left]}
    code, out, _ = run(capsys, "stats", str(demo_project))
    assert "answers the models dispute: 2 flagged, 1 settled, 1 to settle" in out

    code, out, _ = run(capsys, "export", str(demo_project), str(tmp_path / "again"))
    assert code == 0 and f"to settle: {left}" in out and f"to settle: {settled_id}" not in out


def test_agreement_is_on_the_answer_the_rules_read_and_a_right_answer_clears_it() -> None:
    rows = [
        {"question_id": "a:q1", "group_id": "a", "subset": "counting", "probe_id": "q1",
         "eval_type": "count_exact", "question": "How many?", "answer": "3"},
        {"question_id": "b:q1", "group_id": "b", "subset": "counting", "probe_id": "q1",
         "eval_type": "count_exact", "question": "How many?", "answer": "2"},
    ]  # fmt: skip
    answers = {
        "m1": {"a:q1": "Four.", "b:q1": "two"},
        "m2": {"a:q1": "4", "b:q1": "5"},
        "m3": {"a:q1": "four apples", "b:q1": "5"},
    }
    disputes = find_disputes(rows, answers, 3)
    assert [d.question_id for d in disputes] == ["a:q1"]  # b: one model gives the reference
    assert disputes[0].agreed == "4" and disputes[0].answers["m1"] == "Four."
    assert find_disputes(rows, {**answers, "m4": {"a:q1": None}}, 4) == []
