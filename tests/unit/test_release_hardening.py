"""What a user notices when an export is killed, a disk fills up, or a release is tampered with.

The exports here run as real `python -m sabre_desk` processes that receive real signals;
the disk is a real read-only folder and a real full tmpfs; the releases are tampered with
the way a person or a broken sync would.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from factories import read_only

from sabre_desk.core.case.project import Project
from sabre_desk.core.release.export import export
from sabre_desk.core.release.release import MANIFEST, seal

# `python -m sabre_desk ARGS` with each image copy slowed down, so that a signal
# deterministically lands in the middle of an export of the small demo project.
SLOW_CLI = """
import runpy, sys, time
from sabre_desk.core.release import export as export_module
copy = export_module._copy_image
def slow(*args, **kwargs):
    time.sleep(0.25)
    return copy(*args, **kwargs)
export_module._copy_image = slow
runpy.run_module("sabre_desk", run_name="__main__", alter_sys=True)
"""


def cli(*args: str | Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sabre_desk", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def slow_export(project: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", SLOW_CLI, "export", str(project), str(out), "--reviewer", "alice"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def partials(parent: Path) -> list[Path]:
    """Partial folders and their lock files: everything an export may leave beside OUT."""
    return sorted(p for p in parent.iterdir() if ".partial-" in p.name)


def wait_mid_export(out: Path, proc: subprocess.Popen[str], images: int = 2) -> Path:
    """The partial folder of *proc*'s export to *out*, once it holds *images* images."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for folder in out.parent.glob(f".{out.name}.partial-*"):
            if folder.is_dir() and len(list((folder / "images").glob("*"))) >= images:
                return folder
        if proc.poll() is not None:
            pytest.fail(f"the export ended before it could be interrupted: {proc.communicate()}")
        time.sleep(0.02)
    proc.kill()
    pytest.fail("no partial folder with images appeared")


@pytest.fixture
def kept(demo_project: Path) -> Path:
    """The demo project with every case kept by alice."""
    for case in (demo_project / "cases").iterdir():
        (case / "reviews").mkdir(exist_ok=True)
        (case / "reviews" / "alice.json").write_text(
            json.dumps({"case_id": case.name, "reviewer": "alice", "decision": "keep"})
        )
    return demo_project


@pytest.fixture
def release(kept: Path, tmp_path: Path) -> Path:
    out = tmp_path / "release"
    export(Project.open(kept, "alice"), out)
    return out


def test_sigterm_mid_export_removes_the_partial_folder(kept: Path, tmp_path: Path) -> None:
    parent = tmp_path / "out"
    proc = slow_export(kept, parent / "release")
    wait_mid_export(parent / "release", proc)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "Traceback" not in stderr
    assert partials(parent) == []  # neither the folder nor its lock file
    assert not (parent / "release").exists()


def test_the_next_export_removes_only_what_killed_exports_left(kept: Path, tmp_path: Path) -> None:
    parent = tmp_path / "out"
    parent.mkdir()
    foreign = parent / ".notes.partial-abcd1234"  # named like one, but not an export's
    foreign.mkdir()
    (foreign / "mine.txt").write_text("keep me")
    running = slow_export(kept, parent / "running")
    alive = wait_mid_export(parent / "running", running)
    running.send_signal(signal.SIGSTOP)  # alive, holding its lock, not progressing
    try:
        killed = slow_export(kept, parent / "killed")
        dead = wait_mid_export(parent / "killed", killed)
        killed.kill()
        killed.wait(timeout=60)
        assert dead.is_dir() and list((dead / "images").iterdir())  # the kill left it
        done = cli("export", kept, parent / "release", "--reviewer", "alice")
        assert done.returncode == 0, done.stderr
        assert f"removed {dead}: a partial folder left by an export that was killed" in (
            done.stdout
        )
        assert not dead.exists()
        assert alive.is_dir() and list((alive / "images").iterdir())
        assert (foreign / "mine.txt").read_text() == "keep me"
    finally:
        running.send_signal(signal.SIGCONT)
    _, stderr = running.communicate(timeout=120)
    assert running.returncode == 0, stderr
    assert partials(parent) == [foreign]  # no folder or lock file of any export is left
    for name in ("release", "running"):
        assert cli("verify", parent / name).returncode == 0


def test_released_images_are_copies_unless_linked(kept: Path, tmp_path: Path) -> None:
    source = kept / "cases" / "ctx01_tape_bagel" / "base.png"
    original = source.read_bytes()
    assert cli("export", kept, tmp_path / "copied", "--reviewer", "alice").returncode == 0
    released = tmp_path / "copied" / "images" / "ctx01_tape_bagel__base.png"
    assert released.read_bytes() == original
    with released.open("r+b") as fh:  # an in-place edit, as an image editor may do
        fh.seek(100)
        fh.write(b"\x00" * 16)
    assert source.read_bytes() == original  # the project is untouched
    linked = cli("export", kept, tmp_path / "linked", "--reviewer", "alice", "--link")
    assert linked.returncode == 0, linked.stderr
    released = tmp_path / "linked" / "images" / "ctx01_tape_bagel__base.png"
    assert released.stat().st_ino == source.stat().st_ino  # --link: the same file
    help_text = cli("export", "--help").stdout
    assert "--link" in help_text and "also changes the project's" in help_text


