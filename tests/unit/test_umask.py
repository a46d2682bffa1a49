"""Files are written with the permissions the umask allows, so a team sharing a project
folder (or a release) can read each other's work: reviews, history, repair previews,
accepted images and their backups, logs and every file of a release, hard links included."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest


def sabre(home: Path, umask: int, *args: str) -> None:
    env = {**os.environ, "SABRE_DESK_CONFIG_DIR": str(home), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=env,
        preexec_fn=lambda: os.umask(umask),
    )
    assert result.returncode == 0, result.stderr


def modes(root: Path, umask: int) -> dict[str, tuple[int, int]]:
    """Each file and folder under *root*: (its mode, the mode the umask allows for it)."""
    return {
        str(p.relative_to(root)): (
            stat.S_IMODE(p.lstat().st_mode),
            (0o777 if p.is_dir() else 0o666) & ~umask,
        )
        for p in root.rglob("*")
        if not p.name.endswith(".lock")
    }


@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_everything_written_is_as_readable_as_the_umask_allows(tmp_path: Path, umask: int) -> None:
    project, home = tmp_path / "demo", tmp_path / "home"
    sabre(home, umask, "demo", str(project), "--no-open")
    case = "ctx03_wrench_banana"
    sabre(home, umask, "repair", str(project), case, "--role", "edited", "--box",
          "0.3,0.5,0.45,0.7", "--op", "remove", "--engine", "opencv-telea", "--accept",
          "--reviewer", "alice")  # fmt: skip
    review = project / "cases" / case / "reviews" / "alice.json"
    review.write_text(review.read_text().replace('"needs_recheck"', '"keep"'))
    review.chmod(0o666 & ~umask)  # (this test's own write)
    sabre(home, umask, "export", str(project), str(tmp_path / "copied"))
    sabre(home, umask, "export", str(project), str(tmp_path / "linked"), "--link")
    written = {
        f"{label}/{name}": modes_
        for label, root in (
            ("project", project / "cases" / case),
            ("logs", home / "logs"),
            ("copied", tmp_path / "copied"),
            ("linked", tmp_path / "linked"),
        )
        for name, modes_ in modes(root, umask).items()
    }
    assert any("repairs/backups/" in k for k in written) and any("/hf/" in k for k in written)
    assert any(k.startswith("project/reviews/") for k in written)
    assert "logs/sabre-desk.log" in written and "linked/hf" in written
    wrong = {k: (oct(m), oct(e)) for k, (m, e) in written.items() if m != e}
    assert not wrong, f"not as the umask {oct(umask)} allows (mode, expected): {wrong}"


def test_a_linked_export_copies_an_image_only_its_owner_may_read(tmp_path: Path) -> None:
    project, home = tmp_path / "demo", tmp_path / "home"
    sabre(home, 0o022, "demo", str(project), "--no-open")
    case = project / "cases" / "attr02_traffic_light"
    (case / "reviews").mkdir()
    (case / "reviews" / "alice.json").write_text(
        '{"case_id": "attr02_traffic_light", "reviewer": "alice", "decision": "keep"}'
    )
    private = case / "image.png"
    private.chmod(0o600)
    sabre(home, 0o022, "export", str(project), str(tmp_path / "linked"), "--link")
    released = tmp_path / "linked" / "images" / "attr02_traffic_light__image.png"
    assert stat.S_IMODE(released.stat().st_mode) == 0o644  # the team can read the release
    assert released.stat().st_ino != private.stat().st_ino  # a copy, not a link
    assert stat.S_IMODE(private.stat().st_mode) == 0o600  # the project's file is untouched
