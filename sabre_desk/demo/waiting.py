"""The demo's primer-driven part: Context specifications waiting for their images.

They show the front of the pipeline without a network: the funnel counts them as specified,
and with a key (or a local fake server) `sabre-desk generate images` turns them into cases
that go on to screening. Their generation record says plainly that no model wrote them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.making.incoming import stage_spec
from sabre_desk.core.making.spec_writer import STAGE, first_prompt

#: (concept id, scene, usual object, unexpected object)
WAITING = [
    ("ctx90_whisk_screwdriver", "a bakery's prep counter", "wire whisk", "screwdriver"),
    ("ctx91_stapler_trowel", "a busy reception desk", "stapler", "garden trowel"),
]


def waiting_spec(concept: str, place: str, source: str, target: str) -> dict[str, Any]:
    probes = [
        ("base_source", "base", source, "yes"),
        ("base_target", "base", target, "no"),
        ("edited_source", "edited", source, "no"),
        ("edited_target", "edited", target, "yes"),
    ]
    return {
        "concept_id": concept,
        "pressure_test_type": "context_prior",
        "objective": "Does the model report what is there, not what the scene predicts?",
        "generation_mode": "paired_edit",
        "base_prompt": f"A documentary photograph of {place} with exactly one {source} among "
        "many small objects, seen from a standing height. No readable labels.",
        "edit_prompt": f"Replace only the {source} with one {target} at the same place, the "
        "same size and lighting. Change nothing else.",
        "task_attributes": [
            {"name": "source_entity", "value": source},
            {"name": "target_entity", "value": target},
        ],
        "questions": [
            {
                "probe_id": pid,
                "image_role": role,
                "question_type": "yes_no",
                "prompt": f"Is there a {thing} in the image?",
                "answer": answer,
                "eval_type": "yes_no_exact",
            }
            for pid, role, thing, answer in probes
        ],
        "review_targets": [
            {"label": "source object", "image_role": "base", "description": f"one {source}"},
            {"label": "target object", "image_role": "edited", "description": f"one {target}"},
        ],
    }


def write_waiting_specs(root: Path, stamp: str) -> None:
    primer = PrimerLibrary.for_project(root).primers["context"]
    for concept, place, source, target in WAITING:
        spec = waiting_spec(concept, place, source, target)
        spec["generation"] = {
            "stage": STAGE,
            "at": stamp,
            "model": "demo (written by `sabre-desk demo`; no model was run)",
            "primer": {"name": primer.name},
            "prompt": first_prompt(primer, [], 1, 1),
            "attempts": [],
        }
        stage_spec(root, concept, spec)
