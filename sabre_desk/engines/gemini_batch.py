"""The Gemini Batch API through google-genai's ``client.batches``: many questions as one job,
at half the price, answered within a day rather than in seconds.

Small jobs go inline (the requests in the create call, under ~20 MB); larger ones are
written as JSONL (``{"key": …, "request": {…}}`` a line), uploaded with ``client.files`` and
named as the job's source. Every request carries its key (the request cache key), so results
are matched by key, whatever order they come back in. A request the service could not answer
comes back as a failed Answer with the service's reason; a job that expired, failed or was
cancelled has no answers at all (``BatchState.answers`` is empty).

Each call to the service goes through ``gemini_call`` (deadline, cancel, retries).
"""

from __future__ import annotations

import base64
import json
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from sabre_desk.engines.answers import Answer, AnswerRequest, within_limit
from sabre_desk.engines.deadline_http import Budget, ReplyLimit
from sabre_desk.engines.gemini_call import (
    NO_KEY,
    CallFailedError,
    RetryPolicy,
    api_key,
    call_with_retries,
    open_client,
    scrub,
)
from sabre_desk.engines.gemini_qa import GeminiAnswerer, read_answer
from sabre_desk.engines.reply_limits import batch_limit, image_batch_limit

if TYPE_CHECKING:
    from google import genai

#: Inline jobs up to this many bytes of requests (the service takes 20 MB per call).
INLINE_LIMIT = 16 * 1024 * 1024
DONE_STATES = {
    "JOB_STATE_SUCCEEDED",
    "JOB_STATE_FAILED",
    "JOB_STATE_CANCELLED",
    "JOB_STATE_EXPIRED",
    "JOB_STATE_PARTIALLY_SUCCEEDED",
}
STATE_WORDS = {
    "JOB_STATE_PENDING": "waiting to start",
    "JOB_STATE_QUEUED": "waiting to start",
    "JOB_STATE_RUNNING": "running",
    "JOB_STATE_SUCCEEDED": "finished",
    "JOB_STATE_PARTIALLY_SUCCEEDED": "finished, some requests failed",
    "JOB_STATE_FAILED": "failed",
    "JOB_STATE_CANCELLED": "cancelled",
    "JOB_STATE_EXPIRED": "expired before it finished (the service keeps a job 48 hours)",
}
T = TypeVar("T")


@dataclass(frozen=True)
class BatchItem:
    key: str
    request: AnswerRequest


@dataclass
class JobState:
    """A batch job's state, in the service's words and in a person's."""

    name: str
    state: str

    @property
    def done(self) -> bool:
        return self.state in DONE_STATES

    @property
    def words(self) -> str:
        return STATE_WORDS.get(self.state, self.state)


@dataclass
class BatchState(JobState):
    answers: dict[str, Answer] = field(default_factory=dict)  # by key; only when done


@dataclass(frozen=True)
class RawItem:
    """One request of any kind, in the REST shape (a GenerateContentRequest), with its key."""

    key: str
    rest: dict[str, Any]


@dataclass
class RawState(JobState):
    """When the job is done, each request's reply or error text, by key."""

    replies: dict[str, tuple[Any, str | None]] = field(default_factory=dict)


def rest_request(request: AnswerRequest) -> dict[str, Any]:
    """A GenerateContentRequest in the REST shape, for a line of a batch input file."""
    config = request.config
    generation: dict[str, Any] = {
        "temperature": config.temperature,
        "maxOutputTokens": config.max_output_tokens,
        "responseModalities": ["TEXT"],
    }
    if config.thinking:
        generation["thinkingConfig"] = {
            "thinkingBudget" if k == "thinking_budget" else "thinkingLevel": (
                v.upper() if isinstance(v, str) else v
            )
            for k, v in config.thinking.items()
        }
    image = base64.b64encode(request.image).decode("ascii")
    return {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"inlineData": {"mimeType": request.mime_type, "data": image}},
                    {"text": request.prompt},
                ],
            }
        ],
        "generationConfig": generation,
    }


