"""`sabre-desk init` makes a whole project or none: a kill at any moment never leaves a
folder that is half a project, and the same folder takes a project at once after."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from factories import run_cli

INIT_LOOP = """
import sys
from pathlib import Path
from sabre_desk.core.making.new_project import init_project
root = Path(sys.argv[1])
print("ready", flush=True)
for n in range(100_000):
    init_project(root / f"p{n}", primer="context")
"""


def test_a_killed_init_leaves_whole_projects_or_free_names(tmp_path: Path) -> None:
    for delay in (0.05, 0.11, 0.17, 0.23, 0.31):
        root = tmp_path / f"run{delay}"
        root.mkdir()
        proc = subprocess.Popen(
            [sys.executable, "-c", INIT_LOOP, str(root)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        made = sorted((p for p in root.iterdir() if not p.name.startswith(".")), key=str)
        for folder in made:  # every folder under a project's name is a whole project
            manifest = json.loads((folder / "sabre-project.json").read_text())
            assert manifest["primer"] == "context" and (folder / "cases").is_dir()
        nxt = root / f"p{len(made)}"
        again = run_cli("init", str(nxt), "--primer", "context", home=tmp_path)
        assert again.returncode == 0, again.stderr
        assert (nxt / "sabre-project.json").is_file()
        assert not [p for p in root.iterdir() if p.name.startswith(".")]  # leftovers cleared


def test_a_folder_a_stopped_init_left_takes_a_project(tmp_path: Path) -> None:
    # What an init stopped between its two writes left in a folder the user had made:
    # an empty cases/ and no manifest. The folder is still free for a project.
    dest = tmp_path / "mine"
    (dest / "cases").mkdir(parents=True)
    made = run_cli("init", str(dest), home=tmp_path)
    assert made.returncode == 0, made.stderr
    assert (dest / "sabre-project.json").is_file()
    # a folder with anything else in it is still refused, and left as it was
    other = tmp_path / "other"
    (other / "cases" / "c1").mkdir(parents=True)
    refused = run_cli("init", str(other), home=tmp_path)
    assert refused.returncode != 0 and "not empty" in refused.stderr
    assert not (other / "sabre-project.json").exists()
