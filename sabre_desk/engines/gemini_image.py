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

from sabre_desk.engines.gemini_call import scrub
from sabre_desk.ground.errors import ImageError
from sabre_desk.imaging.io import image_from_bytes

MAX_REPLY_PIXELS = 40_000_000


class NoImageError(Exception):
    """The reply holds no usable image; ``reason`` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


FINISH_REASONS = {
    "FINISH_REASON_UNSPECIFIED": "the model stopped without saying why",
    "STOP": "the model finished without making an image",
    "MAX_TOKENS": "the reply was cut off (token limit)",
    "SAFETY": "the model's safety filter stopped the reply",
    "RECITATION": "the reply was stopped because it recited existing material",
    "LANGUAGE": "the request's language is not supported",
    "OTHER": "the model stopped for an unnamed reason",
    "BLOCKLIST": "the request contains a blocked term",
    "PROHIBITED_CONTENT": "the request was judged prohibited content",
    "SPII": "the reply would have shown sensitive personal information",
    "MALFORMED_FUNCTION_CALL": "the model made a malformed tool call",
    "IMAGE_SAFETY": "the model's safety filter stopped the image",
    "IMAGE_PROHIBITED_CONTENT": "the image was judged prohibited content",
    "IMAGE_OTHER": "the model could not make the image",
    "NO_IMAGE": "the model answered without an image",
    "IMAGE_RECITATION": "the image was stopped because it recited an existing image",
    "UNEXPECTED_TOOL_CALL": "the model called a tool it was not given",
    "TOO_MANY_TOOL_CALLS": "the model made too many tool calls",
    "MISSING_THOUGHT_SIGNATURE": "the request lacked a thought signature the model needs",
    "MALFORMED_RESPONSE": "the model's reply was malformed",
    "ESCALATION": "the request was escalated for review",
    "PUP_LIMITED_DISABLED": "the model is not available for this account's usage",
    "CONTINUATION": "the reply stopped before it was complete",
    "MODEL_ARMOR": "a Model Armor policy stopped the reply",
}
#: Why a request was refused before any reply (prompt feedback), likewise.
BLOCK_REASONS = {
    "BLOCKED_REASON_UNSPECIFIED": "for an unnamed reason",
    "SAFETY": "by the safety filter",
    "OTHER": "for an unnamed reason",
    "BLOCKLIST": "for a blocked term",
    "PROHIBITED_CONTENT": "as prohibited content",
    "IMAGE_SAFETY": "by the image safety filter",
    "MODEL_ARMOR": "by a Model Armor policy",
    "JAILBREAK": "as an attempt to get around the model's rules",
}
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


def answer_parts(response: object) -> list[object]:
    """The parts of the reply's first candidate that are the answer: a part marked as a
    thought (a draft the model made on its way) is never taken for the result."""
    parts = getattr(response, "parts", None) or []
    return [p for p in parts if not getattr(p, "thought", None)]


def reply_text(response: object, key: str) -> list[str]:
    """The model's words, key masked (it may quote anything it was sent or told)."""
    parts = answer_parts(response)
    return [
        scrub(str(getattr(p, "text", "")).strip(), key) for p in parts if getattr(p, "text", None)
    ]


def reply_image(response: object, key: str) -> np.ndarray:
    """The image of the reply, or NoImageError saying why there is none (key masked)."""
    feedback = getattr(response, "prompt_feedback", None)
    block = getattr(feedback, "block_reason", None) if feedback else None
    if block:
        name = getattr(block, "name", str(block))
        why = BLOCK_REASONS.get(name, "for a reason this version does not know")
        raise NoImageError(f"Gemini blocked the request {why} ({name})")
    for part in answer_parts(response):
        inline = getattr(part, "inline_data", None)
        if inline is not None and inline.data:
            return decode_image(inline.data)
    candidates = getattr(response, "candidates", None) or []
    finish = getattr(candidates[0], "finish_reason", None) if candidates else None
    finish_name = getattr(finish, "name", str(finish)) if finish else None
    if finish_name and finish_name != "STOP":
        why = FINISH_REASONS.get(finish_name, "for a reason this version does not know")
        raise NoImageError(f"no image came back: {why} ({finish_name})")
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