class GeminiBatchClient:
    kind = "gemini"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        attempts: int = 4,
        initial_delay_s: float = 2.0,
        inline_limit: int = INLINE_LIMIT,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self.policy = RetryPolicy(timeout_s, timeout_s * attempts * 2, attempts, initial_delay_s)
        self.inline_limit = inline_limit

    def unavailable_reason(self) -> str | None:
        return NO_KEY if api_key() is None else None

    def answerer(self) -> GeminiAnswerer:
        return GeminiAnswerer(self.model, self.base_url)

    def _call(
        self,
        action: Callable[[genai.Client], T],
        cancel: threading.Event,
        limit: ReplyLimit | None = None,
    ) -> T:
        key = api_key()
        if key is None:
            raise CallFailedError(NO_KEY)
        limit = limit or batch_limit()
        budget = Budget(self.policy.deadline_s, self.policy.timeout_s, cancel, limit)
        try:
            with open_client(key, self.base_url, budget, self.policy.timeout_s) as client:
                return call_with_retries(lambda: action(client), budget, self.policy, cancel)
        except CallFailedError as exc:
            raise CallFailedError(scrub(exc.reason, key)) from None

    def submit(
        self, items: list[BatchItem], display_name: str, cancel: threading.Event
    ) -> tuple[str, str]:
        """Create a job of questions; returns (job name, "inline" or "file")."""
        raw = [RawItem(i.key, rest_request(i.request)) for i in items]
        return self.submit_raw(raw, display_name, cancel)

    def submit_raw(
        self, items: list[RawItem], display_name: str, cancel: threading.Event
    ) -> tuple[str, str]:
        """Create a job of any requests; returns (job name, "inline" or "file")."""
        from google.genai import types

        lines = [json.dumps({"key": i.key, "request": i.rest}, ensure_ascii=False) for i in items]
        if sum(len(line) for line in lines) <= self.inline_limit:
            inline = [
                types.InlinedRequest.model_validate_json(
                    json.dumps(
                        {
                            "contents": i.rest["contents"],
                            "config": i.rest.get("generationConfig", {}),
                            "metadata": {"key": i.key},
                        }
                    )
                )
                for i in items
            ]
            job = self._call(
                lambda c: c.batches.create(
                    model=self.model, src=inline, config={"display_name": display_name}
                ),
                cancel,
            )
            return str(job.name), "inline"
        with tempfile.TemporaryDirectory(prefix="sabre-batch-") as tmp:
            path = os.path.join(tmp, "requests.jsonl")  # noqa: PTH118
            with open(path, "w", encoding="utf-8") as fh:  # noqa: PTH123
                fh.writelines(line + "\n" for line in lines)
            uploaded = self._call(
                lambda c: c.files.upload(
                    file=path,
                    config={"mime_type": "application/jsonl", "display_name": display_name},
                ),
                cancel,
            )
            name = str(uploaded.name)
            job = self._call(
                lambda c: c.batches.create(
                    model=self.model, src=name, config={"display_name": display_name}
                ),
                cancel,
            )
        return str(job.name), "file"

    def poll_raw(
        self, name: str, cancel: threading.Event, limit: ReplyLimit | None = None
    ) -> RawState:
        """The job's state; when it is done, every request's reply (or error) by key."""
        from google.genai import types

        limit = limit or image_batch_limit()  # a job of images, unless told otherwise
        job = self._call(lambda c: c.batches.get(name=name), cancel, limit)
        state = RawState(name, str(getattr(job.state, "value", str(job.state))))
        if state.state not in ("JOB_STATE_SUCCEEDED", "JOB_STATE_PARTIALLY_SUCCEEDED"):
            return state
        dest = job.dest
        if dest is not None and dest.inlined_responses:
            for item in dest.inlined_responses:
                meta = item.metadata or {}
                if isinstance(meta.get("key"), str):
                    error = _error_text(item.error) if item.error is not None else None
                    state.replies[meta["key"]] = (item.response, error)
        elif dest is not None and dest.file_name:
            file_name = dest.file_name
            data = self._call(lambda c: c.files.download(file=file_name), cancel, limit)
            for line in bytes(data).decode("utf-8", "replace").splitlines():
                try:
                    row = json.loads(line)
                except ValueError:
                    continue
                if not (isinstance(row, dict) and isinstance(row.get("key"), str)):
                    continue
                if row.get("error") is not None or not isinstance(row.get("response"), dict):
                    state.replies[row["key"]] = (None, _error_text(row.get("error") or {}))
                    continue
                try:
                    response = types.GenerateContentResponse.model_validate(row["response"])
                except ValueError as exc:
                    state.replies[row["key"]] = (
                        None,
                        f"the batch's reply could not be read ({exc})",
                    )
                    continue
                state.replies[row["key"]] = (response, None)
        return state

    def poll(self, name: str, cancel: threading.Event, keys: list[str] | None = None) -> BatchState:
        """The job's state; when it is done, its answers by key (every key fits Gemini's
        metadata, so *keys* is not needed)."""
        raw = self.poll_raw(name, cancel, batch_limit())
        state = BatchState(raw.name, raw.state)
        key = api_key()
        for request_key, (response, error) in raw.replies.items():
            if error is not None or response is None:
                failure = error or "the batch returned no reply for this request"
                state.answers[request_key] = Answer(None, failure=scrub(failure, key))
            else:
                state.answers[request_key] = within_limit(read_answer(response, key), None)
        return state

    def cancel(self, name: str, cancel: threading.Event) -> None:
        self._call(lambda c: c.batches.cancel(name=name), cancel)


def _error_text(error: Any) -> str:
    code = getattr(error, "code", None) if not isinstance(error, dict) else error.get("code")
    message = (
        getattr(error, "message", None) if not isinstance(error, dict) else error.get("message")
    )
    return f"the batch could not answer this request ({code}: {message or 'no reason given'})"
