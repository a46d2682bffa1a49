"""One Gemini call through the official google-genai client, the way every sabre-desk
engine makes it: the key from the environment and scrubbed from every text, a total time
budget and a cancel button on the sockets (``deadline_http``), and retries with backoff on
408/429/5xx, timeouts and refused connections, honouring the delay the server asks for.

The SDK's own retries are left off (no ``HttpRetryOptions``): its tenacity loop sleeps
without looking at a deadline or a cancel button, and cannot tell the caller how many
attempts it made. The repair engine (``gemini.py``), the question-answering client
(``gemini_qa.py``) and the batch client (``gemini_batch.py``) all call through here.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sabre_desk.engines.answers import Usage
from sabre_desk.engines.deadline_http import (
    Budget,
    OutOfTimeError,
    ReplyTooLargeError,
    RequestCancelledError,
    ThreadBudget,
    budget_transport_class,
)

if TYPE_CHECKING:
    from google import genai

KEY_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
RETRY_CODES = frozenset({408, 429, 500, 502, 503, 504})
#: Backoff pauses double from the initial delay up to this, plus jitter of up to one
#: initial delay (so that many clients hit by the same 429 do not come back in step).
MAX_BACKOFF_S = 30.0
#: The longest pause a server's own retry delay is honoured with.
MAX_SERVER_DELAY_S = 300.0
#: The shortest start or end of the key that is masked when a text holds only part of it.
KEY_FRAGMENT = 8

T = TypeVar("T")
log = logging.getLogger(__name__)


class CallFailedError(Exception):
    """The call did not succeed; ``reason`` says why in words a person can act on."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class CallCancelledError(Exception):
    """The cancel event was set while the call was under way or waiting to retry."""


def api_key() -> str | None:
    for name in KEY_VARIABLES:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


NO_KEY = "set GEMINI_API_KEY (or GOOGLE_API_KEY) in the environment to use Gemini"


@dataclass(frozen=True)
class RetryPolicy:
    timeout_s: float  # one request, connect to last byte
    deadline_s: float  # the whole call, every attempt and pause included
    attempts: int = 4
    initial_delay_s: float = 2.0
    what: str = "call"  # what the deadline bounds, in messages: "the whole repair"

    def __post_init__(self) -> None:
        if self.timeout_s <= 0 or self.deadline_s <= 0:
            raise ValueError("Gemini time limits must be positive")
        if self.attempts < 1:
            raise ValueError("Gemini needs at least one attempt")

    def backoff(self, attempt: int) -> float:
        """Exponential backoff with jitter, as the SDK's own retry would wait."""
        base = min(MAX_BACKOFF_S, self.initial_delay_s * 2.0 ** (attempt - 1))
        return base + random.uniform(0, self.initial_delay_s)


class Cooldown:
    """A pause shared by concurrent callers: when the server says "slow down" (429 with a
    retry delay) to one of them, none sends again before that delay is over."""

    def __init__(self) -> None:
        self._until = 0.0
        self._lock = threading.Lock()

    def hold(self, seconds: float) -> None:
        with self._lock:
            self._until = max(self._until, time.monotonic() + seconds)

    def left(self) -> float:
        with self._lock:
            return max(0.0, self._until - time.monotonic())


@contextlib.contextmanager
def open_client(
    key: str, base_url: str | None, budget: Budget, timeout_s: float
) -> Iterator[genai.Client]:
    """A google-genai client whose sockets obey *budget* (see ``deadline_http``)."""
    import httpx2
    from google import genai
    from google.genai import types

    # trust_env=False: environment proxies would otherwise get transports of httpx2's own
    # that know nothing of the budget; the budget transport honours them instead.
    transport = budget_transport_class()(budget)
    with httpx2.Client(transport=transport, trust_env=False) as http:
        options = types.HttpOptions(
            base_url=base_url,
            # Also sent to the server as X-Server-Timeout. No retry_options: the SDK then
            # makes exactly one attempt per call and the retries are ours.
            timeout=max(1, int(timeout_s * 1000)),
            httpx_client=http,
        )
        with genai.Client(api_key=key, http_options=options) as client:
            yield client


class SharedClient:
    """One google-genai client for every call of an answerer, on any number of threads.

    Building a client per call costs ~100 ms of interpreter time (the SDK loads trust stores
    for clients it may never use), which would cap a screening run at a few calls a second
    and stall a window's thread. Here the client, its connection pool and the budget
    transport are made once; each call runs under its own Budget (``ThreadBudget``)."""

    def __init__(self, base_url: str | None, timeout_s: float) -> None:
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.budgets = ThreadBudget()
        self._lock = threading.Lock()
        self._key: str | None = None
        self._http: Any = None
        self._client: genai.Client | None = None

    def client(self, key: str) -> genai.Client:
        import httpx2
        from google import genai
        from google.genai import types

        with self._lock:
            if self._client is None or key != self._key:
                self._close()
                transport = budget_transport_class()(self.budgets)
                self._http = httpx2.Client(transport=transport, trust_env=False)
                options = types.HttpOptions(
                    base_url=self.base_url,
                    timeout=max(1, int(self.timeout_s * 1000)),
                    httpx_client=self._http,
                )
                self._client = genai.Client(api_key=key, http_options=options)
                self._key = key
            return self._client

    def _close(self) -> None:
        if self._http is not None:
            self._http.close()
        self._client = self._http = None

    def close(self) -> None:
        with self._lock:
            self._close()


