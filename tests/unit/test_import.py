"""`sabre-desk init` and `import`: a project made from cases made elsewhere, row by row."""

from __future__ import annotations

import json
from pathlib import Path

from factories import png_bytes, run_cli, yes_no_spec

from sabre_desk.core.case.project import Project
from sabre_desk.core.case.validate import validate_project
from sabre_desk.core.making.importing import import_cases
from sabre_desk.core.making.new_project import init_project


def single_spec(concept_id: str) -> dict:
    spec = yes_no_spec(concept_id, generation_mode="single_image", image_prompt="a mug")
    del spec["base_prompt"], spec["edit_prompt"]
    spec["questions"] = [{**spec["questions"][0], "image_role": "image"}]
    return spec


def write_source(folder: Path) -> Path:
    """A JSONL a generation script might write: good rows and every kind of bad one."""
    folder.mkdir()
    (folder / "b1.png").write_bytes(png_bytes(64, 48, (10, 20, 30)))
    (folder / "e1.png").write_bytes(png_bytes(64, 48, (30, 20, 10)))
    (folder / "mug.jpg").write_bytes(png_bytes(40, 40))  # a PNG named .jpg: the bytes decide
    (folder / "small.png").write_bytes(png_bytes(32, 24))
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 20)
    rows = [
        {**yes_no_spec("tape_bagel"), "images": {"base": "b1.png", "edited": "e1.png"}},
        {**single_spec("mug"), "case_id": "mug_photo", "images": {"image": "mug.jpg"}},
        "{not json",
        {
            **yes_no_spec("no_questions", questions=[]),
            "images": {"base": "b1.png", "edited": "e1.png"},
        },
        {**yes_no_spec("sizes"), "images": {"base": "b1.png", "edited": "small.png"}},
        {**yes_no_spec("gone"), "images": {"base": "b1.png", "edited": "nowhere.png"}},
        {**yes_no_spec("bad_bytes"), "images": {"base": "b1.png", "edited": "broken.png"}},
        {**yes_no_spec("tape_bagel"), "images": {"base": "b1.png", "edited": "e1.png"}},
    ]
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    source = folder / "cases.jsonl"
    source.write_text("\n".join(lines) + "\n")
    return source


def test_init_makes_a_valid_empty_project_and_refuses_a_busy_folder(tmp_path: Path) -> None:
    done = run_cli("init", str(tmp_path / "study"), "--primer", "context", home=tmp_path)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "study" / "sabre-project.json").read_text())
    assert manifest["primer"] == "context" and manifest["name"] == "study"
    assert validate_project(Project.open(tmp_path / "study", "alice")).valid
    again = run_cli("init", str(tmp_path / "study"), home=tmp_path)
    assert again.returncode == 2 and "already a project" in again.stderr
    typo = run_cli("init", str(tmp_path / "other"), "--primer", "contxt", home=tmp_path)
    assert typo.returncode == 2 and "no primer 'contxt'" in typo.stderr
    assert not (tmp_path / "other").exists()


def test_import_takes_the_valid_rows_names_each_bad_one_and_is_idempotent(tmp_path: Path) -> None:
    root = init_project(tmp_path / "project")
    source = write_source(tmp_path / "made")
    report = import_cases(root, source)
    assert sorted(report.imported) == ["mug_photo", "tape_bagel"]
    problems = dict(report.problems)
    assert "cases.jsonl line 3" in problems  # not JSON
    assert "questions" in problems["cases.jsonl line 4"]
    assert "differ in size (32×24 vs 64×48)" in problems["cases.jsonl line 5"]
    assert "nowhere.png" in problems["cases.jsonl line 6"]
    assert "broken.png" in problems["cases.jsonl line 7"]
    assert "already given by cases.jsonl line 1" in problems["cases.jsonl line 8"]
    assert len(problems) == 6

    case = root / "cases" / "tape_bagel"
    assert sorted(p.name for p in case.iterdir()) == ["base.png", "edited.png", "spec.json"]
    assert (root / "cases" / "mug_photo" / "image.png").read_bytes() == (
        source.parent / "mug.jpg"
    ).read_bytes()
    assert json.loads((case / "spec.json").read_text())["provenance"]["row"] == (
        "cases.jsonl line 1"
    )
    assert not [p for p in (root / "cases").iterdir() if p.name.startswith(".")]
    project = Project.open(root, "alice")
    assert validate_project(project).valid

    before = {p: p.stat().st_mtime_ns for p in case.iterdir()}
    again = import_cases(root, source)
    assert again.imported == [] and sorted(again.unchanged) == ["mug_photo", "tape_bagel"]
    assert {p: p.stat().st_mtime_ns for p in case.iterdir()} == before

    # The same case id with other content is refused, never overwritten.
    (source.parent / "e1.png").write_bytes(png_bytes(64, 48, (200, 0, 0)))
    changed = import_cases(root, source)
    assert "other content" in dict(changed.problems)["cases.jsonl line 1"]
    assert {p: p.stat().st_mtime_ns for p in case.iterdir()} == before


def test_import_of_a_folder_of_images_with_a_spec_beside_each(tmp_path: Path) -> None:
    root = init_project(tmp_path / "project")
    photos = tmp_path / "photos"
    photos.mkdir()
    (photos / "bench_base.png").write_bytes(png_bytes(50, 50, (1, 2, 3)))
    (photos / "bench_edited.png").write_bytes(png_bytes(50, 50, (3, 2, 1)))
    (photos / "bench.json").write_text(json.dumps(yes_no_spec("bench")))
    (photos / "cup.png").write_bytes(png_bytes(30, 20))
    (photos / "cup.json").write_text(json.dumps(single_spec("cup")))
    (photos / "stray.png").write_bytes(png_bytes(30, 20))
    done = run_cli("import", str(root), str(photos), home=tmp_path)
    assert done.returncode == 1  # one image had no specification
    assert "stray.png: no specification" in done.stderr
    assert "imported 2 cases, 0 already there, 1 failed" in done.stdout
    assert sorted(p.name for p in (root / "cases").iterdir()) == ["bench", "cup"]
    dry = run_cli("import", str(root), str(photos), "--dry-run", "--json", home=tmp_path)
    assert json.loads(dry.stdout)["unchanged"] == ["bench", "cup"]


def test_a_case_half_written_by_a_killed_import_is_cleared_when_written_again(
    tmp_path: Path,
) -> None:
    root = init_project(tmp_path / "project")
    source = write_source(tmp_path / "made")
    left = root / "cases" / ".import-tape_bagel-0123abcd"
    left.mkdir()
    (left / "base.png").write_bytes(b"half")
    other = root / "cases" / ".import-tape_bagel_2-0123abcd"  # another case's: not touched
    other.mkdir()
    assert "tape_bagel" in import_cases(root, source).imported
    assert not left.exists() and other.exists()
