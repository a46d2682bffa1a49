"""``report.html``: an evaluation's results as one self-contained page that opens offline in
any browser: Table 7 as a chart (a bar per model and subset, the 95 % interval as an error
bar), the figures as a table, and every question with each model's answer, right or wrong,
beside a small thumbnail of its image.

Everything is inside the one file: the chart is an SVG drawn by matplotlib (its SVG backend,
never pyplot, so no window system is touched), the thumbnails are JPEG ``data:`` URIs
downscaled with OpenCV, and the style sheet is inline. The page runs no script, and its
Content-Security-Policy forbids any: model answers are hostile input, and every text on the
page (answers, questions, names) is escaped, so ``<script>`` in an answer shows as text.

Bounds: an answer is shown up to ``ANSWER_CHARS`` characters (its length named past that),
a thumbnail is at most ``THUMB_SIDE`` pixels a side, and the thumbnails together at most
``THUMB_BUDGET`` bytes; past that the rest of the images are named, not shown.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sabre_desk import __version__
from sabre_desk.core.release.evaluation_results import EvaluationResults, QuestionResult
from sabre_desk.core.release.release_read import release_file
from sabre_desk.ground.errors import ImageError, ProjectError
from sabre_desk.ground.storage import atomic_write_bytes

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPORT_NAME = "report.html"
#: Longest side of a thumbnail, in pixels.
THUMB_SIDE = 96
#: JPEG quality of the thumbnails.
THUMB_QUALITY = 70
#: The thumbnails of one report together, base64 included.
THUMB_BUDGET = 4 * 1024 * 1024
#: Characters of an answer (or a question) shown; the rest is named by its length.
ANSWER_CHARS = 400
#: The bars' colours, one per model in order (matplotlib's "tab10", the colour-blind-safe
#: default of its charts), repeated past ten models.
COLOURS = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
MACRO_LABEL = "Macro (P)"


def _text(value: str, limit: int = ANSWER_CHARS) -> str:
    """*value* escaped for HTML, cut at *limit* characters with its length named."""
    if len(value) > limit:
        return f"{html.escape(value[:limit])}… <i>({len(value):,} characters)</i>"
    return html.escape(value)


#: matplotlib's settings for every chart of an evaluation (this report's, the window's):
#: names shown as written, never read as math ($…$) or escapes, so no math is ever laid out
#: (and the standalone bundle carries none of matplotlib's math fonts)
LITERAL_TEXT: dict[Any, Any] = {"text.parse_math": False}


def chart_svg(results: EvaluationResults) -> str:
    """Table 7 as an SVG bar chart: a group per subset (and the paper's macro), a bar per
    model, the 95 % bootstrap interval as its error bar. Deterministic for the same
    results (no date, fixed ids), so two reports of one evaluation are the same file."""
    import matplotlib  # imported here: the chart is its only user

    rc = {**LITERAL_TEXT, "svg.hashsalt": "sabre-desk", "svg.fonttype": "none"}
    with matplotlib.rc_context(rc):  # the texts take their settings as they are made
        figure = _chart_figure(results)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    return svg[svg.index("<svg") :]  # inline: no XML declaration or doctype


def _chart_figure(results: EvaluationResults) -> Figure:
    from matplotlib.figure import Figure

    groups: list[tuple[str, dict[str, tuple[float, float, float]]]] = [
        (f"{s.subset} ({s.metric})", s.by_model) for s in results.subsets
    ]
    macro: dict[str, tuple[float, float, float]] = {}
    for model in results.models:
        value = results.macro.get(model)
        ci = results.reports.get(model, {}).get("macro_ci95")
        if value is not None and isinstance(ci, list) and len(ci) == 2:
            macro[model] = (float(value), float(ci[0]), float(ci[1]))
    if macro:
        groups.append((MACRO_LABEL, macro))
    models = results.models
    width = max(8.0, min(18.0, 1.5 + len(groups) * (0.4 + 0.25 * len(models))))
    figure = Figure(figsize=(width, 4.2), layout="constrained")
    axes = figure.add_subplot()
    bar = 0.8 / max(len(models), 1)
    for m, model in enumerate(models):
        xs, heights, below, above = [], [], [], []
        for g, (_, by_model) in enumerate(groups):
            if model not in by_model:
                continue
            value, low, high = by_model[model]
            xs.append(g - 0.4 + bar * (m + 0.5))
            heights.append(100 * value)
            below.append(max(0.0, 100 * (value - low)))
            above.append(max(0.0, 100 * (high - value)))
        axes.bar(
            xs,
            heights,
            bar * 0.92,
            yerr=[below, above],
            capsize=2,
            color=COLOURS[m % len(COLOURS)],
            ecolor="#222222",
            error_kw={"elinewidth": 0.8},
            label=model,
        )
    axes.set_xticks(
        range(len(groups)),
        [label for label, _ in groups],
        fontsize=8,
        rotation=25,
        ha="right",
        rotation_mode="anchor",
    )
    axes.set_ylim(0, 100)
    axes.set_ylabel("score (%), 95 % interval")
    axes.grid(axis="y", color="#dddddd", linewidth=0.6)
    axes.set_axisbelow(True)
    axes.spines[["top", "right"]].set_visible(False)
    if models:
        axes.legend(fontsize=8, frameon=False, ncols=min(len(models), 4), loc="upper right")
    return figure


def _thumbnail(release: Path, image: str) -> bytes | None:
    """A JPEG of the release's *image* at most THUMB_SIDE a side, or None when it cannot be
    read (missing, refused, not an image)."""
    import cv2

    from sabre_desk.imaging.io import load_image

    try:
        rgb = load_image(release_file(release, image))
    except (ProjectError, ImageError, OSError, ValueError):
        return None
    height, width = rgb.shape[:2]
    scale = THUMB_SIDE / max(height, width, 1)
    if scale < 1:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        rgb = cv2.resize(rgb, size, interpolation=cv2.INTER_AREA)
    ok, encoded = cv2.imencode(
        ".jpg", cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, THUMB_QUALITY]
    )
    return encoded.tobytes() if ok else None


def thumbnails(
    release: Path, images: Iterable[str], budget: int = THUMB_BUDGET
) -> tuple[dict[str, str], list[str]]:
    """``data:`` URIs of *images* (release-relative, each once) within *budget* bytes, and
    the images left out past it."""
    uris: dict[str, str] = {}
    left_out: list[str] = []
    spent = 0
    for image in dict.fromkeys(images):
        if spent >= budget:
            left_out.append(image)
            continue
        data = _thumbnail(release, image)
        if data is None:
            continue
        uri = "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")
        if spent + len(uri) > budget:
            left_out.append(image)
            spent = budget
            continue
        spent += len(uri)
        uris[image] = uri
    return uris, left_out


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def _figures_table(results: EvaluationResults) -> str:
    head = "".join(f"<th>{html.escape(m)}</th>" for m in results.models)
    rows = []
    for subset in results.subsets:
        cells = []
        for model in results.models:
            found = subset.by_model.get(model)
            if found is None:
                cells.append("<td>–</td>")
                continue
            value, low, high = found
            cells.append(
                f"<td>{_percent(value)} <small>[{_percent(low)}, {_percent(high)}]</small></td>"
            )
        rows.append(
            f"<tr><th scope='row'>{html.escape(subset.subset)}</th>"
            f"<td>{html.escape(subset.metric)}</td>{''.join(cells)}</tr>"
        )
    macro = []
    for model in results.models:
        ci = results.reports.get(model, {}).get("macro_ci95")
        interval = (
            f" <small>[{_percent(ci[0])}, {_percent(ci[1])}]</small>"
            if isinstance(ci, list) and len(ci) == 2
            else ""
        )
        macro.append(f"<td>{_percent(results.macro.get(model))}{interval}</td>")
    average = "".join(
        f"<td>{_percent(results.reports.get(m, {}).get('macro_all_subsets'))}</td>"
        for m in results.models
    )
    rows.append(
        f"<tr class='macro'><th scope='row'>Macro Avg. (P)</th><td></td>{''.join(macro)}</tr>"
    )
    rows.append(f"<tr><th scope='row'>Average, all subsets</th><td></td>{average}</tr>")
    return (
        "<table class='figures'><thead><tr><th>Subset</th><th>Metric</th>"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _verdict(right: bool | None) -> tuple[str, str]:
    if right is None:
        return "none", "no answer"
    return ("right", "right") if right else ("wrong", "wrong")


def _question_row(question: QuestionResult, models: list[str], thumbs: dict[str, str]) -> str:
    uri = thumbs.get(question.image)
    image = (
        f"<img src='{uri}' alt='{html.escape(question.image, quote=True)}'>"
        if uri
        else f"<span class='noimage'>{html.escape(question.image)}</span>"
    )
    cells = []
    for model in models:
        answer = question.answers.get(model)
        kind, word = _verdict(question.right.get(model))
        shown = "<i>(no answer)</i>" if answer is None else _text(answer)
        cells.append(
            f"<td class='answer {kind}'><span class='verdict'>{word}</span> "
            f"<span class='text'>{shown}</span></td>"
        )
    classes = "question disputed" if question.disputed else "question"
    flag = "<br><span class='flag'>disputed</span>" if question.disputed else ""
    return (
        f"<tr class='{classes}' id='q-{html.escape(question.question_id, quote=True)}'>"
        f"<td class='thumb'>{image}</td>"
        f"<td class='case'>{html.escape(question.case_id)}<br>"
        f"<small>{html.escape(question.subset)}</small></td>"
        f"<td class='q'>{_text(question.question)}</td>"
        f"<td class='reference'>{_text(question.reference)}{flag}</td>"
        f"{''.join(cells)}</tr>"
    )


STYLE = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
.meta { color: #555; margin-top: 0; }
.chart svg { max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ddd; padding: 4px 6px; vertical-align: top; text-align: left; }
thead th { background: #f3f3f3; position: sticky; top: 0; }
table.figures td { text-align: right; white-space: nowrap; }
tr.macro { font-weight: bold; }
td.thumb img { display: block; max-width: 96px; max-height: 96px; }
td.answer .text { white-space: pre-wrap; overflow-wrap: anywhere; }
td.right { background: #e9f6ea; }
td.wrong { background: #fbe9e9; }
td.none { background: #f3f3f3; color: #777; }
.verdict { font-size: 0.8em; font-weight: bold; text-transform: uppercase; }
td.right .verdict { color: #1b7a2b; }
td.wrong .verdict { color: #b3261e; }
tr.disputed td.reference { outline: 2px solid #e0a800; outline-offset: -2px; }
.flag { font-size: 0.75em; font-weight: bold; color: #8a6100; text-transform: uppercase; }
.noimage { color: #777; font-size: 0.8em; overflow-wrap: anywhere; }
"""


def render_report(results: EvaluationResults, budget: int = THUMB_BUDGET) -> str:
    """The whole page for *results*; see the module's text."""
    thumbs, left_out = thumbnails(results.release, (q.image for q in results.questions), budget)
    models = results.models
    disputed = sum(q.disputed for q in results.questions)
    name = results.release_name or results.release.name
    head = "".join(f"<th>{html.escape(m)}</th>" for m in models)
    rows = "\n".join(_question_row(q, models, thumbs) for q in results.questions)
    omitted = (
        f"<p class='meta'>{len(left_out)} image(s) shown by name only: the thumbnails are "
        f"kept under {budget // (1024 * 1024)} MB in all.</p>"
        if left_out
        else ""
    )
    policy = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evaluation of {html.escape(name)}</title>
<style>{STYLE}</style>
</head>
<body>
<h1>Evaluation of {html.escape(name)}</h1>
<p class="meta">Release root sha256 {html.escape(results.root_sha256 or "(unknown)")};
{len(models)} model(s), {len(results.questions)} question(s), {disputed} disputed (the models
agree with each other against the reference). Written by sabre-desk {html.escape(__version__)}
from the predictions in {html.escape(str(results.folder))}; scored by the paper's rules, as
<code>sabre-desk score</code> scores them.</p>
<h2>Table 7</h2>
<div class="chart" id="chart">{chart_svg(results)}</div>
{_figures_table(results)}
<h2>Every question</h2>
<p class="meta">Each model's answer as it gave it, judged right or wrong by the paper's
rules; a model that gave none counts as wrong. A <span class="flag">disputed</span>
reference is one the models agree against (<code>sabre-desk audit</code>'s rule): the
reference itself may be what is wrong.</p>
{omitted}
<table class="questions">
<thead><tr><th>Image</th><th>Case</th><th>Question</th><th>Reference</th>{head}</tr></thead>
<tbody>
{rows}
</tbody>
</table>
</body>
</html>
"""


def write_report(results: EvaluationResults, out: Path | None = None) -> Path:
    """Write ``report.html`` for *results* into its folder (or to *out*); returns its path."""
    path = out or results.folder / REPORT_NAME
    atomic_write_bytes(path, render_report(results).encode("utf-8"))
    return path
