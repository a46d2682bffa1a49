"""Gemini image editing through the official google-genai client.

Only the marked patch and the instruction are sent. The reply is not trusted blindly: no
image, a safety stop, or bytes that do not decode are errors with a reason a person can act
on. The API key comes from the environment and never appears in a message, a note, a log
line or a project file: every text that comes from the model or the server is scrubbed.

Time is bounded twice, and both limits are totals, not silences: each request may take
``timeout_s`` and the whole repair, retries and backoff included, ``deadline_s``. The SDK's
own ``HttpOptions(timeout=...)`` is an httpx *per-read* timeout, so a server trickling one byte
every few seconds would keep it waiting forever, and its tenacity retries sleep without
looking at a deadline or at a cancel button. So the SDK is given an httpx2 client whose
sockets (through an httpcore2 network backend) refuse to wait past the current deadline and
poll the cancel event, and the 408/429/5xx retries with exponential backoff are done here,
where the deadline, the cancel event and the true number of attempts are known.

One client per engine, reused by its repairs (each under its own budget, see
``deadline_http.obeying``) and closed by ``close()``. The reply is asked for in the
supported aspect ratio nearest the patch's, and a part the model marks as a thought is
never taken for the result.
"""

from __future__ import annotations

import io
import logging
import math
import os
import random
import threading
from typing import TYPE_CHECKING

import numpy as np
from PIL import Image, UnidentifiedImageError

from sabre_desk.engines.base import (
    ALL_OPS,
    EngineReply,
    EngineRequest,
    RepairCancelledError,
    check_cancelled,
)
from sabre_desk.engines.deadline_http import (
    Budget,
    OutOfTimeError,
    RequestCancelledError,
    budget_transport_class,
    obeying,
)
from sabre_desk.ground.errors import EngineUnavailableError, RepairError
from sabre_desk.imaging.patch import as_rgb8

if TYPE_CHECKING:
    import httpx2
    from google import genai
    from google.genai import types as genai_types

log = logging.getLogger(__name__)

DEFAULT_MODEL = "gemini-3.1-flash-image"
KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
RETRY_CODES = frozenset({408, 429, 500, 502, 503, 504})
#: The longest one request (connect, send, wait, read the whole reply) may take.
DEFAULT_TIMEOUT_S = 180.0
#: The longest a whole repair may take, every attempt and every backoff pause included.
DEFAULT_DEADLINE_S = 300.0
DEFAULT_ATTEMPTS = 4
#: Backoff pauses double from the initial delay up to this, plus jitter of up to one
#: initial delay (so that many clients hit by the same 429 do not come back in step).
MAX_BACKOFF_S = 30.0
#: Small patches are sent larger (models return their own fixed sizes anyway) and the reply
#: is fitted back to the patch; this is the shorter side they are brought up to.
MIN_SEND_SIDE = 512
MAX_REPLY_PIXELS = 40_000_000
#: The shortest start or end of the key that is masked when a text holds only part of it.
KEY_FRAGMENT = 8

#: Why a reply without an image ended, for every finish reason the API names (a test holds
#: this table to the installed SDK's FinishReason), in words a reviewer can act on.
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


def _attempts(n: int) -> str:
    return f"{n} attempt" if n == 1 else f"{n} attempts"


def nearest_aspect_ratio(width: int, height: int) -> str:
    """The supported aspect ratio closest to width:height (compared as logarithms, so 2:1
    is as far from 1:1 as 1:2 is)."""
    target = math.log(width / height)

    def distance(ratio: str) -> float:
        w, h = (int(v) for v in ratio.split(":"))
        return abs(math.log(w / h) - target)

    return min(ASPECT_RATIOS, key=distance)


