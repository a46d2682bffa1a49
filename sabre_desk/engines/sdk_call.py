"""One call through the official ``openai`` or ``anthropic`` client, the way every sabre-desk
engine makes it: the key from the provider's own variable and scrubbed from every text;
retries on 408/429/5xx, timeouts and lost connections with backoff (honouring
``Retry-After``); and an httpx2 client whose transport (``deadline_http``) holds the whole
call to a deadline, a cancel button and a reply limit. Both clients come from the same
generator and share the error classes used here (``APIStatusError``, ``APITimeoutError``,
``APIConnectionError``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar

from sabre_desk.engines.answers import Answer, AnswerCancelledError, AnswerRequest, within_limit
from sabre_desk.engines.deadline_http import (
    Budget,
    OutOfTimeError,
    ReplyLimit,
    ReplyTooLargeError,
    RequestCancelledError,
    StopRequestError,
    ThreadBudget,
    budget_transport_class,
)
from sabre_desk.engines.gemini_call import (
    MAX_SERVER_DELAY_S,
    RETRY_CODES,
    CallCancelledError,
    CallFailedError,
    Cooldown,
    scrub,
)
from sabre_desk.engines.models import LABELS, ModelName, Provider, api_key, no_key_reason

T = TypeVar("T")
#: What local servers are sent as a key when none is set (they ignore it; the client needs one).
NO_KEY_NEEDED = "not-needed"
#: The first pause before another attempt when the server named none; it doubles each time.
BACKOFF_S = 1.0


class SdkClient:
    """One official client per key for every call of an engine, on any number of threads,
    each call under its own Budget (``ThreadBudget``)."""

    def __init__(
        self, name: ModelName, base_url: str | None, timeout_s: float, attempts: int
    ) -> None:
        self.name = name
        self.base_url = base_url
        self.timeout_s = timeout_s
        self.attempts = attempts
        self.budgets = ThreadBudget()
        #: shared by every call of this client: a 429 with a delay pauses them all
        self.cooldown = Cooldown()
        self._lock = threading.Lock()
        self._key: str | None = None
        self._http: Any = None
        self._client: Any = None

    @property
    def label(self) -> str:
        return LABELS[self.name.provider]

    def key(self) -> str | None:
        key = api_key(self.name.provider)
        if key is None and self.name.provider is Provider.LOCAL:
            return NO_KEY_NEEDED
        return key

    def secret(self) -> str | None:
        """The key to mask in what the server sends back (none for a local server without
        one: the placeholder it is sent is no secret)."""
        key = self.key()
        return None if key == NO_KEY_NEEDED else key

    def unavailable_reason(self) -> str | None:
        from sabre_desk.engines.models import client_missing

        missing = client_missing(self.name.provider)
        if missing:
            return missing
        return no_key_reason(self.name.provider) if self.key() is None else None

    def sdk(self) -> ModuleType:
        import anthropic
        import openai

        return anthropic if self.name.provider is Provider.ANTHROPIC else openai

    def client(self, key: str) -> Any:
        import httpx2

        with self._lock:
            if self._client is None or key != self._key:
                self._close()
                transport = budget_transport_class()(self.budgets)
                self._http = httpx2.Client(transport=transport, trust_env=False)
                sdk = self.sdk()
                make = sdk.Anthropic if sdk.__name__ == "anthropic" else sdk.OpenAI
                self._client = make(
                    api_key=key,
                    base_url=self.base_url,
                    timeout=self.timeout_s,
                    max_retries=0,
                    http_client=self._http,
                )
                self._key = key
            return self._client

    def _close(self) -> None:
        if self._client is not None:
            self._client.close()
        if self._http is not None:
            self._http.close()
        self._client = self._http = None

    def close(self) -> None:
        with self._lock:
            self._close()

    def call(
        self,
        action: Callable[[Any], T],
        cancel: threading.Event,
        deadline_s: float,
        limit: ReplyLimit | None,
    ) -> T:
        """*action* on the client, or CallFailedError (key masked) / CallCancelledError.

        The retries are ours (the client is made with none): the client would retry a reply
        refused for its size, or a cancel, as a connection error and pay or wait again."""
        if cancel.is_set():
            raise CallCancelledError()
        key = self.key()
        if key is None:
            raise CallFailedError(no_key_reason(self.name.provider))
        client = self.client(key)
        budget = Budget(deadline_s, deadline_s, cancel, limit)
        budget.begin_attempt()
        attempt = 0
        while True:
            if (wait := self.cooldown.left()) > 0:
                if wait >= budget.overall_left():
                    reason = f"{self.label} asked to wait {wait:.0f} s; no time left for it"
                    raise CallFailedError(reason)
                if cancel.wait(wait):
                    raise CallCancelledError()
            attempt += 1
            try:
                with self.budgets.applying(budget):
                    return action(client)
            except Exception as exc:  # every way out, so that no message carries the key
                reason, retry, asked = self._failure(exc, deadline_s)
            if not retry or attempt >= self.attempts:
                tally = f" ({attempt} attempts)" if attempt > 1 else ""
                raise CallFailedError(scrub(reason[:500] + tally, key))
            pause = asked if asked is not None else BACKOFF_S * 2 ** (attempt - 1)
            if pause >= budget.overall_left():
                raise CallFailedError(scrub(f"{reason[:500]}; no time left to try again", key))
            if cancel.wait(pause):
                raise CallCancelledError()

    def answer(
        self,
        action: Callable[[Any], Any],
        request: AnswerRequest,
        cancel: threading.Event,
        deadline_s: float,
        read: Callable[[Any], Answer],
    ) -> Answer:
        """One question's call: the reply read as an Answer, every failure its reason, only
        a cancel raised (AnswerCancelledError). The reply's shape is checked and the key
        masked in it before *read* sees it (``reply_shape``)."""
        from sabre_desk.engines.reply_limits import answer_limit
        from sabre_desk.engines.reply_shape import ReplyShapeError, plain_reply, scrub_json

        limit = answer_limit(request.config.max_output_tokens)
        try:
            reply = self.call(action, cancel, deadline_s, limit)
        except CallCancelledError:
            raise AnswerCancelledError() from None
        except CallFailedError as exc:
            return Answer(None, failure=exc.reason)
        if cancel.is_set():
            raise AnswerCancelledError()
        try:
            answer = read(scrub_json(plain_reply(reply), self.secret()))
        except ReplyShapeError as exc:
            return Answer(None, failure=self.unreadable(exc))
        return within_limit(answer, request.config.max_output_tokens)

    def unreadable(self, exc: Exception) -> str:
        """The one line a reply of the wrong shape is recorded as (key masked)."""
        reason = getattr(exc, "reason", str(exc))
        return scrub(f"{self.label}'s reply could not be read: {reason}", self.secret())

    def _failure(self, exc: Exception, deadline_s: float) -> tuple[str, bool, float | None]:
        """Why *exc* ended the attempt, whether to try again, and the pause the server asked
        for (None: it named none)."""
        sdk = self.sdk()
        label = self.label
        stop = _stop_in(exc)
        if isinstance(stop, RequestCancelledError):
            raise CallCancelledError() from None
        if isinstance(stop, ReplyTooLargeError):
            return f"{label}'s reply was refused: {stop.reason}", False, None
        if isinstance(stop, OutOfTimeError):
            return f"{label} did not finish answering within {deadline_s:g} s", False, None
        if isinstance(exc, sdk.APIStatusError):
            message = _message(exc)
            reason = f"{label} answered {exc.status_code}" + (f": {message}" if message else "")
            retry = exc.status_code in RETRY_CODES
            asked = _retry_after(exc) if retry else None
            if asked and exc.status_code == 429:
                self.cooldown.hold(asked)
            return reason, retry, asked
        if isinstance(exc, sdk.APITimeoutError):
            return f"{label} did not answer within {self.timeout_s:g} s", True, None
        if isinstance(exc, sdk.APIConnectionError):
            where = f" at {self.base_url}" if self.base_url else ""
            return f"could not reach {label}{where} ({exc.__cause__ or exc})", True, None
        return f"{label}'s reply could not be read ({type(exc).__name__}: {exc})", False, None


class SdkWriter:
    """What the OpenAI and Anthropic specification writers share: the answerer whose client
    they use, its name, and one structured-output call with its failures as reasons."""

    def __init__(self, answerer: Any) -> None:
        self.answerer = answerer
        self.kind: str = answerer.kind
        self.model: str = answerer.model
        #: the answerer's client's: a 429 with a delay pauses every call of that client
        self.cooldown: Cooldown = answerer.sdk.cooldown

    def close(self) -> None:
        self.answerer.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def unavailable_reason(self) -> str | None:
        reason: str | None = self.answerer.unavailable_reason()
        return reason

    @staticmethod
    def messages(turns: list[tuple[str, str]]) -> list[dict[str, str]]:
        """The conversation's turns in the chat shape ("model" is the "assistant")."""
        return [
            {"role": "assistant" if role == "model" else role, "content": text}
            for role, text in turns
        ]

    def ask(self, action: Callable[[Any], Any], cancel: threading.Event) -> dict[str, Any]:
        """The reply as plain JSON (its shape checked, the key masked in it), or
        MakeFailedError / MakeCancelledError."""
        from sabre_desk.engines.gemini_make import MakeCancelledError, MakeFailedError
        from sabre_desk.engines.reply_limits import spec_limit
        from sabre_desk.engines.reply_shape import ReplyShapeError, plain_reply, scrub_json

        sdk: SdkClient = self.answerer.sdk
        try:
            reply = sdk.call(action, cancel, self.answerer.deadline_s, spec_limit())
        except CallCancelledError:
            raise MakeCancelledError() from None
        except CallFailedError as exc:
            raise MakeFailedError(exc.reason) from None
        try:
            data: dict[str, Any] = scrub_json(plain_reply(reply), sdk.secret())
        except ReplyShapeError as exc:
            raise MakeFailedError(sdk.unreadable(exc)) from None
        return data


def _stop_in(exc: BaseException) -> StopRequestError | None:
    """Our own reason for ending a request, wherever a client wrapped it."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, StopRequestError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return min(MAX_SERVER_DELAY_S, max(0.0, float(value))) if value is not None else None
    except (TypeError, ValueError):
        return None


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:300]
    return ""