def attempts_text(n: int) -> str:
    return f"{n} attempt" if n == 1 else f"{n} attempts"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def server_retry_delay(exc: Exception) -> float | None:
    """The pause the server asked for: google.rpc.RetryInfo's ``retryDelay`` ("17s") in the
    error's details, else a ``Retry-After`` header in seconds; None when it named none."""
    details = getattr(exc, "details", None)
    error = details.get("error", details) if isinstance(details, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict) and str(item.get("@type", "")).endswith("RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return min(MAX_SERVER_DELAY_S, float(match.group(1)))
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return min(MAX_SERVER_DELAY_S, float(value)) if value is not None else None
    except (TypeError, ValueError):
        return None


def call_with_retries(
    call: Callable[[], T],
    budget: Budget,
    policy: RetryPolicy,
    cancel: threading.Event,
    cooldown: Cooldown | None = None,
) -> T:
    """Run *call*, retrying 408/429/5xx, timeouts and refused connections (the cases the
    SDK's own retry predicate covers) until the attempts or the deadline run out.

    Raises CallFailedError (with the number of attempts) or CallCancelledError."""
    import httpx2
    from google.genai import errors

    attempt = 0
    while True:
        if cooldown is not None and (wait := cooldown.left()) > 0:
            if wait >= budget.overall_left():
                raise CallFailedError(
                    f"Gemini asked to wait {wait:.0f} s; no time left within "
                    f"{policy.deadline_s:g} s"
                )
            if cancel.wait(wait):
                raise CallCancelledError()
        attempt += 1
        budget.begin_attempt()
        asked: float | None = None
        try:
            return call()
        except RequestCancelledError:
            raise CallCancelledError() from None
        except ReplyTooLargeError as exc:  # asking again would pay again for the same
            raise CallFailedError(f"Gemini's reply was refused: {exc.reason}") from None
        except (OutOfTimeError, httpx2.TimeoutException):
            if budget.attempt_was_capped_by_deadline():
                raise CallFailedError(
                    f"Gemini did not finish answering within {policy.deadline_s:g} s, the "
                    f"limit for the whole {policy.what} ({attempts_text(attempt)} of up to "
                    f"{policy.timeout_s:g} s each)"
                ) from None
            failure = (
                f"Gemini did not finish answering within {policy.timeout_s:g} s, the limit "
                "per attempt"
            )
            retry = True
        except errors.APIError as exc:
            failure = f"Gemini answered {exc.code}: {exc.message or exc}"
            retry = exc.code in RETRY_CODES
            asked = server_retry_delay(exc) if retry else None
            if asked is not None and exc.code == 429 and cooldown is not None:
                cooldown.hold(asked)
        except httpx2.TransportError as exc:
            failure = f"could not reach Gemini ({type(exc).__name__}: {exc})"
            retry = isinstance(exc, httpx2.ConnectError)
        except Exception as exc:  # a reply the SDK cannot parse, …
            failure = f"Gemini's reply could not be read ({type(exc).__name__}: {exc})"
            retry = False
        tally = ""
        if attempt > 1 or retry:
            tally = f" ({attempts_text(attempt)}, at most {policy.deadline_s:g} s in all)"
        if not retry or attempt >= policy.attempts:
            raise CallFailedError(failure + tally)
        pause = max(policy.backoff(attempt), asked or 0.0)
        log.info("Gemini attempt %d failed (%s); trying again in %.1f s", attempt, failure, pause)
        if pause >= budget.overall_left():
            raise CallFailedError(
                f"{failure}{tally}; no time left for another attempt within {policy.deadline_s:g} s"
            )
        if cancel.wait(pause):
            raise CallCancelledError()


def scrub(message: str, key: str | None) -> str:
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


def usage_of(response: Any) -> Usage | None:
    """Input, output, image and thinking tokens from a reply's ``usage_metadata``."""
    meta = getattr(response, "usage_metadata", None)
    if meta is None:
        return None
    image = None
    for detail in getattr(meta, "prompt_tokens_details", None) or []:
        modality = getattr(detail, "modality", None)
        if getattr(modality, "name", str(modality)) == "IMAGE":
            image = (image or 0) + (getattr(detail, "token_count", 0) or 0)
    return Usage(
        input=getattr(meta, "prompt_token_count", None),
        output=getattr(meta, "candidates_token_count", None),
        image=image,
        thoughts=getattr(meta, "thoughts_token_count", None),
    )


def smallest_thinking(model: str) -> dict[str, Any] | None:
    """The least thinking *model* allows, as a ThinkingConfig: Gemini 2.5 Flash (and Lite)
    can turn it off (budget 0), 2.5 Pro thinks at least 128 tokens, Gemini 3 and later take a
    level (``minimal`` for Flash, ``low`` for Pro), older models do not think."""
    name = model.lower().removeprefix("models/")
    if name.startswith(("gemini-1", "gemini-2.0")):
        return None
    if name.startswith("gemini-2.5"):
        return {"thinking_budget": 128 if "pro" in name else 0}
    return {"thinking_level": "low" if "pro" in name else "minimal"}
