"""Starting the window loads only what its first paint needs: OpenCV, the model clients and
the JIT compiler load with the first image, repair or model call, not with the window."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

#: Loaded later, on demand: each costs a noticeable part of a second at start-up.
DEFERRED = ("cv2", "google.genai", "numba")


def modules_after(statement: str) -> set[str]:
    code = f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "entry",
    [
        "import sabre_desk.gui_main",  # the windowed launcher
        "import sabre_desk.cli",  # `sabre-desk open`
        "import sabre_desk.gui.app",  # what either imports to open the window
    ],
)
def test_the_window_entry_does_not_load_what_its_first_paint_does_not_need(entry: str) -> None:
    loaded = modules_after(entry)
    assert not [name for name in DEFERRED if name in loaded]


def test_a_window_built_and_shown_has_not_loaded_opencv_yet(tmp_path) -> None:
    statement = (
        "import os\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        f"os.environ['SABRE_DESK_CONFIG_DIR'] = {str(tmp_path)!r}\n"
        "from sabre_desk.gui.app import make_app\n"
        "from sabre_desk.gui.main_window import MainWindow\n"
        "from sabre_desk.settings import Settings\n"
        "app = make_app()\n"
        "window = MainWindow('alice', Settings())\n"
        "window.show()\n"
        "app.processEvents()"
    )
    assert "cv2" not in modules_after(statement)
