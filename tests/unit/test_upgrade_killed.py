"""`upgrade` killed at every step (each file put in place) never leaves a project that
validates while half-upgraded: either every file is new, or `validate` refuses it and says
to run `upgrade`, and that run finishes it."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from sabre_desk.cli import main
from sabre_desk.core.case.manifest import PROJECT_VERSION

FIXTURES = Path(__file__).parent.parent / "fixtures" / "projects"
SPECS = [
    f"cases/{c}/spec.json"
    for c in (
        "attr01_red_triangles",
        "attr02_blue_circles",
        "spatial01_desk",
        "spatial02_above_red",
    )
]

#: Runs `upgrade` and is SIGKILLed as it puts its N-th file in place (a rename or a link).
KILLER = """
import os, signal, sys
root, nth = sys.argv[1], int(sys.argv[2])
calls = {"n": 0}
for name in ("replace", "rename", "link"):
    real = getattr(os, name)
    def wrapped(src, dst, *args, _real=real, **kwargs):
        calls["n"] += 1
        if calls["n"] == nth:
            os.kill(os.getpid(), signal.SIGKILL)
        return _real(src, dst, *args, **kwargs)
    setattr(os, name, wrapped)
from sabre_desk.cli import main
sys.exit(main(["upgrade", root]))
"""


def states(root: Path, original: dict[str, bytes]) -> dict[str, str]:
    out = {}
    for rel in [*SPECS, "sabre-project.json"]:
        raw = (root / rel).read_bytes()
        if raw == original[rel]:
            out[rel] = "old"
            continue
        data = json.loads(raw)  # never a torn file
        assert data.get("upgraded") or data.get("version") == PROJECT_VERSION, rel
        out[rel] = "new"
    return out


def validate(root: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["validate", str(root), "--reviewer", "alice"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.stress
def test_a_kill_at_any_step_leaves_old_or_new_and_the_rerun_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FIXTURES / "format1-earlier-primers"
    mixed_refused = 0
    nth = 1
    while True:
        root = Path(shutil.copytree(source, tmp_path / f"run{nth}"))
        original = {rel: (root / rel).read_bytes() for rel in [*SPECS, "sabre-project.json"]}
        killed = subprocess.run(
            [sys.executable, "-c", KILLER, str(root), str(nth)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        after = states(root, original)
        code, text = validate(root, capsys)
        if set(after.values()) != {"new"} or killed.returncode != 0:
            # not finished: whatever is new, validate must not call it valid
            assert code != 0 and "sabre-desk upgrade" in text, (nth, after, text)
            if "stopped part-way" in text:
                mixed_refused += 1
        if killed.returncode == 0:
            assert code == 0 and "all valid" in text, text
            break
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert main(["upgrade", str(root)]) == 0
        capsys.readouterr()
        assert set(states(root, original).values()) == {"new"}
        code, text = validate(root, capsys)
        assert code == 0 and "all valid" in text, (nth, text)
        nth += 1
    assert nth > len(SPECS) + 1  # every file's step was killed once
    assert mixed_refused > 0
