"""report.html (core/release/evaluation_report.py): one self-contained page with Table 7 as
a chart, the figures score gives, every question with each model's answer (hostile text shown
as text), and bounded thumbnails; and, with the `browser` marker, the page as a real headless
Chromium renders it."""

from __future__ import annotations

import base64
import io
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from evaluations import HOSTILE, demo_release, plan, rows_of, write_predictions
from PIL import Image

from sabre_desk.cli import main
from sabre_desk.core.release.evaluation_report import (
    COLOURS,
    THUMB_SIDE,
    render_report,
    thumbnails,
    write_report,
)
from sabre_desk.core.release.evaluation_results import EvaluationResults, load_evaluation

#: A model whose name is markup, and matplotlib's math mode besides (its file's name).
HOSTILE_MODEL = "<img src=x onerror=alert(1)>$x^2$"
LONG = "yes " + "and more " * 2000


@pytest.fixture(scope="module")
def release(demo_master: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_release(demo_master, tmp_path_factory.mktemp("report"))


@pytest.fixture(scope="module")
def evaluation(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three models' predictions files: alpha (one answer markup), beta (one left out) and
    a model named in markup whose every answer is a long "yes"."""
    folder = tmp_path_factory.mktemp("predictions")
    answers = plan(rows_of(release))
    answers[HOSTILE_MODEL] = {qid: LONG for qid in answers["alpha"]}
    write_predictions(folder, answers)
    return folder


@pytest.fixture(scope="module")
def results(evaluation: Path, release: Path) -> EvaluationResults:
    return load_evaluation(evaluation, release)


@pytest.fixture(scope="module")
def page(results: EvaluationResults) -> str:
    return render_report(results)


def test_every_text_is_escaped_and_the_page_runs_no_script(page: str) -> None:
    assert "<script" not in page.lower()  # neither the answer's nor any of our own
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<b>bold" not in page
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy and "default-src 'none'" in policy.group(1)
    assert "script-src" not in policy.group(1)  # nothing may run
    # a long answer is cut, its length named
    assert f"({len(LONG):,} characters)" in page and LONG not in page


def test_one_row_per_question_with_each_models_verdict(
    page: str, results: EvaluationResults
) -> None:
    rows = re.findall(r"<tr class='question[^']*' id='q-([^']+)'>(.*?)</tr>", page, re.S)
    assert [qid for qid, _ in rows] == [q.question_id for q in results.questions]
    for (_, cells), question in zip(rows, results.questions, strict=True):
        verdicts = re.findall(r"<td class='answer (right|wrong|none)'>", cells)
        expected = [
            {True: "right", False: "wrong", None: "none"}[question.right[m]] for m in results.models
        ]
        assert verdicts == expected
        assert ("class='flag'" in cells) == question.disputed
    assert any(q.disputed for q in results.questions)
    assert any(q.right["beta"] is None for q in results.questions)


def test_the_figures_are_scores_own(
    page: str, evaluation: Path, release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def cell(value: float) -> str:
        return f"{100 * value:.1f}"

    for file in sorted(evaluation.glob("*.jsonl")):
        capsys.readouterr()
        assert main(["score", str(release), str(file), "--json"]) == 0
        scored: dict[str, Any] = json.loads(capsys.readouterr().out)
        low, high = scored["macro_ci95"]
        assert f"{cell(scored['macro'])} <small>[{cell(low)}, {cell(high)}]</small>" in page
        for subset in scored["subsets"]:
            low, high = subset["ci95"]
            assert f"{cell(subset['accuracy'])} <small>[{cell(low)}, {cell(high)}]</small>" in page


def test_the_chart_is_an_inline_svg_with_a_colour_per_model(
    page: str, results: EvaluationResults
) -> None:
    svg = page[page.index("<svg") : page.index("</svg>")]
    for colour in COLOURS[: len(results.models)]:
        assert colour in svg
    assert "Macro (P)" in svg and "texture_prior (All4)" in svg
    assert "onerror=alert(1)&gt;$x^2$" in svg  # the name as written: no math, no markup
    assert render_report(results) == page  # the same evaluation, the same file


def test_thumbnails_are_small_embedded_and_bounded(page: str, results: EvaluationResults) -> None:
    images = {q.image for q in results.questions}
    uris = re.findall(r"<img src='(data:image/jpeg;base64,[^']+)'", page)
    assert len(set(uris)) == len(images) and len(uris) == len(results.questions)
    for uri in set(uris):
        with Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))) as thumb:
            assert max(thumb.size) <= THUMB_SIDE
    # nothing is fetched from anywhere: every reference is inside the page
    links = re.findall(r"""(?:src|href)=["']([^"']*)""", page)
    assert links and all(link.startswith(("data:", "#")) for link in links)

    shown, left_out = thumbnails(results.release, sorted(images), budget=6000)
    assert 0 < len(shown) < len(images) and len(shown) + len(left_out) == len(images)
    assert sum(len(uri) for uri in shown.values()) <= 6000
    small = render_report(results, budget=6000)
    assert f"{len(left_out)} image(s) shown by name only" in small


def test_report_command_writes_it_for_predictions_from_elsewhere(
    evaluation: Path, release: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "elsewhere.html"
    assert main(["report", str(evaluation), "--release", str(release), "--out", str(out)]) == 0
    assert "3 model(s), 31 question(s)" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8").count("<tr class='question") == 31
    assert main(["report", str(evaluation)]) != 0
    assert "--release" in capsys.readouterr().err


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]


def _run_chromium(args: list[str], profile: Path) -> subprocess.CompletedProcess[str]:
    chromium = _chromium()
    assert chromium is not None
    return subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "HOME": str(profile)},
    )


@pytest.mark.browser
def test_a_real_browser_renders_the_chart_the_rows_and_the_hostile_text(
    results: EvaluationResults, tmp_path: Path
) -> None:
    if _chromium() is None:
        if os.environ.get("SABRE_DESK_REQUIRE_BROWSER"):
            pytest.fail("chromium is not installed, and this run requires it")
        pytest.skip("no chromium on this machine (apt-get install chromium)")
    path = write_report(results, tmp_path / "report.html")
    url = path.as_uri()

    dom = _run_chromium(["--dump-dom", url], tmp_path / "profile-dom").stdout
    assert dom.count('<tr class="question') == len(results.questions)
    assert "<svg" in dom and dom.count('<img src="data:image/jpeg;base64,') == len(
        results.questions
    )
    # the hostile answer and model name are text in the page, not elements
    assert "&lt;script&gt;alert('x')&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in dom
    assert "<script" not in dom.lower() and "<b>bold" not in dom
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom and "<img src=x" not in dom
    assert HOSTILE not in dom

    shot = tmp_path / "report.png"
    _run_chromium([f"--screenshot={shot}", "--window-size=1400,1100", url], tmp_path / "p2")
    with Image.open(shot) as image:
        pixels = image.convert("RGB")
        counts: dict[tuple[int, int, int], int] = {}
        for count, colour in pixels.getcolors(maxcolors=1 << 22) or []:
            counts[colour] = count
    for index in range(len(results.models)):
        hex_colour = COLOURS[index].lstrip("#")
        rgb = tuple(int(hex_colour[i : i + 2], 16) for i in (0, 2, 4))
        assert counts.get(rgb, 0) > 300, f"no bars of {COLOURS[index]} on the screen"
