"""Several models' scores on one release as one table, in the layout of the paper's Table 7:
a row per subset metric (primary metrics marked (P)), for paired subsets All4, Edit2 and the
four probes Q1-Q4, then the paper's macro; a column per model. Markdown, CSV or LaTeX."""

from __future__ import annotations

import csv
import io

from sabre_desk.core.case.scoring import PRIOR_PRIMARIES, Report

FORMATS = ("md", "csv", "tex")


def rows(reports: dict[str, Report]) -> list[tuple[str, str, list[float | None]]]:
    """(subset, metric, one percentage per model) in Table 7's order."""
    subsets = sorted({s.subset for r in reports.values() for s in r.subsets})
    out: list[tuple[str, str, list[float | None]]] = []
    for subset in subsets:
        found = [next((s for s in r.subsets if s.subset == subset), None) for r in reports.values()]
        first = next(s for s in found if s is not None)
        mark = " (P)" if subset in PRIOR_PRIMARIES else ""
        out.append((subset, f"{first.metric}{mark}", [s.accuracy if s else None for s in found]))
        if first.edit2 is not None:
            out.append((subset, "Edit2", [s.edit2 if s else None for s in found]))
            for probe in first.probes:
                out.append((subset, probe, [s.probes.get(probe) if s else None for s in found]))
    out.append(("Overall", "Macro Avg. (P)", [r.macro for r in reports.values()]))
    out.append(("Overall", "Average, all subsets", [r.macro_all for r in reports.values()]))
    return out


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


def render(reports: dict[str, Report], fmt: str) -> str:
    models = list(reports)
    table = [
        [subset, metric, *(_cell(v) for v in values)] for subset, metric, values in rows(reports)
    ]
    header = ["Subset", "Metric", *models]
    if fmt == "csv":
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows([header, *table])
        return buffer.getvalue()
    if fmt == "tex":

        def tex(text: str) -> str:
            return text.replace("_", r"\_").replace("%", r"\%").replace("&", r"\&")

        lines = [
            r"\begin{tabular}{ll" + "r" * len(models) + "}",
            r"\toprule",
            " & ".join(tex(h) for h in header) + r" \\",
            r"\midrule",
            *(" & ".join(tex(c) for c in row) + r" \\" for row in table),
            r"\bottomrule",
            r"\end{tabular}",
        ]
        return "\n".join(lines) + "\n"
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * 2 + "---:|" * len(models),
        *("| " + " | ".join(row) + " |" for row in table),
    ]
    return "\n".join(lines) + "\n"
