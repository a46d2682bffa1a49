"""`upgrade` killed (SIGKILL, a real process) at every step — each file written, renamed,
linked or removed — never leaves a project that validates while half-upgraded: the project
is old, or new, or carries the upgrade's journal, which makes `validate` and every command
that opens the project refuse it and say to run `sabre-desk upgrade`; that run always ends
in the new project with every review, image, screening record and history byte-identical.
"""

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
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.upgrade_journal import UpgradeUnderWayError
from sabre_desk.ground.storage import TEMP_SUFFIX

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
REWRITTEN = [*SPECS, "sabre-project.json"]
JOURNAL = ".sabre-desk/upgrade-journal.json"

#: Runs `upgrade` and SIGKILLs itself as it makes its N-th call of CALLS (comma-separated
#: names in os) whose path arguments contain MATCH ("" for any): the call never happens.
KILLER = """
import os, signal, sys
root, nth, calls, match = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
seen = {"n": 0}
for name in calls.split(","):
    real = getattr(os, name)
    def wrapped(*args, _real=real, **kwargs):
        if any(match in os.fsdecode(a) for a in args if isinstance(a, (str, bytes, os.PathLike))):
            seen["n"] += 1
            if seen["n"] == nth:
                os.kill(os.getpid(), signal.SIGKILL)
        return _real(*args, **kwargs)
    setattr(os, name, wrapped)
from sabre_desk.cli import main
sys.exit(main(["upgrade", root]))
"""
EVERY_STEP = "replace,rename,link,unlink,rmdir"


def untouched(root: Path) -> dict[str, bytes]:
    """What an upgrade never changes: reviews, images, screening records, history."""
    kept = {}
    for pattern in (
        "cases/*/reviews/*.json",
        "cases/*/*.png",
        "cases/*/screening.json",
        "cases/*/history.jsonl",
    ):
        kept.update({str(p.relative_to(root)): p.read_bytes() for p in sorted(root.glob(pattern))})
    return kept


def states(root: Path, original: dict[str, bytes]) -> dict[str, str]:
    """Each rewritten file: its old bytes or a whole new document, never anything else."""
    out = {}
    for rel in REWRITTEN:
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


def kill_at(root: Path, nth: int, calls: str, match: str = "") -> int:
    killed = subprocess.run(
        [sys.executable, "-c", KILLER, str(root), str(nth), calls, match],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert killed.returncode in (0, -signal.SIGKILL), killed.stderr
    return killed.returncode


def check_killed_then_rerun(
    root: Path,
    original: dict[str, bytes],
    kept: dict[str, bytes],
    capsys: pytest.CaptureFixture[str],
) -> str:
    """After a kill: never half-upgraded and valid; the rerun ends in the new project.
    Returns what the kill left: "old", "new" or "journal"."""
    after = states(root, original)
    journal = (root / JOURNAL).exists()
    code, text = validate(root, capsys)
    if set(after.values()) == {"old", "new"}:
        assert journal, (after, "a mixed project without its journal")
    if journal:  # refused by validate, by every command, by opening it at all
        assert code != 0 and "stopped part-way" in text and "sabre-desk upgrade" in text, text
        assert main(["stats", str(root), "--reviewer", "alice"]) != 0
        assert "sabre-desk upgrade" in capsys.readouterr().err
        with pytest.raises(UpgradeUnderWayError, match="sabre-desk upgrade"):
            Project.open(root, "alice")
        left = "journal"
    elif set(after.values()) == {"new"}:
        assert code == 0 and "all valid" in text, text
        left = "new"
    else:  # the old project: this one needs the upgrade, and says so
        assert code != 0 and "sabre-desk upgrade" in text, text
        left = "old"
    assert main(["upgrade", str(root)]) == 0
    capsys.readouterr()
    assert set(states(root, original).values()) == {"new"}
    assert untouched(root) == kept
    code, text = validate(root, capsys)
    assert code == 0 and "all valid" in text, text
    assert not (root / JOURNAL).exists()
    assert not list(root.rglob(f"*{TEMP_SUFFIX}")) and not list(root.rglob(".staged"))
    for backup in (root / ".sabre-desk").glob("upgrade-backup-*"):
        assert json.loads((backup / "upgrade.json").read_text())["finished"] is True
    return left


def fresh(tmp_path: Path, name: str) -> tuple[Path, dict[str, bytes], dict[str, bytes]]:
    root = Path(shutil.copytree(FIXTURES / "format1-earlier-primers", tmp_path / name))
    return root, {rel: (root / rel).read_bytes() for rel in REWRITTEN}, untouched(root)


@pytest.mark.parametrize(
    ("nth", "calls", "match", "left"),
    [
        (3, "replace", ".staged", "old"),  # preparing aside: the project is untouched
        (2, "replace", "/proj/cases/", "journal"),  # one spec switched, three to go
        (1, "unlink", JOURNAL.rsplit("/", 1)[1], "journal"),  # all switched, journal not gone
    ],
    ids=["preparing", "switching", "closing"],
)
def test_a_kill_while_preparing_switching_or_closing_leaves_old_journal_or_new(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    nth: int,
    calls: str,
    match: str,
    left: str,
) -> None:
    root, original, kept = fresh(tmp_path, "proj")
    assert kill_at(root, nth, calls, match) == -signal.SIGKILL
    assert check_killed_then_rerun(root, original, kept, capsys) == left


@pytest.mark.stress
def test_a_kill_at_every_step_leaves_old_or_new_and_the_rerun_finishes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: dict[str, int] = {}
    nth = 1
    while True:
        root, original, kept = fresh(tmp_path, f"run{nth}")
        if kill_at(root, nth, EVERY_STEP) == 0:  # no N-th step: the run went through
            assert states(root, original) == dict.fromkeys(REWRITTEN, "new")
            assert untouched(root) == kept
            break
        left = check_killed_then_rerun(root, original, kept, capsys)
        seen[left] = seen.get(left, 0) + 1
        nth += 1
    assert nth > 2 * len(REWRITTEN)  # every file prepared and switched was killed once
    assert seen.get("journal", 0) >= len(REWRITTEN) and seen.get("old", 0) > 0, seen
