"""Reading an image out of a Gemini reply, for every caller that asks for one (a repair's
patch, a generated Base, an edited image).

The reply is not trusted blindly: a blocked prompt, a finish reason other than STOP, a part
marked as a thought, no image at all, or bytes that do not decode each end in a NoImageError
whose reason names what happened in words (and the API's own name for it), with the key
masked from anything the model said.
"""

from __future__ import annotations

import math

import numpy as np

from sabre_desk.engines.gemini_reply import (
    BLOCK_REASONS,
    FINISH_REASONS,
    answer_parts,
    block_reason,
    finish_name,
    finish_words,
    reply_text,
)
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.io import MAX_PIXELS, image_from_bytes

#: The largest image a reply may hold: the limit ``validate`` holds every image to.
MAX_REPLY_PIXELS = MAX_PIXELS


class NoImageError(Exception):
    """The reply holds no usable image; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


#: The aspect ratios the image models make; a patch asks for the nearest one, so the reply
#: is not stretched into it (4:3 squeezed into a square looks wrong however it is blended).
ASPECT_RATIOS = ("1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9", "21:9")


def nearest_aspect_ratio(width: int, height: int) -> str:
    """The supported aspect ratio closest to width:height (compared as logarithms, so 2:1
    is as far from 1:1 as 1:2 is)."""
    target = math.log(width / height)

    def distance(ratio: str) -> float:
        w, h = (int(v) for v in ratio.split(":"))
        return abs(math.log(w / h) - target)

    return min(ASPECT_RATIOS, key=distance)


def ratio_of(aspect_ratio: str) -> float:
    """ "4:3" as width / height."""
    w, h = (int(v) for v in aspect_ratio.split(":"))
    return w / h


def reply_image(response: object, key: str) -> np.ndarray:
    """The image of the reply, or NoImageError saying why there is none (key masked)."""
    blocked = block_reason(response)
    if blocked:
        raise NoImageError(blocked)
    for part in answer_parts(response):
        inline = getattr(part, "inline_data", None)
        if inline is not None and inline.data:
            return decode_image(inline.data)
    finish = finish_name(response)
    if finish and finish != "STOP":
        raise NoImageError(f"no image came back: {finish_words(finish)} ({finish})")
    text = " ".join(reply_text(response, key))[:200]  # masked before it is cut
    detail = f'; it said: "{text}"' if text else ""
    raise NoImageError(f"no image came back from Gemini{detail}")


def decode_image(data: bytes) -> np.ndarray:
    """Decode with the rules every image of a project is read by (whatever the declared mime
    type says, it can be wrong): a header over the pixel limit, a decompression bomb or
    bytes that stop short are a NoImageError with the reason, never a crash."""
    try:
        return image_from_bytes(data, MAX_REPLY_PIXELS)
    except ImageError as exc:
        why = f"Gemini returned image bytes that do not decode: {exc.reason}"
        raise NoImageError(why) from None


__all__ = ["BLOCK_REASONS", "FINISH_REASONS", "reply_text"]
