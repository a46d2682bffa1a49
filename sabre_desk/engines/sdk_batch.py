"""OpenAI's Batch API and Anthropic's Message Batches through their official clients: the
questions of a predict or screening run as one job at half the price.

OpenAI takes a JSONL file of chat-completion requests (uploaded with ``files.create``) and
writes its answers to an output file; Anthropic takes the requests in the create call and
serves results as JSONL. Each request carries an id (``batches.request_id``), so answers are
matched whatever order they come back in. Every call goes through ``SdkClient.call`` (key
masked, deadline, cancel, byte limit: the results of one job at most the batch limit).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from sabre_desk.engines.answers import Answer, AnswerEngine, within_limit
from sabre_desk.engines.anthropic_qa import AnthropicAnswerer, message_request
from sabre_desk.engines.anthropic_qa import read_reply as read_message
from sabre_desk.engines.batches import request_id
from sabre_desk.engines.gemini_batch import DONE_STATES, BatchItem, BatchState
from sabre_desk.engines.models import Provider
from sabre_desk.engines.openai_qa import OpenAIAnswerer, chat_request
from sabre_desk.engines.openai_qa import read_reply as read_completion
from sabre_desk.engines.reply_limits import batch_limit
from sabre_desk.engines.reply_shape import ReplyShapeError, plain_reply, scrub_answer
from sabre_desk.engines.sdk_call import SdkClient

#: OpenAI's and Anthropic's job states in the one vocabulary (``gemini_batch.STATE_WORDS``).
OPENAI_STATES = {
    "validating": "JOB_STATE_PENDING",
    "in_progress": "JOB_STATE_RUNNING",
    "finalizing": "JOB_STATE_RUNNING",
    "completed": "JOB_STATE_SUCCEEDED",
    "failed": "JOB_STATE_FAILED",
    "expired": "JOB_STATE_EXPIRED",
    "cancelling": "JOB_STATE_RUNNING",
    "cancelled": "JOB_STATE_CANCELLED",
}
ANTHROPIC_STATES = {
    "in_progress": "JOB_STATE_RUNNING",
    "canceling": "JOB_STATE_RUNNING",
    "ended": "JOB_STATE_SUCCEEDED",
}
#: The time one call to the batch service (create, poll, download) may take.
CALL_DEADLINE_S = 600.0


class _SdkBatch:
    """What both batch clients share: the answerer whose client they use, and a job larger
    than the service takes split into several (their ids joined by commas are the job's one
    name: a rerun polls and collects them all, and the job is done when every part is)."""

    engine: OpenAIAnswerer | AnthropicAnswerer
    #: what one job of the service may hold (bytes of requests, requests)
    max_bytes: int
    max_requests: int
    mode: str

    @property
    def kind(self) -> str:
        return self.engine.kind

    @property
    def model(self) -> str:
        return self.engine.model

    @property
    def sdk(self) -> SdkClient:
        return self.engine.sdk

    def unavailable_reason(self) -> str | None:
        return self.engine.unavailable_reason()

    def answerer(self) -> AnswerEngine:
        return self.engine

    def _call(self, action: Any, cancel: threading.Event) -> Any:
        return self.sdk.call(action, cancel, CALL_DEADLINE_S, batch_limit())

    def _entry(self, item: BatchItem) -> dict[str, Any]:
        raise NotImplementedError

    def _create(
        self, entries: list[dict[str, Any]], display_name: str, cancel: threading.Event
    ) -> str:
        raise NotImplementedError

    def _poll_one(self, job_id: str, cancel: threading.Event) -> tuple[str, dict[str, Answer]]:
        raise NotImplementedError

    def _cancel_one(self, job_id: str, cancel: threading.Event) -> None:
        raise NotImplementedError

    def submit(
        self, items: list[BatchItem], display_name: str, cancel: threading.Event
    ) -> tuple[str, str]:
        """Create the job (in as many parts as the service's limits need)."""
        parts: list[list[dict[str, Any]]] = [[]]
        size = 0
        for item in items:
            entry = self._entry(item)
            weight = len(json.dumps(entry, ensure_ascii=False).encode("utf-8")) + 1
            if parts[-1] and (
                size + weight > self.max_bytes or len(parts[-1]) >= self.max_requests
            ):
                parts.append([])
                size = 0
            parts[-1].append(entry)
            size += weight
        names = [self._create(part, display_name, cancel) for part in parts if part]
        return ",".join(names), self.mode

    def poll(self, name: str, cancel: threading.Event, keys: list[str] | None = None) -> BatchState:
        states: list[str] = []
        replies: dict[str, Answer] = {}
        for job_id in name.split(","):
            part, answers = self._poll_one(job_id, cancel)
            states.append(part)
            replies.update(answers)
        back = {request_id(k): k for k in keys or []}
        state = BatchState(name, _combined(states))
        if state.done:
            secret = self.engine.sdk.secret()
            state.answers = {
                back.get(rid, rid): within_limit(scrub_answer(answer, secret), None)
                for rid, answer in replies.items()
            }
        return state

    def cancel(self, name: str, cancel: threading.Event) -> None:
        for job_id in name.split(","):
            self._cancel_one(job_id, cancel)


def _combined(states: list[str]) -> str:
    """The state of a job of several parts, in the one vocabulary."""
    finished = [s for s in states if s in DONE_STATES]
    if len(finished) < len(states):
        return "JOB_STATE_RUNNING" if finished or "JOB_STATE_RUNNING" in states else states[0]
    if all(s == "JOB_STATE_SUCCEEDED" for s in states):
        return "JOB_STATE_SUCCEEDED"
    if any(s in ("JOB_STATE_SUCCEEDED", "JOB_STATE_PARTIALLY_SUCCEEDED") for s in states):
        return "JOB_STATE_PARTIALLY_SUCCEEDED"
    return next(s for s in states if s != "JOB_STATE_SUCCEEDED")


class OpenAIBatchClient(_SdkBatch):
    # The Batch API takes input files of up to 200 MB and 50,000 requests.
    max_bytes, max_requests, mode = 190 * 1024 * 1024, 50_000, "file"

    def __init__(self, model: str, base_url: str | None = None) -> None:
        self.engine = OpenAIAnswerer(model, Provider.OPENAI, base_url)

    def _entry(self, item: BatchItem) -> dict[str, Any]:
        return {
            "custom_id": request_id(item.key),
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": chat_request(self.engine.name.model, item.request, local=False),
        }

    def _create(
        self, entries: list[dict[str, Any]], display_name: str, cancel: threading.Event
    ) -> str:
        data = "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries).encode()
        uploaded = self._call(
            lambda c: c.files.create(file=("requests.jsonl", data), purpose="batch"), cancel
        )
        job = self._call(
            lambda c: c.batches.create(
                input_file_id=uploaded.id,
                endpoint="/v1/chat/completions",
                completion_window="24h",
                metadata={"description": display_name[:500]},
            ),
            cancel,
        )
        return str(job.id)

    def _poll_one(self, job_id: str, cancel: threading.Event) -> tuple[str, dict[str, Answer]]:
        job = self._call(lambda c: c.batches.retrieve(job_id), cancel)
        state = OPENAI_STATES.get(str(job.status), str(job.status))
        replies: dict[str, Answer] = {}
        for file_id in (job.output_file_id, job.error_file_id) if state in DONE_STATES else ():
            if not file_id:
                continue
            content = self._call(lambda c, f=file_id: c.files.content(f).read(), cancel)
            for row in _jsonl(content):
                replies[str(row["custom_id"])] = _openai_line(row)
        return state, replies

    def _cancel_one(self, job_id: str, cancel: threading.Event) -> None:
        self._call(lambda c: c.batches.cancel(job_id), cancel)


def _jsonl(content: bytes) -> list[dict[str, Any]]:
    rows = []
    for line in content.decode("utf-8", "replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("custom_id"), str):
            rows.append(row)
    return rows


def _openai_line(row: dict[str, Any]) -> Answer:
    response: dict[str, Any] = row["response"] if isinstance(row.get("response"), dict) else {}
    error = row.get("error")
    status = response.get("status_code")
    if error or status != 200 or not isinstance(response.get("body"), dict):
        why = error.get("message") if isinstance(error, dict) else None
        if why is None and isinstance(response.get("body"), dict):
            body_error = response["body"].get("error")
            why = body_error.get("message") if isinstance(body_error, dict) else None
        return Answer(None, failure=f"the batch could not answer this request ({status}: {why})")
    return read_completion(response["body"])


class AnthropicBatchClient(_SdkBatch):
    # Message Batches take up to 256 MB and 100,000 requests in one create call.
    max_bytes, max_requests, mode = 240 * 1024 * 1024, 100_000, "inline"

    def __init__(self, model: str, base_url: str | None = None) -> None:
        self.engine = AnthropicAnswerer(model, base_url)

    def _entry(self, item: BatchItem) -> dict[str, Any]:
        return {
            "custom_id": request_id(item.key),
            "params": message_request(self.engine.name.model, item.request),
        }

    def _create(
        self, entries: list[dict[str, Any]], display_name: str, cancel: threading.Event
    ) -> str:
        job = self._call(lambda c: c.messages.batches.create(requests=entries), cancel)
        return str(job.id)

    def _poll_one(self, job_id: str, cancel: threading.Event) -> tuple[str, dict[str, Answer]]:
        job = self._call(lambda c: c.messages.batches.retrieve(job_id), cancel)
        status = str(job.processing_status)
        state = ANTHROPIC_STATES.get(status, status)
        replies: dict[str, Answer] = {}
        if state in DONE_STATES:
            for row in self._call(lambda c: list(c.messages.batches.results(job_id)), cancel):
                try:
                    data = plain_reply(row)
                except ReplyShapeError:
                    continue  # not a result line: its request stays unanswered, asked again
                result = data.get("result")
                if isinstance(data.get("custom_id"), str):
                    replies[data["custom_id"]] = _anthropic_line(
                        result if isinstance(result, dict) else {}
                    )
        return state, replies

    def _cancel_one(self, job_id: str, cancel: threading.Event) -> None:
        self._call(lambda c: c.messages.batches.cancel(job_id), cancel)


def _anthropic_line(result: dict[str, Any]) -> Answer:
    kind = result.get("type")
    if kind == "succeeded" and isinstance(result.get("message"), dict):
        return read_message(result["message"])
    error: dict[str, Any] = result["error"] if isinstance(result.get("error"), dict) else {}
    inner = error.get("error") if isinstance(error.get("error"), dict) else error
    why = inner.get("message") if isinstance(inner, dict) else None
    return Answer(None, failure=f"the batch could not answer this request ({kind}: {why})")


def batch_client_for(provider: Provider, model: str, base_url: str | None) -> Any:
    """The batch client of *provider* for *model*, or None when it has no batch service."""
    from sabre_desk.engines.gemini_batch import GeminiBatchClient

    if provider is Provider.GEMINI:
        return GeminiBatchClient(model, base_url)
    if provider is Provider.OPENAI:
        return OpenAIBatchClient(model, base_url)
    if provider is Provider.ANTHROPIC:
        return AnthropicBatchClient(model, base_url)
    return None
