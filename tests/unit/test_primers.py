"""Primers drive validation: each shipped primer accepts its demo cases and rejects mutants."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sabre_desk.core.case.primers import PrimerLibrary, check_case, load_primer, scaffold
from sabre_desk.core.case.project import Project
from sabre_desk.core.case.spec import SampleSpec
from sabre_desk.core.case.validate import validate_project
from sabre_desk.ground.errors import ProjectError

SHIPPED = {
    "context": "context_prior",
    "texture": "texture_prior",
    "attribute": "attribute_count",
    "two_property": "attribute_two_property",
    "language": "language_elicitation",
    "counting": "counting",
    "spatial": "spatial",
    "spatial_relations": "spatial_relations",
}


def demo_specs(root: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in root.glob("cases/*/spec.json")}


def test_every_shipped_primer_accepts_the_demo_cases_of_its_task(demo_master: Path) -> None:
    library = PrimerLibrary.for_project(None)
    assert {n: p.header.pressure_test_type for n, p in library.primers.items()} == SHIPPED
    for case_id, spec in demo_specs(demo_master).items():
        primer, note = library.for_spec(SampleSpec.model_validate(spec))
        assert primer is not None and not note, case_id
        assert check_case(SampleSpec.model_validate(spec), primer) == [], case_id
        assert primer.header.checklist, primer.name


def _mutate(spec: dict, change: Callable[[dict], None]) -> SampleSpec:
    spec = copy.deepcopy(spec)
    change(spec)
    return SampleSpec.model_validate(spec)


def _q(spec: dict, probe: str) -> dict:
    return next(q for q in spec["questions"] if q["probe_id"] == probe)


MUTANTS = [
    (
        "ctx01_tape_bagel",
        "wrong probe pattern",
        lambda s: s["questions"].pop(),
        "probe pattern must be exactly",
    ),
    (
        "ctx01_tape_bagel",
        "wrong answer pattern",
        lambda s: _q(s, "base_target").update(answer="yes"),
        "must be answered 'no'",
    ),
    (
        "ctx01_tape_bagel",
        "no target entity",
        lambda s: s["task_attributes"].pop(1),
        "task attribute 'target_entity' is required",
    ),
    (
        "tex01_mug_brick",
        "renamed probe",
        lambda s: _q(s, "edited_target").update(probe_id="edited_material"),
        "probe pattern",
    ),
    (
        "lang01_mug_back",
        "two unknown options",
        lambda s: s["questions"][0]["options"].__setitem__(0, "Unknown"),
        "exactly one option must say the answer cannot be known (found 2)",
    ),
    (
        "lang01_mug_back",
        "answer not the unknown option",
        lambda s: s["questions"][0].update(answer="A"),
        "the answer must be the 'unknown' option D",
    ),
    (
        "attr02_traffic_light",
        "a non-count open question",
        lambda s: s["questions"][0].update(eval_type="exact_match", answer="three"),
        "counts use count_exact with a non-negative integer",
    ),
    (
        "count01_apples",
        "a yes/no question",
        lambda s: s["questions"][0].update(
            question_type="yes_no", eval_type="yes_no_exact", answer="yes"
        ),
        "must be of type open",
    ),
    (
        "spatial01_desk",
        "no coordinate convention",
        lambda s: s["questions"][0].update(prompt="Is the mug to the left of the book?"),
        "states a position but not the convention",
    ),
]


@pytest.mark.parametrize(
    ("case_id", "what", "change", "message"), MUTANTS, ids=[m[1] for m in MUTANTS]
)
def test_a_mutated_case_is_rejected_naming_the_rule(
    demo_master: Path, case_id: str, what: str, change: Callable, message: str
) -> None:
    spec = _mutate(demo_specs(demo_master)[case_id], change)
    library = PrimerLibrary.for_project(None)
    primer, _ = library.for_spec(spec)
    problems = check_case(spec, primer)
    assert any(message in p for p in problems), problems
    assert all(p.startswith(f"primer {primer.name}:") for p in problems)


def test_a_project_primer_overrides_the_shipped_one(demo_project: Path) -> None:
    folder = demo_project / "primers"
    folder.mkdir()
    text = (Path(__file__).parents[2] / "primers" / "counting.md").read_text()
    (folder / "counting.md").write_text(
        text.replace(
            'question_types = ["open"]',
            'question_types = ["open"]\nrequired_attributes = ["camera_height"]',
        )
    )
    library = PrimerLibrary.for_project(demo_project)
    assert library.primers["counting"].path == folder / "counting.md"
    report = validate_project(Project.open(demo_project, "alice"))
    bad = {c.case_id: c for c in report.invalid_cases}
    assert set(bad) == {"count01_apples", "count02_bottles"}
    assert "task attribute 'camera_height' is required" in bad["count01_apples"].problems[0].reason


def test_an_unknown_type_falls_back_to_the_default_schema_with_a_note(
    make_project: Callable,
    add_case: Callable,
) -> None:
    root = make_project()
    add_case(root, "c1")
    report = validate_project(Project.open(root, "alice"))
    (case,) = report.cases
    assert case.valid
    assert any(
        "no primer for 'custom_yes_no'" in p.reason and p.severity == "warning"
        for p in case.problems
    )


def test_a_new_primer_is_scaffolded_valid_and_broken_ones_are_explained(tmp_path: Path) -> None:
    path = scaffold("occlusion", tmp_path)
    assert load_primer(path).header.pressure_test_type == "occlusion"
    with pytest.raises(ProjectError, match="already exists"):
        scaffold("occlusion", tmp_path)
    broken = tmp_path / "broken.md"
    broken.write_text("+++\nname = 'x'\ntitle = 'x'\n+++\n# x\n")
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "primer", "check", str(broken)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "pressure_test_type" in result.stderr
    assert str(broken) in result.stderr
    no_header = tmp_path / "plain.md"
    no_header.write_text("# just markdown\n")
    with pytest.raises(ProjectError, match=r"TOML header between '\+\+\+' lines"):
        load_primer(no_header)


def test_primer_cli_lists_shows_and_creates(tmp_path: Path) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "primer", "list"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0 and all(name in listed.stdout for name in SHIPPED)
    shown = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "primer", "show", "language"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "really cannot be seen" in shown.stdout and "[ ]" in shown.stdout
    made = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "primer", "new", "glare", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0 and (tmp_path / "glare.md").is_file()


def _attribute_case(obj: str, component: str, canonical: int, answer: str) -> SampleSpec:
    return SampleSpec.model_validate(
        {
            "concept_id": f"{obj}_{component}",
            "pressure_test_type": "attribute_count",
            "generation_mode": "single_image",
            "image_prompt": f"a {obj} with an unusual number of {component}",
            "task_attributes": [
                {"name": "object", "value": obj},
                {"name": "component", "value": component},
                {"name": "canonical_count", "value": str(canonical)},
            ],
            "questions": [
                {
                    "probe_id": "component_count",
                    "image_role": "image",
                    "question_type": "open",
                    "prompt": f"How many {component} does the {obj} have?",
                    "answer": answer,
                    "eval_type": "count_exact",
                }
            ],
        }
    )


@pytest.mark.parametrize(
    ("obj", "component", "canonical", "shown"),
    [("octopus", "tentacles", 8, 12), ("fork", "tines", 4, 6), ("traffic light", "lamps", 3, 5)],
)
def test_the_attribute_primer_takes_the_papers_noncanonical_counts(
    obj: str, component: str, canonical: int, shown: int
) -> None:
    """Appendix C's Attribute: a familiar object with another number of parts than usual."""
    primer = PrimerLibrary.for_project(None).primers["attribute"]
    assert check_case(_attribute_case(obj, component, canonical, str(shown)), primer) == []
    usual = check_case(_attribute_case(obj, component, canonical, str(canonical)), primer)
    assert any("is the canonical one" in p for p in usual)


