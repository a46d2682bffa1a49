"""Every kind of bad input gets a clear, per-case error; the other cases keep working.

One project holds all of them at once, the way a real, messy project folder would.
"""

from __future__ import annotations

import io
import json
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from factories import png_bytes, read_only, tree_snapshot, yes_no_spec
from PIL import Image

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project


def _truncated_png() -> bytes:
    buf = io.BytesIO()
    rng = np.random.default_rng(1)
    Image.fromarray(rng.integers(0, 255, (200, 300, 3), dtype=np.uint8)).save(buf, "PNG")
    return buf.getvalue()[: len(buf.getvalue()) // 2]


def _bomb_png() -> bytes:
    data = bytearray(png_bytes(8, 8))
    ihdr = struct.pack(">II", 30_000, 30_000) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr) & 0xFFFFFFFF)
    return bytes(data)


def _exif_rotated_jpeg() -> bytes:
    exif = Image.Exif()
    exif[0x0112] = 6
    buf = io.BytesIO()
    Image.new("RGB", (40, 60), (10, 200, 30)).save(buf, "JPEG", exif=exif.tobytes())
    return buf.getvalue()


@pytest.fixture
def messy_project(make_project: Callable, add_case: Callable, tmp_path: Path) -> Path:
    root = make_project("messy")
    add_case(root, "good")
    add_case(root, "photo", images={"base.jpg": _exif_rotated_jpeg(), "edited.png": png_bytes()})
    (add_case(root, "corrupt_json") / "spec.json").write_bytes(b'{"concept_id": "x",\n  "q": ')
    bad = yes_no_spec(concept_id="schema")
    bad["questions"][0]["answer"] = "perhaps"
    add_case(root, "schema_violation", spec=bad)
    add_case(root, "missing_image", images={"base.png": png_bytes()})
    add_case(
        root, "truncated_image", images={"base.png": png_bytes(), "edited.png": _truncated_png()}
    )
    add_case(
        root,
        "undecodable_image",
        images={"base.png": b"\x89PNG\r\n\x1a\nnot really", "edited.png": png_bytes()},
    )
    add_case(
        root,
        "text_as_image",
        images={"base.png": png_bytes(), "edited.png": b"Hello, I am a text file."},
    )
    add_case(root, "bomb_image", images={"base.png": png_bytes(), "edited.png": _bomb_png()})
    outside = tmp_path / "outside_case"
    outside.mkdir()
    (outside / "spec.json").write_text(json.dumps(yes_no_spec(concept_id="outside")))
    (root / "cases" / "linked_case").symlink_to(outside, target_is_directory=True)
    add_case(root, "bad id!", spec=yes_no_spec(concept_id="badid"))
    add_case(root, "dup_a", spec=yes_no_spec(concept_id="same_concept"))
    add_case(root, "dup_b", spec=yes_no_spec(concept_id="same_concept"))
    folder = add_case(root, "not_utf8")
    (folder / "spec.json").write_bytes(
        json.dumps(yes_no_spec(concept_id="latin")).encode().replace(b"tape", b"t\xe4pe")
    )
    return root


EXPECTED = {
    "corrupt_json": ("corrupt_json/spec.json", "corrupt JSON at line 2"),
    "schema_violation": ("schema_violation/spec.json", "questions[0].answer"),
    "missing_image": ("missing_image/edited.png", "image is missing"),
    "truncated_image": ("truncated_image/edited.png", "truncated"),
    "undecodable_image": ("undecodable_image/base.png", "truncated or corrupt"),
    "text_as_image": ("text_as_image/edited.png", "not a readable image"),
    "bomb_image": ("bomb_image/edited.png", "too large"),
    "linked_case": ("cases/linked_case", "symbolic link"),
    "bad id!": ("cases/bad id!", "invalid case id"),
    "dup_b": (
        "dup_b/spec.json",
        "duplicate concept_id 'same_concept' (already used by case dup_a)",
    ),
    "not_utf8": ("not_utf8/spec.json", "not UTF-8"),
}


def test_validate_names_each_problem_and_keeps_the_good_cases(messy_project: Path) -> None:
    before = tree_snapshot(messy_project)
    report = validate_project(Project.open(messy_project, "alice"))
    by_id = {c.case_id: c for c in report.cases}
    assert {c.case_id for c in report.invalid_cases} == set(EXPECTED)
    for case_id, (file_tail, reason) in EXPECTED.items():
        lines = [p.line() for p in by_id[case_id].problems]
        assert any(file_tail in line and reason in line for line in lines), (case_id, lines)
    assert by_id["good"].valid and by_id["photo"].valid and by_id["dup_a"].valid
    assert tree_snapshot(messy_project) == before, "validation must write nothing"


def test_cli_validate_lists_every_invalid_case_and_exits_1(messy_project: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "validate", str(messy_project), "--reviewer", "alice"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    for case_id, (_, reason) in EXPECTED.items():
        assert f"INVALID  {case_id}" in result.stdout
        assert reason in result.stdout
    assert "11 invalid" in result.stdout.splitlines()[-1]

    as_json = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "validate", str(messy_project), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    report = json.loads(as_json.stdout)
    assert as_json.returncode == 1 and report["cases_invalid"] == 11
    assert report["cases_total"] == 14


def test_the_exif_photo_is_measured_as_displayed(messy_project: Path) -> None:
    case = Project.open(messy_project, "alice").load_case("photo")
    assert case.image_info["base"].size == (60, 40)  # stored 40x60, shown rotated


def test_an_empty_project_is_valid_with_a_note_and_one_without_cases_is_not(
    make_project: Callable,
) -> None:
    """A new project (`init`) has no cases yet: valid, and said; a lost cases/ is an error."""
    root = make_project()
    report = validate_project(Project.open(root, "alice"))
    assert report.valid
    assert report.project_problems[0].severity == "warning"
    assert "no cases yet" in report.project_problems[0].reason
    (root / "cases").rmdir()
    report = validate_project(Project.open(root, "alice"))
    assert not report.valid and "cases/ is missing" in report.project_problems[0].reason


def test_a_read_only_project_opens_read_only_and_says_so(demo_project: Path) -> None:
    with read_only(demo_project):
        project = Project.open(demo_project, "alice")
        assert project.read_only
        assert len(project.entries) == 13
        case = project.load_case("ctx01_tape_bagel")
        from sabre_desk.ground.errors import ReadOnlyProjectError

        with pytest.raises(ReadOnlyProjectError, match="read-only"):
            project.save_review(case)
        result = subprocess.run(
            [sys.executable, "-m", "sabre_desk", "validate", str(demo_project)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0 and "[read-only]" in result.stdout
