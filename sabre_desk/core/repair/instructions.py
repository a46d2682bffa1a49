"""Instruction templates for the repair operations, filled from the case's spec.

Each names what to change, where (the red box), and what must stay exactly as it is; the
reviewer can add free text to refine it.
"""

from __future__ import annotations

from sabre_desk.core.case.spec import SampleSpec
from sabre_desk.engines.base import RepairOp

OP_LABELS: dict[RepairOp, str] = {
    RepairOp.REMOVE: "Remove an object",
    RepairOp.SWAP: "Swap an object for another",
    RepairOp.CLEAN: "Clean up artifacts",
    RepairOp.RESTORE: "Restore the background",
}

_KEEP = (
    "Change nothing outside the red rectangle: keep the lighting, perspective, colours, "
    "textures and every other object exactly as they are. Do not draw the red rectangle "
    "in your answer."
)

TEMPLATES: dict[RepairOp, str] = {
    RepairOp.REMOVE: "Inside the red rectangle, remove the {source}. Fill the area it covered with "
    "what would naturally be behind it, continuing the surrounding surfaces. {keep}",
    RepairOp.SWAP: "Inside the red rectangle, replace the {source} with a {target} of a similar "
    "size, sitting in the same place and lit like the rest of the scene. {keep}",
    RepairOp.CLEAN: "Inside the red rectangle, clean up the visual artifacts (smears, leftover "
    "fragments, blotches) so the area looks like an ordinary, undamaged part of the "
    "scene. Keep the {target} if it is there. {keep}",
    RepairOp.RESTORE: "Inside the red rectangle, restore the plain background so that it continues "
    "the surrounding surfaces seamlessly. {keep}",
}


def entities(spec: SampleSpec | None) -> tuple[str, str]:
    """(source, target) entities from the spec's task attributes, with plain defaults."""
    if spec is None:
        return "object", "object"
    source = spec.attribute("source_entity") or spec.attribute("counted_entity") or "object"
    target = spec.attribute("target_entity") or "object"
    return source, target


def instruction(
    op: RepairOp, source: str = "object", target: str = "object", refinement: str = ""
) -> str:
    text = TEMPLATES[RepairOp(op)].format(
        source=source.strip() or "object", target=target.strip() or "object", keep=_KEEP
    )
    refinement = refinement.strip()
    return f"{text} {refinement}" if refinement else text
