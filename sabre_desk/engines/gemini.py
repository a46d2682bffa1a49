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
poll the cancel event, and the 408/429/5xx retries with exponential backoff are done in
``gemini_call`` (shared with the question-answering and batch clients), where the deadline,
the cancel event and the true number of attempts are known.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np
from PIL import Image

from sabre_desk.engines.answers import Usage
from sabre_desk.engines.base import (
    ALL_OPS,
    EngineParam,
    EngineReply,
    EngineRequest,
    RepairCancelledError,
    RepairOp,
    check_cancelled,
)
from sabre_desk.engines.deadline_http import Budget
from sabre_desk.engines.gemini_call import (
    NO_KEY,
    CallCancelledError,
    CallFailedError,
    RetryPolicy,
    SharedClient,
    api_key,
    call_with_retries,
    usage_of,
)
from sabre_desk.engines.gemini_call import scrub as _scrub
from sabre_desk.engines.gemini_image import (
    FINISH_REASONS,
    NoImageError,
    nearest_aspect_ratio,
    reply_image,
    reply_text,
)
from sabre_desk.engines.reply_limits import image_limit
from sabre_desk.ground.errors import EngineUnavailableError, RepairError

if TYPE_CHECKING:
    from google.genai import types as genai_types

DEFAULT_MODEL = "gemini-3.1-flash-image"
#: The longest one request (connect, send, wait, read the whole reply) may take.
DEFAULT_TIMEOUT_S = 180.0
#: The longest a whole repair may take, every attempt and every backoff pause included.
DEFAULT_DEADLINE_S = 300.0
DEFAULT_ATTEMPTS = 4
#: Small patches are sent larger (models return their own fixed sizes anyway) and the reply
#: is fitted back to the patch; this is the shorter side they are brought up to.
MIN_SEND_SIDE = 512


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
    name: ClassVar[str] = "gemini"
    label: ClassVar[str] = "Gemini image model"
    ops: ClassVar[frozenset[RepairOp]] = ALL_OPS
    params: ClassVar[tuple[EngineParam, ...]] = (
        EngineParam(
            "model",
            "Model",
            "the Gemini image model (default: the gemini_model setting)",
            metavar="MODEL",
            default=DEFAULT_MODEL,
            from_settings=lambda settings: settings.gemini_model,
            is_model=True,
        ),
    )
    cpu_bound: ClassVar[bool] = False
    uses_network: ClassVar[bool] = True
    fills_vary: ClassVar[bool] = False
    quick_preview: ClassVar[str | None] = None

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
        self.model = model
        self.base_url = base_url
        self.policy = RetryPolicy(
            timeout_s,
            deadline_s if deadline_s is not None else max(DEFAULT_DEADLINE_S, timeout_s),
            attempts,
            initial_delay_s,
            what="repair",
        )
        #: Called with (model, usage) after each reply that reported its token use (the
        #: cost ledger listens here); never with the key or the image.
        self.on_usage: Callable[[str, Usage], None] | None = None
        # One client (and its pooled connections) for every repair of this engine, each
        # repair under its own budget; closed by close().
        self._shared = SharedClient(base_url, min(self.policy.timeout_s, self.policy.deadline_s))

    def close(self) -> None:
        """Close the client and its connections (a later repair makes a new one)."""
        self._shared.close()

    def __enter__(self) -> GeminiEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def timeout_s(self) -> float:
        return self.policy.timeout_s

    @property
    def deadline_s(self) -> float:
        return self.policy.deadline_s

    @classmethod
    def unavailable_reason(cls) -> str | None:
        return NO_KEY if api_key() is None else None

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

        policy = self.policy
        budget = Budget(policy.deadline_s, policy.timeout_s, request.cancel, image_limit())
        sent = _prepare(request.marked)
        sent_h, sent_w = sent.shape[:2]
        image = types.Part.from_bytes(data=_png(sent), mime_type="image/png")
        config = types.GenerateContentConfig(
            response_modalities=["IMAGE", "TEXT"],
            image_config=types.ImageConfig(aspect_ratio=nearest_aspect_ratio(sent_w, sent_h)),
        )
        contents: list[genai_types.PartUnionDict] = [image, request.instruction]
        client = self._shared.client(key)
        with self._shared.budgets.applying(budget):
            try:
                response = call_with_retries(
                    lambda: client.models.generate_content(
                        model=self.model, contents=contents, config=config
                    ),
                    budget,
                    policy,
                    request.cancel,
                )
            except CallCancelledError:
                raise RepairCancelledError("repair cancelled") from None
            except CallFailedError as exc:
                raise RepairError(exc.reason) from None
        usage = usage_of(response)
        if usage is not None and self.on_usage is not None:
            self.on_usage(self.model, usage)
        check_cancelled(request)
        notes = reply_text(response, key)
        try:
            pixels = reply_image(response, key)
        except NoImageError as exc:
            raise RepairError(exc.reason) from None
        return EngineReply(pixels, model=self.model, notes=notes)


__all__ = ["FINISH_REASONS", "GeminiEngine", "nearest_aspect_ratio"]
