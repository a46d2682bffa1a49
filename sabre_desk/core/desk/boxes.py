"""What boxes mean to a reviewer: default labels per image, and mirroring between images.

The arithmetic of boxes is ``sabre_desk.imaging.geometry``.
"""

from __future__ import annotations

from sabre_desk.core.case.review import Box
from sabre_desk.core.case.spec import ImageRole

#: What a box on each image marks, by default (the SABRE platform's vocabulary).
DEFAULT_LABELS = {ImageRole.BASE: "source", ImageRole.EDITED: "target", ImageRole.IMAGE: "target"}
LABEL_CHOICES = ("source", "target", "repair", "evidence")


def mirrored(box: Box, to_role: ImageRole) -> Box:
    """The same region on the other image; a source on Base becomes a target on Edited."""
    label = box.label
    if label == DEFAULT_LABELS.get(box.image_role):
        label = DEFAULT_LABELS[to_role]
    return Box(image_role=to_role, label=label, box=box.box)
