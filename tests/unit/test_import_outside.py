"""`import` copies into the project only images inside the JSONL's folder: a row whose image
path is absolute, leads out through `..` or passes through a link is refused with its
reason, and no file of it reaches the project."""

from __future__ import annotations

import json
from pathlib import Path

from factories import png_bytes, yes_no_spec

from sabre_desk.core.making.importing import import_cases
from sabre_desk.core.making.new_project import init_project


def test_rows_naming_images_outside_the_jsonl_folder_are_refused(tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret.png").write_bytes(png_bytes(64, 48, (200, 0, 0)))
    (private / "other.png").write_bytes(png_bytes(64, 48, (0, 200, 0)))
    source_dir = tmp_path / "source"
    source_dir.mkdir()
    (source_dir / "b1.png").write_bytes(png_bytes(64, 48, (10, 20, 30)))
    (source_dir / "e1.png").write_bytes(png_bytes(64, 48, (30, 20, 10)))
    (source_dir / "linked.png").symlink_to(private / "secret.png")
    (source_dir / "shelf").symlink_to(private, target_is_directory=True)
    rows = {
        "ok_row": {"base": "b1.png", "edited": "e1.png"},
        "dotdot": {"base": "b1.png", "edited": "../private/secret.png"},
        "absolute": {"base": "b1.png", "edited": str(private / "secret.png")},
        "file_link": {"base": "b1.png", "edited": "linked.png"},
        "folder_link": {"base": "b1.png", "edited": "shelf/other.png"},
    }
    source = source_dir / "cases.jsonl"
    source.write_text(
        "".join(
            json.dumps({**yes_no_spec(name), "case_id": name, "images": images}) + "\n"
            for name, images in rows.items()
        )
    )
    root = init_project(tmp_path / "study")

    report = import_cases(root, source)

    assert report.imported == ["ok_row"]
    reasons = dict(report.problems)
    assert "leads outside" in reasons["cases.jsonl line 2"]
    assert "absolute path" in reasons["cases.jsonl line 3"]
    assert "linked.png is a symbolic link" in reasons["cases.jsonl line 4"]
    assert "shelf is a symbolic link" in reasons["cases.jsonl line 5"]
    secret_bytes = {(private / n).read_bytes() for n in ("secret.png", "other.png")}
    copied = {p.read_bytes() for p in (root / "cases").rglob("*") if p.is_file()}
    assert not copied & secret_bytes
