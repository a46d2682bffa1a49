"""The unknown option of Language Elicitation, balanced across a subset and checked."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

from sabre_desk.core.case.primers import DEFAULT_UNKNOWN_WORDS
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.question_builder import balance_unknown, imbalance, unknown_index
from sabre_desk.core.case.validate import validate_project

UNKNOWN = "Cannot be determined from the image"


def le_spec(n: int, unknown_at: int = 3) -> dict:
    options = [f"Brand {n}", "A cartoon cat", "The word 'COFFEE'"]
    options.insert(unknown_at, UNKNOWN)
    return {
        "concept_id": f"le{n:02d}",
        "pressure_test_type": "language_elicitation",
        "generation_mode": "single_image",
        "image_prompt": "a mug seen from behind",
        "questions": [
            {
                "probe_id": "hidden_print",
                "image_role": "image",
                "question_type": "multiple_choice",
                "prompt": "What is printed on the front of the mug?",
                "answer": "ABCD"[unknown_at],
                "eval_type": "mcq_letter",
                "options": options,
            }
        ],
    }


def test_the_builder_spreads_the_unknown_option_evenly_and_moves_the_answer_with_it() -> None:
    specs = [le_spec(n) for n in range(12)]  # all at D, as an LLM tends to write them
    balanced = balance_unknown(specs, DEFAULT_UNKNOWN_WORDS, seed=7)
    positions = [
        unknown_index(s["questions"][0]["options"], DEFAULT_UNKNOWN_WORDS) for s in balanced
    ]
    assert Counter(positions) == {0: 3, 1: 3, 2: 3, 3: 3}
    for spec in balanced:
        q = spec["questions"][0]
        assert q["options"]["ABCD".index(q["answer"])] == UNKNOWN
        others = [o for o in q["options"] if o != UNKNOWN]
        assert others[1:] == ["A cartoon cat", "The word 'COFFEE'"]  # their order is kept
    assert balance_unknown(specs, DEFAULT_UNKNOWN_WORDS, seed=7) == balanced  # seeded
    assert specs[0]["questions"][0]["answer"] == "D"  # the input is not changed
    assert imbalance([0, 1, 2, 3] * 3) is None
    assert "D 12 of 12" in (imbalance([3] * 12) or "")


def test_validate_warns_of_a_lopsided_subset(demo_project: Path) -> None:
    for case in ("lang01_mug_back", "lang02_closed_box"):
        shutil.rmtree(demo_project / "cases" / case)
    for n in range(10):
        folder = demo_project / "cases" / f"le{n:02d}"
        folder.mkdir()
        (folder / "spec.json").write_text(json.dumps(le_spec(n)))
        shutil.copy(demo_project / "cases" / "count01_apples" / "image.jpg", folder / "image.jpg")
    report = validate_project(Project.open(demo_project, "alice"), decode=False)
    warnings = [p.reason for p in report.project_problems]
    assert any(
        w.startswith("language_elicitation: the 'unknown' option is unbalanced") for w in warnings
    )
    assert report.valid  # a warning: the cases themselves are fine
