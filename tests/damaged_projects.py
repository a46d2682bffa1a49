"""A copy of the demo project damaged in every way the validator knows, for the tests that
hold every surface (`validate`, `stats` text and ``--json``, the window) to one verdict."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from factories import write_review
from PIL import Image

#: the case whose image was cut after alice kept it (the filed issue's "decided by me 0"
#: above "my decisions: keep 1")
TRUNCATED = "tex02_board_marble"
SCREENING = "ctx02_apple_tennis_ball"


def _clone(cases: Path, source: str, name: str) -> Path:
    folder = Path(shutil.copytree(cases / source, cases / name))
    _edit_spec(folder, lambda spec: spec.update(concept_id=name))
    return folder


def _edit_spec(folder: Path, change: Any) -> None:
    spec = json.loads((folder / "spec.json").read_text())
    change(spec)
    (folder / "spec.json").write_text(json.dumps(spec))


def _edit_review(path: Path, **fields: Any) -> None:
    data = json.loads(path.read_text())
    data.update(fields)
    path.write_text(json.dumps(data))


def damage_every_way(root: Path) -> dict[str, str]:
    """Damage a copy of the demo project in every way a case can be invalid, with a few
    valid cases decided around them; returns each invalid case and a word of its reason."""
    cases = root / "cases"
    outside = root.parent / "outside"
    outside.mkdir()
    spare = "ctx03_wrench_banana"  # the valid case the clones are made of
    expected: dict[str, str] = {}
    # an image cut after alice kept the case: her decision was bound to the whole file
    write_review(cases / TRUNCATED, "alice", "keep")
    image = cases / TRUNCATED / "edited.png"
    image.write_bytes(image.read_bytes()[: image.stat().st_size // 3])
    expected[TRUNCATED] = "truncated"
    # a corrupt spec.json, a corrupt screening.json (both decided by alice first)
    write_review(cases / "ctx01_tape_bagel", "alice", "keep")
    (cases / "ctx01_tape_bagel" / "spec.json").write_text("{not json")
    expected["ctx01_tape_bagel"] = "corrupt JSON"
    write_review(cases / SCREENING, "alice", "keep")
    (cases / SCREENING / "screening.json").write_text("{broken")
    expected[SCREENING] = "corrupt JSON"
    # a spec that breaks the schema, one that breaks its primer's rules (kept by alice)
    _edit_spec(cases / "lang01_mug_back", lambda spec: spec.pop("questions"))
    expected["lang01_mug_back"] = "questions"
    write_review(cases / "count01_apples", "alice", "keep")
    _edit_spec(cases / "count01_apples", lambda s: s["questions"][0].update(answer="seven"))
    expected["count01_apples"] = "seven"
    # an image gone, an image whose header is not an image's, an image linked from outside
    (cases / "spatial01_desk" / "image.png").unlink()
    expected["spatial01_desk"] = "missing"
    (_clone(cases, spare, "zz_bad_header") / "base.png").write_bytes(b"not a png at all")
    expected["zz_bad_header"] = "not a readable image"
    linked = _clone(cases, spare, "zz_image_link")
    shutil.move(linked / "edited.png", outside / "edited.png")
    (linked / "edited.png").symlink_to(outside / "edited.png")
    expected["zz_image_link"] = "outside the project"
    # this reviewer's review: corrupt, someone else's, editing a probe the spec lacks
    (cases / "lang02_closed_box" / "reviews").mkdir()
    (cases / "lang02_closed_box" / "reviews" / "alice.json").write_text("{oops")
    expected["lang02_closed_box"] = "corrupt JSON"
    owned = write_review(_clone(cases, spare, "zz_wrong_owner"), "alice", "keep")
    _edit_review(owned, reviewer="bob")
    expected["zz_wrong_owner"] = "belongs to"
    edits = write_review(_clone(cases, spare, "zz_bad_edit"), "alice", "keep")
    _edit_review(edits, question_edits={"no_such_probe": {"prompt": "x"}})
    expected["zz_bad_edit"] = "no_such_probe"
    # another reviewer's review that cannot be read (kept by alice)
    write_review(cases / "attr02_traffic_light", "alice", "keep")
    (cases / "attr02_traffic_light" / "reviews" / "bob.json").write_text("{oops")
    expected["attr02_traffic_light"] = "corrupt JSON"
    # the spec: gone, not an object, a link leading outside the project
    (_clone(cases, spare, "zz_no_spec") / "spec.json").unlink()
    expected["zz_no_spec"] = "missing"
    (_clone(cases, spare, "zz_spec_list") / "spec.json").write_text("[1, 2]")
    expected["zz_spec_list"] = "not a JSON object"
    spec_link = _clone(cases, spare, "zz_spec_link")
    shutil.move(spec_link / "spec.json", outside / "spec.json")
    (spec_link / "spec.json").symlink_to(outside / "spec.json")
    expected["zz_spec_link"] = "outside the project"
    # a concept_id another case uses, a case folder that is a link, a bad case id
    duplicate = _clone(cases, spare, "zz_duplicate")
    _edit_spec(duplicate, lambda spec: spec.update(concept_id=spare))
    expected["zz_duplicate"] = "duplicate concept_id"
    (cases / "zz_link").symlink_to(cases / spare)
    expected["zz_link"] = "symbolic link"
    _clone(cases, spare, "zz bad id")
    expected["zz bad id"] = "invalid case id"
    # valid cases: a damaged history line (a warning), decisions current, stale, disputed
    (cases / "spatial02_above_red" / "history.jsonl").write_text('{"event": "x"}\n{bad\n')
    write_review(cases / spare, "alice", "keep")
    write_review(cases / "spatial02_above_red", "alice", "keep")
    write_review(cases / "spatial02_above_red", "bob", "unsure")
    write_review(cases / "attr01_red_triangles", "bob", "keep")
    write_review(cases / "tex01_mug_brick", "alice", "keep")
    edited = cases / "tex01_mug_brick" / "edited.png"
    with Image.open(edited) as img:
        replaced = img.convert("RGB")
    replaced.putpixel((0, 0), (9, 9, 9))
    replaced.save(edited)  # replaced since: alice's decision is stale
    assignments = {
        "format": "sabre-desk-assignments",
        "version": 1,
        "reviewers": ["alice", "bob"],
        "cases": {spare: ["alice"], TRUNCATED: ["alice"], "attr01_red_triangles": ["bob"]},
    }
    (root / "assignments.json").write_text(json.dumps(assignments))
    return expected


def validate_reason(case: dict[str, Any]) -> str:
    """`validate`'s first problem of an invalid case, as one line naming its file."""
    first = next(p for p in case["problems"] if p["severity"] == "error")
    return f"{Path(first['file']).name}: {first['reason']}"
