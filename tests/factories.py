"""Small builders for real test files: PNG bytes, specs, random images, tree snapshots."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
from PIL import Image


def _skip(reason: str) -> NoReturn:
    """Skip the test that asked for a filesystem this machine cannot give. pytest is
    imported here only: packaging/smoke.py uses this module where pytest is not installed."""
    import pytest

    pytest.skip(reason)


def png_bytes(
    width: int = 64,
    height: int = 48,
    color: tuple[int, int, int] = (90, 140, 200),
    mode: str = "RGB",
) -> bytes:
    img = Image.new(mode, (width, height), color if mode == "RGB" else None)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def yes_no_spec(concept_id: str = "c1", **overrides: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "concept_id": concept_id,
        "pressure_test_type": "custom_yes_no",  # no shipped primer governs it
        "objective": "test",
        "generation_mode": "paired_edit",
        "base_prompt": "a bench with tape",
        "edit_prompt": "replace the tape with a bagel",
        "task_attributes": [
            {"name": "source_entity", "value": "tape"},
            {"name": "target_entity", "value": "bagel"},
        ],
        "questions": [
            {
                "probe_id": "base_source",
                "image_role": "base",
                "question_type": "yes_no",
                "prompt": "Is tape visible?",
                "answer": "yes",
                "eval_type": "yes_no_exact",
            },
            {
                "probe_id": "edited_target",
                "image_role": "edited",
                "question_type": "yes_no",
                "prompt": "Is a bagel visible?",
                "answer": "yes",
                "eval_type": "yes_no_exact",
            },
        ],
        "review_targets": [],
        "generation_notes": [],
    }
    spec.update(overrides)
    return spec


def rgb_array(width: int, height: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, (height, width, 3), dtype=np.uint8)


def tree_snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime_ns) of every file under root, to prove nothing was written."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            st = path.stat()
            out[str(path.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


@contextlib.contextmanager
def read_only(root: Path) -> Iterator[None]:
    """Make a folder tree really unwritable, also for root (immutable flag)."""
    dirs = [root, *[p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()]]
    if os.geteuid() != 0:
        for d in dirs:
            d.chmod(0o555)
        try:
            yield
        finally:
            for d in dirs:
                d.chmod(0o755)
        return
    if shutil.which("chattr") is None:
        _skip("chattr is needed to make a folder read-only for root")
    done = subprocess.run(["chattr", "+i", *map(str, dirs)], capture_output=True)
    if done.returncode != 0:
        _skip(f"this filesystem has no immutable flag: {done.stderr.decode().strip()}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", *map(str, dirs)], check=True)


@contextlib.contextmanager
def small_disk(where: Path, size_kb: int = 256) -> Iterator[Path]:
    """A real, tiny filesystem (tmpfs) mounted at *where*, to fill up for real.

    Needs root (CI and the development machines run as root); skips elsewhere.
    """
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or shutil.which("mount") is None:
        _skip("mounting a small tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(where)],
        capture_output=True,
    )
    if done.returncode != 0:
        _skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill_disk(folder: Path, leave: int = 0) -> None:
    """Fill the filesystem of *folder* until at most *leave* bytes are free."""
    filler = folder / ".filler"
    with filler.open("ab") as fh:
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
            if free <= leave:
                return
            try:
                fh.write(b"\0" * max(1, min(free - leave, 1 << 20)))
                fh.flush()
            except OSError:
                return


def run_cli(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The command line as a user runs it: a real process with its own settings folder,
    Qt offscreen, a time limit (a command that would block fails the test, not the run)."""
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home), "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "sabre_desk", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def file_sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_review(
    folder: Path,
    reviewer: str,
    decision: str | None,
    at: str = "2026-11-29T15:00:00Z",
    **fields: Any,
) -> Path:
    """A review as the app writes it (format 2): the decision bound to the case's images
    as they are now."""
    reviews = folder / "reviews"
    reviews.mkdir(exist_ok=True)
    images = [p for p in folder.iterdir() if p.stem in ("base", "edited", "image") and p.is_file()]
    data = {
        "format": "sabre-desk-review",
        "version": 2,
        "case_id": folder.name,
        "reviewer": reviewer,
        "decision": decision,
        "decided_on": {p.stem: file_sha(p) for p in images} if decision else {},
        "decided_at": at if decision else None,
        **fields,
    }
    path = reviews / f"{reviewer}.json"
    path.write_text(json.dumps(data))
    return path


