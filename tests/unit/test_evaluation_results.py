"""The evaluation's results model (core/release/evaluation_results.py): its per-question
judgements and figures are score's own, through both ways of giving an evaluation (an
`evaluate` folder, a folder of predictions files with the release named), and bad input is
one ProjectError naming the file."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from evaluations import HOSTILE, demo_release, plan, rows_of, write_predictions
from fakes.openai_server import FakeOpenAI, completion

from sabre_desk.cli import main
from sabre_desk.core.case.scoring import Sample, judge
from sabre_desk.core.release.audit import find_disputes
from sabre_desk.core.release.audit import load_evaluation as load_answers
from sabre_desk.core.release.evaluation_results import QuestionResult, load_evaluation
from sabre_desk.ground.errors import ProjectError


@pytest.fixture(scope="module")
def release(demo_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo, every case kept, exported once for this module."""
    return demo_release(demo_master, tmp_path_factory.mktemp("results"))


def score_json(capsys: pytest.CaptureFixture[str], release: Path, path: Path) -> Any:
    capsys.readouterr()
    assert main(["score", str(release), str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def assert_figures_are_scores(
    results: Any, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for model in results.models:
        scored = score_json(capsys, release, results.files[model])
        assert results.macro[model] == scored["macro"]
        assert results.reports[model]["macro_all_subsets"] == scored["macro_all_subsets"]
        for figure in scored["subsets"]:
            shown = next(s for s in results.subsets if s.subset == figure["subset"])
            assert shown.metric == figure["metric"]
            assert shown.by_model[model] == (figure["accuracy"], *figure["ci95"])
        assert {s.subset for s in results.subsets} == {s["subset"] for s in scored["subsets"]}


def test_a_folder_of_predictions_files_reads_as_score_judges_it(
    release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = rows_of(release)
    answers = plan(rows)
    folder = tmp_path / "elsewhere"
    write_predictions(folder, answers)
    with pytest.raises(ProjectError, match="--release"):
        load_evaluation(folder)  # no figures.json: which release?

    results = load_evaluation(folder, release)
    assert results.models == ["alpha", "beta"]
    assert results.release == release
    assert results.root_sha256 == json.loads((release / "release.json").read_text())["root_sha256"]
    assert [q.question_id for q in results.questions] == [str(r["question_id"]) for r in rows]
    by_row = {str(r["question_id"]): r for r in rows}
    for question in results.questions:
        row = by_row[question.question_id]
        assert question.image == row["image"] and (release / question.image).is_file()
        assert question.reference == row["answer"]
        assert question.case_id == row.get("case_id", row["group_id"])
        for model in results.models:
            given = answers[model][question.question_id]
            assert question.answers[model] == given
            sample = Sample(
                question.question_id,
                str(row["group_id"]),
                str(row["subset"]),
                str(row["probe_id"]),
                str(row["eval_type"]),
                str(row["answer"]),
                given,
            )
            assert question.right[model] == judge(sample)[0]
    hostile = results.questions[1]
    assert hostile.answers["alpha"] == HOSTILE and hostile.right["alpha"] is False
    assert results.questions[-1].right["beta"] is None  # no answer
    assert_figures_are_scores(results, release, capsys)

    # disputed is the audit's own rule: with two models, both agreeing against the reference
    evaluation = load_answers(folder, release)
    flagged = {d.question_id for d in find_disputes(evaluation.rows, evaluation.answers, 2)}
    assert flagged and {q.question_id for q in results.questions if q.disputed} == flagged
    assert {q.question_id for q in results.disputed} == flagged


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    monkeypatch.setenv("SABRE_DESK_LOCAL_BASE_URL", fake.url)
    try:
        yield fake
    finally:
        fake.close()


def test_an_evaluate_folder_reads_with_the_names_evaluate_gave(
    release: Path,
    tmp_path: Path,
    server: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    _isolated_settings: Path,
) -> None:
    server.rule = lambda body: completion("yes")
    out = tmp_path / "eval"
    argv = ["evaluate", str(release), "--models", "local:qwen", "--out", str(out)]
    assert main(argv) == 0, capsys.readouterr().err
    results = load_evaluation(out)  # the release from figures.json
    assert results.models == ["local:qwen"]
    assert results.files["local:qwen"].name == "predictions-local_qwen.jsonl"
    assert results.release_name and results.release.resolve() == release.resolve()
    assert all(q.answers["local:qwen"] == "yes" for q in results.questions)
    assert all(q.disputed is False for q in results.questions if q.reference == "yes")
    assert_figures_are_scores(results, release, capsys)
    figures = json.loads((out / "figures.json").read_text())
    assert results.macro["local:qwen"] == figures["models"]["local:qwen"]["macro"]
    page = (out / "report.html").read_text(encoding="utf-8")  # evaluate writes it always
    assert page.count("<tr class='question") == len(results.questions)
    assert "<svg" in page and "local:qwen" in page


def test_bad_input_is_one_error_naming_the_file(release: Path, tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="no such folder") as missing:
        load_evaluation(tmp_path / "nowhere", release)
    assert "nowhere" in str(missing.value)

    corrupt = tmp_path / "corrupt"
    corrupt.mkdir()
    (corrupt / "m.jsonl").write_text('{"question_id": "x", "response": "yes"}\nnot json\n')
    with pytest.raises(ProjectError, match="line 2 is not JSON") as bad:
        load_evaluation(corrupt, release)
    assert "m.jsonl" in str(bad.value)

    # a release whose benchmark.jsonl is a link out of it
    linked = tmp_path / "linked"
    shutil.copytree(release, linked)
    outside = tmp_path / "outside.jsonl"
    shutil.move(linked / "benchmark.jsonl", outside)
    (linked / "benchmark.jsonl").symlink_to(outside)
    good = tmp_path / "good"
    write_predictions(good, {"m": {"x": "yes"}})
    with pytest.raises(ProjectError, match="symbolic link") as link:
        load_evaluation(good, linked)
    assert "linked" in str(link.value)

    # a row naming an image outside the release
    escaping = tmp_path / "escaping"
    shutil.copytree(release, escaping)
    rows = rows_of(escaping)
    rows[0]["image"] = "../outside.png"
    (escaping / "benchmark.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(ProjectError, match="line 1: its image is refused") as image:
        load_evaluation(good, escaping)
    assert "benchmark.jsonl" in str(image.value)

    # figures.json that is not JSON
    broken = tmp_path / "broken"
    write_predictions(broken, {"m": {"x": "yes"}})
    (broken / "figures.json").write_text("{")
    with pytest.raises(ProjectError) as figures:
        load_evaluation(broken)
    assert "figures.json" in str(figures.value)


def test_a_result_made_by_hand_is_disputed_by_the_audits_default() -> None:
    def made(**answers: str | None) -> QuestionResult:
        return QuestionResult("c:q1", "c", "counting", "How many?", "3", "c/base.png",
                              dict(answers), {m: False for m in answers})  # fmt: skip

    assert made(a="four", b="four").disputed  # two models: both must agree
    assert not made(a="four", b="five").disputed
    assert not made(a="four", b="3").disputed  # one gives the reference
    assert made(a="x", b="x", c="x", d=None).disputed  # three of four (the default 3)
    assert made(a="x", b="x", c="y", d="y").agreed is None
