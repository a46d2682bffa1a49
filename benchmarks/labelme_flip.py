"""labelme flipping through a folder of images, for a memory comparison: run by
``preview_cache.py --labelme PYTHON`` with the Python of a separate environment where
labelme is installed (``python3 -m venv /tmp/labelme-venv && /tmp/labelme-venv/bin/pip
install labelme``); labelme is no dependency of this project.

Opens FOLDER in labelme's own main window (offscreen), goes to the next image COUNT times
as its "Next Image" action does, letting each load and paint, and prints this process's
peak resident memory in MB. labelme's settings and anything it would write go to a
temporary home folder.

Usage: PYTHON labelme_flip.py FOLDER COUNT
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def peak_rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def main() -> None:
    folder, count = sys.argv[1], int(sys.argv[2])
    home = tempfile.mkdtemp(prefix="labelme-home-")
    os.environ["HOME"] = home  # labelme's ~/.labelmerc and Qt settings, not the user's
    os.environ["XDG_CONFIG_HOME"] = str(Path(home) / ".config")

    from labelme.app import MainWindow
    from PyQt5 import QtWidgets

    app = QtWidgets.QApplication(sys.argv[:1])
    window = MainWindow(file_or_dir=folder, output_dir=str(Path(home) / "labels"))
    window.resize(1560, 900)
    window.show()
    app.processEvents()
    files = window._docks.file_list
    files.setCurrentRow(0)
    app.processEvents()
    shown = 1
    while shown < count and files.currentRow() + 1 < files.count():
        window._open_next_image()
        app.processEvents()
        shown += 1
    if shown < count or window._image_path is None:
        raise SystemExit(f"labelme showed {shown} of {count} images")
    print(f"{shown} {peak_rss_mb():.1f}")


if __name__ == "__main__":
    main()
