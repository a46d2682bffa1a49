"""Opening side by side with labelme: process start → the list populated, and → the first
image painted, on the same 2048×2048 PNGs, in one run.

sabre-desk opens a project of N cases (10,000 by default; every case a pair of 2048×2048
PNGs, hard-linked from ten pairs, of today's project format) as ``sabre-desk open`` does;
labelme (installed in a separate environment, never a dependency: ``python3 -m venv
/tmp/labelme-venv && /tmp/labelme-venv/bin/pip install labelme``) opens a folder of the
same N Base images (hard links to the same files) as ``labelme FOLDER`` does. Both run
offscreen in fresh processes, their settings in a temporary home, the time taken from just
before the process is started; repetitions alternate which goes first.

- *list populated*: the first paint of the list of cases (labelme: of its file list) with
  rows in it;
- *first image*: the first paint of an image canvas with an image in it (sabre-desk: Base or
  Edited, whichever lands first; labelme: its one canvas); sabre-desk's *pair* (both
  painted) is printed too.

Each figure is a median over the runs and a ratio to labelme's in the same run, with the
load average at the start and the end.

Usage: python benchmarks/open_vs_labelme.py --labelme /tmp/labelme-venv/bin/python
       [--cases 10000] [--runs 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from case_switch import make_project
from open_speed import CHILD, HERE, one_run

from sabre_desk.core.upgrade.upgrade import upgrade_project

LABELME = r"""
import json, os, sys, tempfile, time
t0 = float(os.environ["OPEN_SPEED_T0"])
home = tempfile.mkdtemp(prefix="labelme-home-")
os.environ["HOME"] = home
os.environ["XDG_CONFIG_HOME"] = os.path.join(home, ".config")
from PyQt5 import QtCore, QtWidgets
from labelme.app import MainWindow

app = QtWidgets.QApplication(sys.argv[:1])
window = MainWindow(file_or_dir=sys.argv[1], output_dir=os.path.join(home, "labels"))
window.resize(1366, 768)
files = window._docks.file_list
canvas = window._canvas_widgets.canvas
marks = {}

class Painted(QtCore.QObject):
    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Paint:
            now = time.time() - t0
            if watched is files.viewport() and files.count() > 0:
                marks.setdefault("list", now)
            if watched is canvas and not canvas.pixmap.isNull():
                marks.setdefault("first_image", now)
            if {"list", "first_image"} <= marks.keys():
                QtCore.QTimer.singleShot(0, app.quit)
        return False

painted = Painted()
files.viewport().installEventFilter(painted)
canvas.installEventFilter(painted)
window.show()
QtCore.QTimer.singleShot(120_000, app.quit)
app.exec_()
marks["rows"] = files.count()
print(json.dumps(marks))
"""


def labelme_folder(project: Path, folder: Path) -> None:
    """The project's Base images, one file name per case, hard links to the same files."""
    folder.mkdir()
    for case in sorted((project / "cases").iterdir()):
        os.link(case / "base.png", folder / f"{case.name}.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labelme", required=True, metavar="PYTHON")
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="make (or reuse) the projects here")
    args = parser.parse_args()
    where = args.keep or Path(tempfile.mkdtemp(prefix="open-vs-labelme-"))
    project, folder = where / f"project{args.cases}", where / f"labelme{args.cases}"
    if not project.exists():
        make_project(project, args.cases, 2048)
        labelme_folder(project, folder)
    upgrade_project(project)  # a project of today's format: no scan before it opens
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    tools: dict[str, tuple[Path | None, Path, str, str]] = {
        "sabre-desk": (HERE, project, CHILD, sys.executable),
        "labelme": (None, folder, LABELME, args.labelme),
    }
    for tool in tools.values():  # warm the file cache
        one_run(*tool)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in tools}
    for rep in range(args.runs):
        order = list(tools) if rep % 2 == 0 else list(tools)[::-1]
        for name in order:
            marks = one_run(*tools[name])
            results[name].append(marks)
            shown = ", ".join(
                f"{k} {marks[k] * 1000:,.0f} ms"
                for k in ("list", "first_image", "pair", "index")
                if k in marks
            )
            print(f"  rep {rep + 1} {name:>10}: {shown}")
    print(f"{args.cases:,} cases, process start → …, medians of {args.runs}:")
    for what in ("list", "first_image"):
        med = {k: statistics.median(r[what] for r in v) for k, v in results.items()}
        print(
            f"  {what:12} sabre-desk {med['sabre-desk'] * 1000:7,.0f} ms, labelme "
            f"{med['labelme'] * 1000:7,.0f} ms: {med['sabre-desk'] / med['labelme']:.2f}×"
        )
    pair = statistics.median(r["pair"] for r in results["sabre-desk"])
    first = statistics.median(r["first_image"] for r in results["labelme"])
    print(f"  pair         sabre-desk {pair * 1000:7,.0f} ms: {pair / first:.2f}× labelme's one")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