class GeminiEngine:
    name = "gemini"
    ops = ALL_OPS

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        attempts: int = DEFAULT_ATTEMPTS,
        initial_delay_s: float = 2.0,
        deadline_s: float | None = None,
    ) -> None:
        """``deadline_s`` defaults to DEFAULT_DEADLINE_S, or to ``timeout_s`` when that is
        longer, so that raising the per-request limit alone still allows one full request."""
        if timeout_s <= 0 or (deadline_s is not None and deadline_s <= 0):
            raise ValueError("Gemini time limits must be positive")
        if attempts < 1:
            raise ValueError("Gemini needs at least one attempt")
        self.model = model
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.deadline_s = (
            deadline_s if deadline_s is not None else max(DEFAULT_DEADLINE_S, timeout_s)
        )
        self.attempts = attempts
        self.initial_delay_s = initial_delay_s
        # One client (and its pooled connections) for every repair of this engine, made on
        # first use, made again only if the key changes, closed by close().
        self._lock = threading.Lock()
        self._client: tuple[str, httpx2.Client, genai.Client] | None = None

    def close(self) -> None:
        """Close the client and its connections (a later repair makes a new one)."""
        with self._lock:
            held, self._client = self._client, None
        if held is not None:
            _, http, client = held
            client.close()
            http.close()

    def __enter__(self) -> GeminiEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client_for(self, key: str) -> genai.Client:
        import httpx2
        from google import genai
        from google.genai import types

        with self._lock:
            if self._client is not None and self._client[0] == key:
                return self._client[2]
            stale, self._client = self._client, None
        if stale is not None:
            stale[2].close()
            stale[1].close()
        # trust_env=False: environment proxies would otherwise get transports of httpx2's
        # own that know nothing of the budget; the budget transport honours them instead.
        http = httpx2.Client(transport=budget_transport_class()(), trust_env=False)
        options = types.HttpOptions(
            base_url=self.base_url,
            # Also sent to the server as X-Server-Timeout. No retry_options: the SDK then
            # makes exactly one attempt per call and the retries are ours.
            timeout=max(1, int(min(self.timeout_s, self.deadline_s) * 1000)),
            httpx_client=http,
        )
        client = genai.Client(api_key=key, http_options=options)
        with self._lock:
            if self._client is None:
                self._client = (key, http, client)
                return client
        # another thread made one meanwhile: use theirs
        client.close()
        http.close()
        return self._client_for(key)

    def unavailable_reason(self) -> str | None:
        if api_key() is None:
            return "set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment to use Gemini"
        return None

    def repair(self, request: EngineRequest) -> EngineReply:
        check_cancelled(request)
        key = api_key()
        if key is None:
            raise EngineUnavailableError(self.unavailable_reason() or "no API key")
        # The one way out for every failure, so that no message can carry the key, whatever
        # the server, the model or a library put into it.
        try:
            return self._repair(request, key)
        except RepairError as exc:
            raise type(exc)(_scrub(exc.reason, key)) from None
        except Exception as exc:
            reason = f"the Gemini engine failed ({type(exc).__name__}: {exc})"
            raise RepairError(_scrub(reason, key)) from None

    def _repair(self, request: EngineRequest, key: str) -> EngineReply:
        from google.genai import types

        budget = Budget(self.deadline_s, self.timeout_s, request.cancel)
        sent = _prepare(request.marked)
        image = types.Part.from_bytes(data=_png(sent), mime_type="image/png")
        client = self._client_for(key)
        with obeying(budget):
            response = self._generate(client, image, sent.shape, request, budget)
        check_cancelled(request)
        notes = _reply_text(response, key)
        return EngineReply(_reply_image(response, key), model=self.model, notes=notes)

    def _generate(
        self,
        client: genai.Client,
        image: genai_types.Part,
        shape: tuple[int, ...],
        request: EngineRequest,
        budget: Budget,
    ) -> genai_types.GenerateContentResponse:
        """Call the model, retrying 408/429/5xx, timeouts and refused connections (the cases
        the SDK's own retry predicate covers) until the attempts or the deadline run out."""
        import httpx2
        from google.genai import errors, types

        config = types.GenerateContentConfig(
            response_modalities=["IMAGE", "TEXT"],
            image_config=types.ImageConfig(aspect_ratio=nearest_aspect_ratio(shape[1], shape[0])),
        )
        contents: list[genai_types.PartUnionDict] = [image, request.instruction]
        attempt = 0
        while True:
            attempt += 1
            budget.begin_attempt()
            try:
                return client.models.generate_content(
                    model=self.model, contents=contents, config=config
                )
            except RequestCancelledError:
                raise RepairCancelledError("repair cancelled") from None
            except (OutOfTimeError, httpx2.TimeoutException):
                if budget.attempt_was_capped_by_deadline():
                    raise RepairError(
                        f"Gemini did not finish answering within {self.deadline_s:g} s, the "
                        f"limit for the whole repair ({_attempts(attempt)} of up to "
                        f"{self.timeout_s:g} s each)"
                    ) from None
                failure = (
                    f"Gemini did not finish answering within {self.timeout_s:g} s, the limit "
                    "per attempt"
                )
                retry = True
            except errors.APIError as exc:
                failure = f"Gemini answered {exc.code}: {exc.message or exc}"
                retry = exc.code in RETRY_CODES
            except httpx2.TransportError as exc:
                failure = f"could not reach Gemini ({type(exc).__name__}: {exc})"
                retry = isinstance(exc, httpx2.ConnectError)
            except Exception as exc:  # a reply the SDK cannot parse, …
                failure = f"Gemini's reply could not be read ({type(exc).__name__}: {exc})"
                retry = False
            tally = ""
            if attempt > 1 or retry:
                tally = f" ({_attempts(attempt)}, at most {self.deadline_s:g} s in all)"
            if not retry or attempt >= self.attempts:
                raise RepairError(failure + tally)
            pause = self._backoff(attempt)
            log.info(
                "Gemini attempt %d failed (%s); trying again in %.1f s", attempt, failure, pause
            )
            if pause >= budget.overall_left():
                raise RepairError(
                    f"{failure}{tally}; no time left for another attempt within "
                    f"{self.deadline_s:g} s"
                )
            if request.cancel.wait(pause):
                raise RepairCancelledError("repair cancelled")

    def _backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter, as the SDK's own retry would wait."""
        base = min(MAX_BACKOFF_S, self.initial_delay_s * 2.0 ** (attempt - 1))
        return base + random.uniform(0, self.initial_delay_s)