#: The counts of ``every_kind_of_case`` seen by alice, as every surface must report them.
EVERY_KIND_COUNTS = {
    "cases": 13,
    "valid": 12,
    "invalid": 1,
    "decided_by_me": 5,
    "decided_by_anyone": 6,
    "stale": 1,
    "disputed": 1,
    "with_final": 5,
    "final_keep": 4,
    "left_out": {"disputed": 1, "final_other": 1, "invalid": 1, "not_decided": 5, "stale": 1},
}
TRUNCATED_CASE = "tex02_board_marble"
SOLVED_CASE = "ctx03_wrench_banana"


def every_kind_of_case(demo: Path) -> Path:
    """The demo project with a case of every kind (alice is "me"): mine, another's, one the
    filter solved, a stale decision, a dispute, an adjudicated dispute, a final decision
    that is not Keep, a kept case whose image is truncated, and five nobody decided."""
    cases = demo / "cases"
    manifest = json.loads((demo / "sabre-project.json").read_text())
    manifest["adjudicators"] = ["carol"]
    (demo / "sabre-project.json").write_text(json.dumps(manifest))
    write_review(cases / "ctx01_tape_bagel", "alice", "keep")
    write_review(cases / "ctx02_apple_tennis_ball", "bob", "keep")
    screening = json.loads((cases / SOLVED_CASE / "screening.json").read_text())
    for result in screening["runs"][-1]["results"].values():
        result["response"], result["correct"] = result["answer"].capitalize() + ".", True
    (cases / SOLVED_CASE / "screening.json").write_text(json.dumps(screening))
    write_review(cases / SOLVED_CASE, "alice", "keep")
    write_review(cases / "attr01_red_triangles", "alice", "keep")
    edited = cases / "attr01_red_triangles" / "edited.png"
    with Image.open(edited) as img:
        repaired = img.convert("RGB")
    repaired.putpixel((0, 0), (9, 9, 9))
    repaired.save(edited)  # replaced since (a repair): alice's decision is stale
    write_review(cases / "attr02_traffic_light", "alice", "keep")
    write_review(cases / "attr02_traffic_light", "bob", "edit_failed")
    write_review(cases / "count01_apples", "alice", "keep")
    write_review(cases / "count01_apples", "bob", "scene_changed")
    write_review(cases / "count01_apples", "carol", "keep", adjudication=True)
    write_review(cases / "count02_bottles", "alice", "edit_failed")
    truncated = cases / TRUNCATED_CASE / "edited.png"
    data = truncated.read_bytes()
    write_review(cases / TRUNCATED_CASE, "alice", "keep")
    truncated.write_bytes(data[: len(data) // 3])
    # the review was bound to the whole image: bind it to the cut one, as a reviewer who
    # kept the case after the file was damaged would have
    write_review(cases / TRUNCATED_CASE, "alice", "keep")
    return demo


def release_of(demo: Path, folder: Path, reviewer: str = "alice") -> Path:
    """Every case of the project at *demo* kept by *reviewer*, exported to *folder*."""
    from sabre_desk.cli import main
    from sabre_desk.core.case.project import Project
    from sabre_desk.core.case.review import Decision

    project = Project.open(demo, reviewer)
    for entry in project.entries:
        case = project.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        project.save_review(case)
    assert main(["--reviewer", reviewer, "export", str(demo), str(folder)]) == 0
    return folder
