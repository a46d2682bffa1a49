"""File > Open Evaluation… in the real window: Table 7 as a chart above every question,
the filters, and a double click that opens the case in the desk (or says why not)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image
from PySide6.QtCore import QModelIndex

from sabre_desk.cli import main
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.review import Decision
from sabre_desk.core.desk.evaluation_filter import Shown
from sabre_desk.gui.evaluation.evaluation_view import EvaluationView
from sabre_desk.gui.main_window import MainWindow


def evaluation_of(
    project_root: Path,
    tmp: Path,
    capsys: pytest.CaptureFixture[str],
    models: tuple[str, str] = ("m1", "m2"),
) -> Path:
    """A release of *project_root* and two models' answers: "m1" right everywhere but on
    the counting questions, "m2" the same wrong counts (a dispute) and nothing else right."""
    project = Project.open(project_root, "alice")
    for entry in project.index():
        case = project.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    release = tmp / "release"
    assert main(["--reviewer", "alice", "export", str(project_root), str(release)]) == 0
    capsys.readouterr()
    rows = [json.loads(line) for line in (release / "benchmark.jsonl").read_text().splitlines()]
    folder = tmp / "eval"
    folder.mkdir()
    for model in models:
        lines = []
        for row in rows:
            counting = row["eval_type"] == "count_exact"
            right = model == models[0] and not counting
            answer = "99" if counting else (row["answer"] if right else "purple elephant")
            lines.append(json.dumps({"question_id": row["question_id"], "response": answer}))
        (folder / f"predictions-{model}.jsonl").write_text("\n".join(lines) + "\n")
    (folder / "figures.json").write_text(json.dumps({"release_path": str(release)}))
    return folder


def open_evaluation(qtbot, window: MainWindow, folder: Path) -> EvaluationView:
    with qtbot.waitSignal(window.evaluation_ui.shown, timeout=20000) as shown:
        window.evaluation_ui.load(folder)
    view: EvaluationView = shown.args[0]
    qtbot.addWidget(view)
    return view


def test_the_evaluation_view_charts_lists_filters_and_leads_to_the_case(
    qtbot,
    window: MainWindow,
    open_case: Callable[..., None],
    demo_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = evaluation_of(demo_project, tmp_path, capsys)
    action = window.evaluation_ui.action
    assert action.isEnabled() and action in window.actions_.file.actions()  # no project needed
    view = open_evaluation(qtbot, window, folder)
    results = view.results
    assert view.isVisible() and results.models == ["m1", "m2"]
    bars = view.figure.axes[0].patches
    assert len(bars) == len(results.models) * len(results.subsets)  # models × subsets
    assert len(view.figure.axes[0].lines) + len(view.figure.axes[0].collections) > 0  # CIs
    total = len(results.questions)
    assert view.model.rowCount() == total == 31
    assert view.model.columnCount() == 5  # case, question, reference, m1, m2

    def show(kind: Shown, subset: str = "") -> list[str]:
        view.shown.setCurrentIndex(view.shown.findData(kind))
        view.subset.setCurrentIndex(view.subset.findData(subset))
        return [q.question_id for q in view.model.rows]

    counting = [q.question_id for q in results.questions if q.eval_type == "count_exact"]
    disputed = show(Shown.DISPUTED)
    assert set(counting) <= set(disputed)  # both say 99 against the reference
    assert set(disputed) == {q.question_id for q in results.disputed}  # audit's own rule
    assert set(show(Shown.FAILED_BY_ALL)) == {
        q.question_id for q in results.questions if not q.right["m1"]
    }
    assert show(Shown.FAILED_BY_NONE) == []  # m2 gets nothing right
    only = show(Shown.ALL, "counting")
    assert only and all(qid.split(":")[0].startswith("count") for qid in only)
    assert view.count.text() == f"{len(only)} of {total} questions"
    first = view.model.index(0, 3)
    assert view.model.data(first).startswith("✗ 99")  # m1's wrong count

    # with no project open, a double click says why it cannot go to the case
    said = window.evaluation_ui.open_case(results, view.model.rows[0].case_id)
    assert Project.open(demo_project, "alice").name in said and "File > Open Project" in said

    # the evaluation's project open: a double click goes to the case in the desk
    open_case(window, demo_project, "attr01_red_triangles")
    target = view.model.rows[0].case_id
    with qtbot.waitSignal(window.images_shown, timeout=10000):
        view.table.doubleClicked.emit(view.model.index(0, 1, QModelIndex()))
    assert window.case_list.current_case() == target


def test_a_model_named_with_dollars_is_shown_as_named_not_as_math(
    qtbot,
    window: MainWindow,
    demo_project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """matplotlib reads $…$ as math (and the standalone bundle carries no math fonts): the
    legend shows the name's own characters, as wide as the name set as plain text."""
    from matplotlib.text import Text

    named = "gpt-$4$ \\beta"
    view = open_evaluation(
        qtbot, window, evaluation_of(demo_project, tmp_path, capsys, (named, "m2"))
    )
    assert view.results.models == [named, "m2"]
    view.chart.draw()
    renderer = view.figure.canvas.get_renderer()
    (shown, _) = view.figure.axes[0].get_legend().get_texts()
    plain = Text(text=named, fontproperties=shown.get_fontproperties(), parse_math=False)
    plain.set_figure(view.figure)
    assert shown.get_window_extent(renderer).width == pytest.approx(
        plain.get_window_extent(renderer).width, abs=0.5
    )
    # the legend beside the plot: the first model's bars reach 100 % under where it would be
    legend = view.figure.axes[0].get_legend().get_window_extent(renderer)
    assert legend.x0 >= view.figure.axes[0].get_window_extent(renderer).x1


def test_a_folder_that_is_no_evaluation_is_said(
    qtbot, window: MainWindow, tmp_path: Path, warnings_shown: list[str]
) -> None:
    window.evaluation_ui.load(tmp_path)
    qtbot.waitUntil(lambda: bool(warnings_shown), timeout=10000)
    assert "Cannot open the evaluation" in warnings_shown[0] and str(tmp_path) in warnings_shown[0]


def test_open_with_an_evaluation_folder_shows_its_results(
    demo_project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`sabre-desk open EVAL_DIR` opens the evaluation view, not a project (rendered at a
    laptop's size: the chart and the table are painted)."""
    folder = evaluation_of(demo_project, tmp_path, capsys)
    out = tmp_path / "evaluation.png"
    argv = ["open", str(folder), "--screenshot", str(out), "--size", "1366x768"]
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert "screenshot written" in result.stdout
    with Image.open(out) as shot:
        assert shot.size == (1366, 768)
        colors = shot.convert("RGB").getcolors(maxcolors=1_000_000)
        assert colors is not None and len(colors) > 50  # a chart's bars, the table's marks