def _scrub(message: str, key: str) -> str:
    """*message* with the key masked, also where a cut (ours or a library's, shortening a
    long text) left only its start or its end: every run of KEY_FRAGMENT or more characters
    that begins the key or ends it."""
    if not key:
        return message
    masked = [False] * len(message)
    fragment = min(KEY_FRAGMENT, len(key))
    for probe, forward in ((key[:fragment], True), (key[-fragment:], False)):
        at = message.find(probe)
        while at >= 0:
            lo, hi, n = at, at + fragment, fragment
            while n < len(key) and forward and hi < len(message) and message[hi] == key[n]:
                hi, n = hi + 1, n + 1
            while n < len(key) and not forward and lo > 0 and message[lo - 1] == key[-n - 1]:
                lo, n = lo - 1, n + 1
            masked[lo:hi] = [True] * (hi - lo)
            at = message.find(probe, at + 1)
    out: list[str] = []
    for i, (char, hidden) in enumerate(zip(message, masked, strict=True)):
        if not hidden:
            out.append(char)
        elif i == 0 or not masked[i - 1]:
            out.append("***")
    return "".join(out)


# --- reading the reply ---------------------------------------------------------------------


def _answer_parts(response: object) -> list[object]:
    """The parts of the reply's first candidate that are the answer: a part marked as a
    thought (a draft the model made on its way) is never taken for the result."""
    parts = getattr(response, "parts", None) or []
    return [p for p in parts if not getattr(p, "thought", None)]


def _reply_text(response: object, key: str) -> list[str]:
    """The model's words, key masked (it may quote anything it was sent or told)."""
    parts = _answer_parts(response)
    return [
        _scrub(str(getattr(p, "text", "")).strip(), key) for p in parts if getattr(p, "text", None)
    ]


def _reply_image(response: object, key: str) -> np.ndarray:
    feedback = getattr(response, "prompt_feedback", None)
    block = getattr(feedback, "block_reason", None) if feedback else None
    if block:
        name = getattr(block, "name", str(block))
        why = BLOCK_REASONS.get(name, "for a reason this version does not know")
        raise RepairError(f"Gemini blocked the request {why} ({name})")
    for part in _answer_parts(response):
        inline = getattr(part, "inline_data", None)
        if inline is not None and inline.data:
            return _decode(inline.data)
    candidates = getattr(response, "candidates", None) or []
    finish = getattr(candidates[0], "finish_reason", None) if candidates else None
    finish_name = getattr(finish, "name", str(finish)) if finish else None
    if finish_name and finish_name != "STOP":
        why = FINISH_REASONS.get(finish_name, "for a reason this version does not know")
        raise RepairError(f"no image came back: {why} ({finish_name})")
    text = " ".join(_reply_text(response, key))[:200]  # masked before it is cut
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
