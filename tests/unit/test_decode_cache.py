"""Validity decodes every image, once per file: the verdict is remembered by the file's
identity, so a project is checked in full the first time and cheaply after."""

from __future__ import annotations

from pathlib import Path

import pytest
from factories import png_bytes

from sabre_desk.core.case import decode_cache
from sabre_desk.core.case.decode_cache import DecodeCache
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project

IMAGE_ROLES = ("base", "edited", "image")


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every full decode validity asks for, in order."""
    seen: list[Path] = []
    real = decode_cache.check_decodes

    def counting(path: Path) -> None:
        seen.append(Path(path))
        real(path)

    monkeypatch.setattr(decode_cache, "check_decodes", counting)
    return seen


def test_each_image_is_decoded_once_until_it_changes(
    demo_project: Path, decodes: list[Path]
) -> None:
    project = Project.open(demo_project, "alice")
    assert validate_project(project).valid
    first = len(decodes)
    images = [p for p in (demo_project / "cases").rglob("*.*") if p.stem in IMAGE_ROLES]
    assert first == len(images) > 13  # every image of every case, decoded in full
    assert validate_project(Project.open(demo_project, "alice")).valid
    assert len(decodes) == first  # nothing decoded twice
    edited = demo_project / "cases" / "tex01_mug_brick" / "edited.png"
    data = edited.read_bytes()
    edited.write_bytes(data[: len(data) // 2])  # the same name, new bytes: a new identity
    report = validate_project(Project.open(demo_project, "alice"))
    assert decodes[first:] == [edited]
    (bad,) = report.invalid_cases
    assert bad.case_id == "tex01_mug_brick" and "truncated" in (bad.reason or "")
    # the failure is remembered too, and is what the window marks before opening the case
    again = validate_project(Project.open(demo_project, "alice"))
    assert len(decodes) == first + 1 and not again.valid
    cache = DecodeCache.for_project(demo_project)
    assert [(p, "truncated" in r) for p, r in cache.known_failures()] == [(edited, True)]


def test_a_damaged_cache_is_a_miss_never_an_error(
    demo_project: Path, decodes: list[Path], tmp_path: Path
) -> None:
    cache = DecodeCache.for_project(demo_project)
    assert cache.file is not None
    cache.file.parent.mkdir(parents=True, exist_ok=True)
    cache.file.write_bytes(b"this is not a database" * 100)
    assert validate_project(Project.open(demo_project, "alice")).valid
    assert decodes  # decoded, since nothing could be remembered
    no_cache = DecodeCache.disabled(demo_project)
    good = demo_project / "cases" / "ctx01_tape_bagel" / "base.png"
    no_cache.check(good)
    no_cache.check(good)
    assert decodes.count(good) >= 3  # disabled: every check decodes


def test_checking_a_project_writes_nothing_into_it(make_project, add_case) -> None:
    root = make_project()
    add_case(root, "c1", images={"base.png": png_bytes(), "edited.png": png_bytes()[:40]})
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    report = validate_project(Project.open(root, "alice"))
    assert not report.valid
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before


def test_validate_no_cache_decodes_every_image_again(
    demo_project: Path, decodes: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    from sabre_desk.cli import main

    assert main(["validate", str(demo_project), "--reviewer", "alice"]) == 0
    first = len(decodes)
    assert main(["validate", str(demo_project), "--reviewer", "alice"]) == 0
    assert len(decodes) == first
    assert main(["validate", str(demo_project), "--reviewer", "alice", "--no-cache"]) == 0
    assert len(decodes) == 2 * first
    assert "13 cases, all valid" in capsys.readouterr().out


def test_a_decode_for_the_screen_is_the_files_verdict(
    demo_project: Path, decodes: list[Path]
) -> None:
    """The window decodes a case's images to show them; checking the case then decodes
    nothing again, a failure included, and a check made while the screen's decode is under
    way waits for it rather than decoding the file a second time."""
    import threading

    from sabre_desk.ground.errors import ImageError
    from sabre_desk.imaging.io import load_image

    cache = DecodeCache.for_project(demo_project)
    base = demo_project / "cases" / "tex01_mug_brick" / "base.png"
    edited = demo_project / "cases" / "tex01_mug_brick" / "edited.png"
    data = edited.read_bytes()
    edited.write_bytes(data[: len(data) // 2])
    with cache.decoding(base):
        load_image(base)
    with pytest.raises(ImageError), cache.decoding(edited):
        load_image(edited)
    cache.check(base)
    with pytest.raises(ImageError, match="truncated"):
        cache.check(edited)
    assert decodes == []

    other = demo_project / "cases" / "ctx03_wrench_banana" / "base.png"
    started, checked = threading.Event(), threading.Event()

    def check_meanwhile() -> None:
        started.set()
        cache.check(other)
        checked.set()

    with cache.decoding(other):
        checker = threading.Thread(target=check_meanwhile)
        checker.start()
        started.wait(5)
        assert not checked.wait(0.2)  # it waits for the screen's decode …
        load_image(other)
    checker.join(5)
    assert checked.is_set() and decodes == []  # … and takes its verdict