def test_the_attribute_primers_data_schema_types_its_fields() -> None:
    primer = PrimerLibrary.for_project(None).primers["attribute"]
    spec = _attribute_case("octopus", "tentacles", 8, "12").model_dump()
    spec["task_attributes"][2]["value"] = "eight"
    problems = check_case(SampleSpec.model_validate(spec), primer)
    assert (
        "primer attribute: task attribute 'canonical_count' must be a whole number, not 'eight'"
        in problems
    )
    del spec["task_attributes"][1]
    problems = check_case(SampleSpec.model_validate(spec), primer)
    assert "primer attribute: task attribute 'component' is required" in problems


PAPER_CONVENTION = (
    "Coordinate system: the object slot in the front-left-bottom grid cell is coordinate "
    "(1,1,1), not a geometric corner point. The x axis increases from left to right, the y "
    "axis increases from front to back, and the z axis increases from bottom to top. "
    "Coordinates are positive integers."
)


@pytest.mark.parametrize(
    ("prompt", "lattice", "valid"),
    [
        (
            f"{PAPER_CONVENTION} What color and shape is the object at coordinate (3,1,2)? "
            "Answer only as two words: color shape.",
            "4x3x3",
            True,
        ),
        ("What color and shape is the object at coordinate (3,1,2)?", "4x3x3", False),
        (f"{PAPER_CONVENTION} What is at coordinate (1,1,1)?", "four by three", False),
    ],
)
def test_the_spatial_primer_holds_questions_to_the_papers_lattice_convention(
    prompt: str, lattice: str, valid: bool
) -> None:
    """Appendix C's Spatial pilot: every coordinate question states the (1,1,1) convention."""
    primer = PrimerLibrary.for_project(None).primers["spatial"]
    spec = SampleSpec.model_validate(
        {
            "concept_id": "lattice01",
            "pressure_test_type": "spatial",
            "generation_mode": "single_image",
            "image_prompt": "a 4x3x3 lattice of coloured shapes",
            "task_attributes": [{"name": "lattice", "value": lattice}],
            "questions": [
                {
                    "probe_id": "lookup",
                    "image_role": "image",
                    "question_type": "open",
                    "prompt": prompt,
                    "answer": "blue cube",
                    "eval_type": "exact_match",
                }
            ],
        }
    )
    assert (check_case(spec, primer) == []) is valid