def verify_lines(out: Path) -> tuple[int, list[str]]:
    done = cli("verify", out)
    return done.returncode, done.stdout.splitlines()


def reseal(out: Path) -> None:
    """Make release.json agree with the (tampered) manifest, as a careless tool would."""
    release = json.loads((out / "release.json").read_text())
    release.pop("release_sha256", None)
    release["root_sha256"] = hashlib.sha256((out / MANIFEST).read_bytes()).hexdigest()
    (out / "release.json").write_text(json.dumps(seal(release), indent=2))


def test_verify_refuses_manifest_names_outside_the_release(release: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not part of the release\n")
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    names = ["../secret.txt", str(secret), "images\\..\\..\\secret.txt", "images//x.png"]
    with (release / MANIFEST).open("a") as fh:
        fh.writelines(f"{digest}  {name}\n" for name in names)
    reseal(release)
    code, lines = verify_lines(release)
    assert code == 1
    refused = [line for line in lines if line.startswith("PROBLEM") and "refused" in line]
    assert len(refused) == 4
    for name, line in zip(names, refused, strict=True):
        assert repr(name) in line
    assert "'..'" in refused[0] and "absolute" in refused[1] and "backslash" in refused[2]


def test_verify_refuses_links_and_never_follows_them(release: Path, tmp_path: Path) -> None:
    image = next((release / "images").iterdir())
    twin = tmp_path / "twin.png"
    shutil.copyfile(image, twin)  # identical bytes: following the link would "match"
    image.unlink()
    image.symlink_to(twin)
    folder = tmp_path / "vlm-copy"
    shutil.copytree(release / "vlmevalkit", folder)
    shutil.rmtree(release / "vlmevalkit")
    (release / "vlmevalkit").symlink_to(folder, target_is_directory=True)
    code, lines = verify_lines(release)
    assert code == 1
    assert f"PROBLEM  images/{image.name}: is a symbolic link" in "\n".join(lines)
    assert "PROBLEM  vlmevalkit: is a symbolic link" in "\n".join(lines)
    assert not any(line.startswith(("OK", "MISSING")) for line in lines)


def test_a_missing_or_special_release_json_fails_verify(release: Path) -> None:
    (release / "release.json").unlink()
    code, lines = verify_lines(release)
    assert code == 1
    assert any(line.startswith("PROBLEM  release.json: is missing") for line in lines)
    os.mkfifo(release / "release.json")  # reading it whole would block forever
    code, lines = verify_lines(release)
    assert code == 1
    assert any("release.json: is a FIFO" in line for line in lines)


def test_an_altered_release_json_fails_verify(release: Path) -> None:
    path = release / "release.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "questions": data["questions"] + 1}, indent=2))
    code, lines = verify_lines(release)
    assert code == 1
    assert "PROBLEM  release.json: its content does not match its release_sha256" in lines[0]
    # re-sealed by hand: the counts still disagree with the files they describe
    forged = {k: v for k, v in data.items() if k != "release_sha256"}
    path.write_text(json.dumps(seal({**forged, "cases": 99, "images": 1}), indent=2))
    code, lines = verify_lines(release)
    assert code == 1
    assert any("release.json: says cases 99, but benchmark.jsonl has" in line for line in lines)
    assert any("release.json: says images 1, but MANIFEST.sha256 has" in line for line in lines)


def test_a_broken_benchmark_line_is_named_by_verify_and_score(
    release: Path, tmp_path: Path
) -> None:
    benchmark = release / "benchmark.jsonl"
    rows = benchmark.read_text().splitlines()
    rows[2] = "[1, 2, 3]"
    benchmark.write_text("\n".join(rows) + "\n")
    manifest = (release / MANIFEST).read_text().splitlines()
    digest = hashlib.sha256(benchmark.read_bytes()).hexdigest()
    manifest = [
        f"{digest}  benchmark.jsonl" if m.endswith("  benchmark.jsonl") else m for m in manifest
    ]
    (release / MANIFEST).write_text("\n".join(manifest) + "\n")
    reseal(release)  # a consistent forgery: only the row itself is wrong
    code, lines = verify_lines(release)
    assert code == 1
    assert "PROBLEM  benchmark.jsonl: line 3 is not a JSON object" in lines
    preds = tmp_path / "preds.jsonl"
    preds.write_text('{"question_id": "x", "response": "yes"}\n')
    scored = cli("score", release, preds)
    assert scored.returncode == 1
    assert scored.stderr.strip().endswith("benchmark.jsonl: line 3 is not a JSON object")
    assert "Traceback" not in scored.stderr


def test_score_does_not_wait_on_a_fifo(release: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "preds.jsonl"
    os.mkfifo(fifo)  # nobody ever writes to it
    scored = cli("score", release, fifo, timeout=30)
    assert scored.returncode == 1
    assert "preds.jsonl: is a FIFO (named pipe), not a regular file" in scored.stderr


def test_export_into_a_read_only_folder_is_one_line(kept: Path, tmp_path: Path) -> None:
    parent = tmp_path / "shelf"
    parent.mkdir()
    with read_only(parent):
        done = cli("export", kept, parent / "release", "--reviewer", "alice")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"sabre-desk: error: {parent}: cannot write in this folder (")
    assert list(parent.iterdir()) == []


@contextlib.contextmanager
def small_disk(path: Path, size: int) -> Iterator[Path]:
    """A real, nearly full filesystem of *size* bytes (tmpfs), or skip."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root")
    path.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def test_export_onto_a_full_disk_is_one_line(kept: Path, release: Path, tmp_path: Path) -> None:
    needed = sum(p.stat().st_size for p in release.rglob("*") if p.is_file())
    with small_disk(tmp_path / "usb", needed // 2) as disk:
        done = cli("export", kept, disk / "release", "--reviewer", "alice")
        left = list(disk.iterdir())
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"sabre-desk: error: {disk / 'release'}: cannot write ")
    assert "(No space left on device); nothing was exported" in line
    assert left == []  # the partial folder and its lock are gone


def _rehash(out: Path, *changed: str) -> None:
    """Put the new digests of *changed* files in the manifest and reseal: a release forged
    so that every hash agrees, as a careless tool would leave it."""
    lines = (out / MANIFEST).read_text().splitlines()
    digests = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in changed}
    lines = [
        f"{digests[name]}  {name}" if (name := m.split("  ", 1)[1]) in digests else m for m in lines
    ]
    (out / MANIFEST).write_text("\n".join(lines) + "\n")
    reseal(out)


def test_a_release_with_an_image_that_does_not_decode_fails_verify(release: Path) -> None:
    image = sorted((release / "images").iterdir())[0]
    data = image.read_bytes()
    image.write_bytes(data[: len(data) // 3])
    copies = [p for p in (release / "hf").rglob(image.suffix.join(["*", ""])) if p.samefile(image)]
    _rehash(release, f"images/{image.name}", *(p.relative_to(release).as_posix() for p in copies))
    code, lines = verify_lines(release)
    assert code == 1
    assert (
        f"PROBLEM  images/{image.name}: cannot decode image: image file is truncated"
        in "\n".join(lines)
    )
    done = cli("verify", release, "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["ok"] is False
    assert any(f"images/{image.name}" in p and "truncated" in p for p in report["problems"])


def test_a_row_naming_an_image_the_release_lacks_fails_verify(release: Path) -> None:
    benchmark = release / "benchmark.jsonl"
    rows = [json.loads(line) for line in benchmark.read_text().splitlines()]
    rows[0]["image"] = "images/nowhere.png"
    benchmark.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _rehash(release, "benchmark.jsonl")
    code, lines = verify_lines(release)
    assert code == 1
    assert (
        "PROBLEM  benchmark.jsonl: line 1 names image 'images/nowhere.png', which the release "
        "does not hold" in lines
    )


def test_verify_and_export_speak_json(kept: Path, tmp_path: Path) -> None:
    done = cli("export", kept, tmp_path / "rel", "--reviewer", "alice", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["cases"] == 13 and summary["left_out"] == {} and summary["questions"] > 0
    done = cli("verify", tmp_path / "rel", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["ok"] is True
    assert report["images_decoded"] == sum(
        1 for line in (tmp_path / "rel" / MANIFEST).read_text().splitlines() if ".png" in line
    )
    assert report["rows_checked"] == summary["questions"]
    assert report["root_sha256"] == summary["root_sha256"]


def test_verify_of_a_folder_that_is_no_release_stops_at_once(tmp_path: Path) -> None:
    """A home folder given by mistake: two lines saying what is missing, and none of the
    thousands of odd files below it (a FIFO, a link out) is reached."""
    home = tmp_path / "home"
    deep = home / "a" / "b" / "c"
    deep.mkdir(parents=True)
    os.mkfifo(deep / "pipe")  # reading it would block; walking would name it
    (deep / "out").symlink_to("/etc")
    for n in range(50):
        (deep / f"file{n}.txt").write_text("x")
    code, lines = verify_lines(home)
    assert code == 1
    assert [line.split(":")[0] for line in lines[:2]] == [
        "PROBLEM  release.json",
        "PROBLEM  MANIFEST.sha256",
    ]
    assert not any("pipe" in line or "out" in line.split(":")[0] for line in lines)
