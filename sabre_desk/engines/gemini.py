"""Gemini image editing through the official google-genai client.

Only the marked patch and the instruction are sent. The reply is not trusted blindly: no
image, a safety stop, or bytes that do not decode are errors with a reason a person can act
on; retries with backoff on 408/429/5xx are the SDK's own. The API key comes from the
environment and never appears in a message, a log line or a project file.
"""

from __future__ import annotations

import io
import os

import numpy as np
from PIL import Image, UnidentifiedImageError

from sabre_desk.core.errors import EngineUnavailableError, RepairError
from sabre_desk.engines.base import ALL_OPS, EngineReply, EngineRequest, check_cancelled
from sabre_desk.imaging.patch import as_rgb8

DEFAULT_MODEL = "gemini-3.1-flash-image"
KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
RETRY_CODES = [408, 429, 500, 502, 503, 504]
#: Small patches are sent larger (models return their own fixed sizes anyway) and the reply
#: is fitted back to the patch; this is the shorter side they are brought up to.
MIN_SEND_SIDE = 512
MAX_REPLY_PIXELS = 40_000_000

FINISH_REASONS = {
    "IMAGE_SAFETY": "the model's safety filter stopped the image",
    "SAFETY": "the model's safety filter stopped the reply",
    "PROHIBITED_CONTENT": "the request was judged prohibited content",
    "NO_IMAGE": "the model answered without an image",
    "RECITATION": "the reply was stopped for recitation",
    "MAX_TOKENS": "the reply was cut off (token limit)",
    "IMAGE_PROHIBITED_CONTENT": "the image was judged prohibited content",
    "IMAGE_OTHER": "the model could not make the image",
    "BLOCKLIST": "the request contains a blocked term",
}


def api_key() -> str | None:
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def _png(pixels: np.ndarray) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, "PNG")
    return buf.getvalue()


def _prepare(marked: np.ndarray) -> np.ndarray:
    h, w = marked.shape[:2]
    if min(h, w) >= MIN_SEND_SIDE:
        return marked
    scale = MIN_SEND_SIDE / min(h, w)
    size = (round(w * scale), round(h * scale))
    return np.asarray(Image.fromarray(marked).resize(size, Image.Resampling.LANCZOS))


class GeminiEngine:
    name = "gemini"
    ops = ALL_OPS

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout_s: float = 180.0,
        attempts: int = 4,
        initial_delay_s: float = 2.0,
    ):
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.initial_delay_s = initial_delay_s

    def unavailable_reason(self) -> str | None:
        if api_key() is None:
            return "set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment to use Gemini"
        return None

    def _client(self, key: str):
        from google import genai
        from google.genai import types

        retry = types.HttpRetryOptions(
            attempts=self.attempts,
            initial_delay=self.initial_delay_s,
            http_status_codes=RETRY_CODES,
        )
        options = types.HttpOptions(
            timeout=int(self.timeout_s * 1000), retry_options=retry, base_url=self.base_url
        )
        return genai.Client(api_key=key, http_options=options)

    def repair(self, request: EngineRequest) -> EngineReply:
        from google.genai import errors, types

        check_cancelled(request)
        key = api_key()
        if key is None:
            raise EngineUnavailableError(self.unavailable_reason() or "no API key")
        client = self._client(key)
        image = types.Part.from_bytes(data=_png(_prepare(request.marked)), mime_type="image/png")
        try:
            response = client.models.generate_content(
                model=self.model,
                contents=[image, request.instruction],
                config=types.GenerateContentConfig(response_modalities=["IMAGE", "TEXT"]),
            )
        except errors.APIError as exc:
            raise RepairError(
                _scrub(f"Gemini answered {exc.code}: {exc.message or exc}", key)
            ) from None
        except Exception as exc:  # transport failures: timeouts, refused connections …
            kind = type(exc).__name__
            if "timeout" in kind.lower():
                reason = f"Gemini did not answer within {self.timeout_s:.0f} s ({kind})"
            else:
                reason = f"could not reach Gemini ({kind}: {exc})"
            raise RepairError(_scrub(reason, key)) from None
        check_cancelled(request)
        return EngineReply(_reply_image(response), model=self.model, notes=_reply_text(response))


def _scrub(message: str, key: str) -> str:
    return message.replace(key, "***") if key else message


def _reply_text(response: object) -> list[str]:
    parts = getattr(response, "parts", None) or []
    return [p.text.strip() for p in parts if getattr(p, "text", None)]


def _reply_image(response: object) -> np.ndarray:
    feedback = getattr(response, "prompt_feedback", None)
    block = getattr(feedback, "block_reason", None) if feedback else None
    if block:
        name = getattr(block, "name", str(block))
        raise RepairError(f"Gemini blocked the request ({name})")
    parts = getattr(response, "parts", None) or []
    for part in parts:
        inline = getattr(part, "inline_data", None)
        if inline is not None and inline.data:
            return _decode(inline.data)
    candidates = getattr(response, "candidates", None) or []
    finish = getattr(candidates[0], "finish_reason", None) if candidates else None
    finish_name = getattr(finish, "name", str(finish)) if finish else None
    if finish_name and finish_name in FINISH_REASONS:
        raise RepairError(f"no image came back: {FINISH_REASONS[finish_name]} ({finish_name})")
    text = " ".join(_reply_text(response))[:200]
    detail = f'; it said: "{text}"' if text else ""
    raise RepairError(f"no image came back from Gemini{detail}")


def _decode(data: bytes) -> np.ndarray:
    """Decode with Pillow whatever the declared mime type says (it can be wrong)."""
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.size[0] * img.size[1] > MAX_REPLY_PIXELS:
                raise RepairError(f"Gemini returned an implausibly large image {img.size}")
            img.load()
            return as_rgb8(np.asarray(img.convert("RGBA") if img.mode in ("P", "LA") else img))
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise RepairError(f"Gemini returned image bytes that do not decode ({exc})") from None
