"""Opening a project in the window: process start → the case list's first screenful
painted, and → the index complete, for generated projects of 10,000 and 100,000 cases.

The projects are brought to today's format first (``upgrade_project``), as a project
made by this version is: one of an earlier format is scanned whole before it opens. Each
run is a fresh process (``python -c`` importing the window as ``sabre-desk open``
does, offscreen, 1366×768); the time is taken from just before the process is started.
"List populated" is the first paint of the case list's viewport with rows in it;
"index complete" is the window's ``index_reader.finished`` (each run also notes when the
first image and the pair were painted, which ``open_vs_labelme.py`` compares with labelme's).
With ``--other PATH`` (a checkout of another version) that version runs interleaved,
repetition by repetition, and each figure is also printed as a ratio to it; the load
average is printed at the start and the end (an absolute time from one machine is not a
claim).

Usage: python benchmarks/open_speed.py [--runs 3] [--cases 10000 100000]
       [--other /path/to/old/checkout] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from index_speed import make_project

from sabre_desk.core.upgrade.upgrade import upgrade_project

HERE = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, time
t0 = float(os.environ["OPEN_SPEED_T0"])
from pathlib import Path
from PySide6.QtCore import QEvent, QObject, QTimer
from sabre_desk.gui.app import make_app
from sabre_desk.gui.main_window import MainWindow
from sabre_desk.settings import load_settings

app = make_app()
settings, _ = load_settings()
window = MainWindow("bench", settings)
window.resize(1366, 768)
marks = {}

def mark(name):
    marks.setdefault(name, time.time() - t0)
    if {"index", "pair"} <= marks.keys():
        QTimer.singleShot(0, app.quit)

class Painted(QObject):
    def eventFilter(self, watched, event):
        if (event.type() == QEvent.Type.Paint and "list" not in marks
                and window.case_list.model.rowCount() > 0):
            marks["rows_then"] = window.case_list.model.rowCount()
            mark("list")
        return False

painted = Painted()
window.case_list.view.viewport().installEventFilter(painted)
for canvas in window.compare.canvases.values():  # the first image painted, either of the pair
    canvas.painted.connect(
        lambda c=canvas: mark("first_image") if c.display_image is not None else None
    )
window.images_shown.connect(lambda _case: mark("pair"))

def finished(project):
    marks["cases"] = len(project.entries)
    mark("index")

window.index_reader.finished.connect(finished)
window.show()
window.open_project(Path(sys.argv[1]))
QTimer.singleShot(300_000, app.quit)
app.exec()
print(json.dumps(marks))
"""


def one_run(
    checkout: Path | None, project: Path, child: str = CHILD, python: str = sys.executable
) -> dict[str, float]:
    """The marks of one fresh process running *child* on *project* (seconds from just
    before it started), with *checkout* first on its path (None: as installed)."""
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        HOME=tempfile.mkdtemp(prefix="open-speed-home-"),  # no recent projects, defaults
        SABRE_DESK_CONFIG_DIR=tempfile.mkdtemp(prefix="open-speed-config-"),
    )
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    env["OPEN_SPEED_T0"] = repr(time.time())
    out = subprocess.run(
        [python, "-c", child, str(project)],
        env=env,
        cwd=tempfile.gettempdir(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cases", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--other", type=Path, help="another checkout, run interleaved")
    parser.add_argument("--keep", type=Path, help="make (or reuse) the projects here")
    args = parser.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="open-speed-"))
    print(f"load average at start: {os.getloadavg()}")
    variants = [("now", HERE)] + ([("other", args.other.resolve())] if args.other else [])
    for n in args.cases:
        project = where / f"p{n}"
        if not project.exists():
            make_project(project, n)
        upgrade_project(project)  # a project of today's format: no scan before it opens
        results: dict[str, list[dict[str, float]]] = {name: [] for name, _ in variants}
        one_run(HERE, project)  # warm the file cache
        for rep in range(args.runs):
            order = variants if rep % 2 == 0 else variants[::-1]
            for name, checkout in order:
                r = one_run(checkout, project)
                assert r["cases"] == n, r
                results[name].append(r)
                print(
                    f"  {n:,} {name:>5} rep {rep + 1}: list {r['list'] * 1000:,.0f} ms "
                    f"({r['rows_then']:,} rows), index {r['index'] * 1000:,.0f} ms"
                )
        for what in ("list", "index"):
            med = {k: statistics.median(r[what] for r in v) for k, v in results.items()}
            line = f"{n:,} cases, start → {what}: now {med['now'] * 1000:,.0f} ms"
            if "other" in med:
                line += (
                    f", other {med['other'] * 1000:,.0f} ms, "
                    f"now / other {med['now'] / med['other']:.2f}×"
                )
            print(line)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
