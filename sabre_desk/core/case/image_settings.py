"""The shape of generated images: an aspect ratio and a size the image models accept.

Set in a primer (``[image]``: every case of the primer), in the project
(``"images"`` in sabre-project.json) or on the command line, the first of these that says
it winning; unset, a square 1K image (the paper's costs assume 1K outputs).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

AspectRatio = Literal["1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9", "21:9"]
ImageSize = Literal["1K", "2K", "4K"]
DEFAULT_ASPECT_RATIO: AspectRatio = "1:1"
DEFAULT_IMAGE_SIZE: ImageSize = "1K"


class ImageSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aspect_ratio: AspectRatio | None = None
    image_size: ImageSize | None = None


def resolve(*layers: ImageSettings | None) -> tuple[str, str]:
    """(aspect ratio, image size): from the first layer that sets each, else the default."""
    ratio = next((s.aspect_ratio for s in layers if s and s.aspect_ratio), DEFAULT_ASPECT_RATIO)
    size = next((s.image_size for s in layers if s and s.image_size), DEFAULT_IMAGE_SIZE)
    return ratio, size
