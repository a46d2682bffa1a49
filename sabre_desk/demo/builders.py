"""Building blocks of the demo cases: the case record and spec builders in SABRE's schema."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

Spec = dict[str, Any]


@dataclass
class DemoCase:
    case_id: str
    spec: Spec
    images: dict[str, np.ndarray]
    responses: dict[str, str]
    #: role -> EXIF orientation to store the image with (the pixels are pre-rotated so a
    #: viewer that honours the tag shows them upright).
    exif_orientation: dict[str, int] = field(default_factory=dict)


def q(
    probe: str,
    role: str,
    prompt: str,
    answer: str,
    kind: str = "yes_no",
    eval_type: str | None = None,
    options: list[str] | None = None,
) -> dict[str, Any]:
    eval_type = eval_type or {"yes_no": "yes_no_exact", "multiple_choice": "mcq_letter"}.get(
        kind, "count_exact"
    )
    out: dict[str, Any] = {
        "probe_id": probe,
        "image_role": role,
        "question_type": kind,
        "prompt": prompt,
        "answer": answer,
        "eval_type": eval_type,
    }
    if options is not None:
        out["options"] = options
    return out


def attrs(**values: str) -> list[dict[str, str]]:
    return [{"name": k, "value": v} for k, v in values.items()]


def four_probes(source: str, target: str) -> list[dict[str, Any]]:
    """Context and Texture: the four yes/no probes answered yes/no/no/yes."""
    return [
        q("base_source", "base", f"Is {source} visible?", "yes"),
        q("base_target", "base", f"Is {target} visible?", "no"),
        q("edited_source", "edited", f"Is {source} visible?", "no"),
        q("edited_target", "edited", f"Is {target} visible?", "yes"),
    ]


def paired_spec(
    concept: str,
    subset: str,
    objective: str,
    base_prompt: str,
    edit_prompt: str,
    attributes: list[dict[str, str]],
    questions: list[dict[str, Any]],
    targets: list[tuple[str, str, str]],
    notes: list[str],
) -> Spec:
    return {
        "concept_id": concept,
        "pressure_test_type": subset,
        "objective": objective,
        "generation_mode": "paired_edit",
        "base_prompt": base_prompt,
        "edit_prompt": edit_prompt,
        "task_attributes": attributes,
        "questions": questions,
        "review_targets": [{"label": a, "image_role": b, "description": c} for a, b, c in targets],
        "generation_notes": notes,
        "generation": DEMO_GENERATION,
    }


def single_spec(
    concept: str,
    subset: str,
    objective: str,
    prompt: str,
    attributes: list[dict[str, str]],
    questions: list[dict[str, Any]],
    targets: list[tuple[str, str]],
    notes: list[str],
) -> Spec:
    return {
        "concept_id": concept,
        "pressure_test_type": subset,
        "objective": objective,
        "generation_mode": "single_image",
        "image_prompt": prompt,
        "task_attributes": attributes,
        "questions": questions,
        "review_targets": [
            {"label": a, "image_role": "image", "description": b} for a, b in targets
        ],
        "generation_notes": notes,
        "generation": DEMO_GENERATION,
    }


DEMO_GENERATION = {
    "demo": True,
    "renderer": "sabre_desk.demo (procedural drawing, no generative model)",
    "created_at": "2026-11-29T15:00:00Z",
}
KEEP_REST = "Keep the camera, lighting, composition and every other object unchanged."
