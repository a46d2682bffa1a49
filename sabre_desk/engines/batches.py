"""What every provider's batch service looks like to the app (Gemini Batch, OpenAI's Batch
API, Anthropic's Message Batches): many questions sent as one job at about half the price,
answered within a day; a job's name is kept on disk so that a rerun after Ctrl+C collects
the job it left instead of sending the questions again. States are told in one vocabulary
(Gemini's ``JOB_STATE_*``, ``gemini_batch.STATE_WORDS``)."""

from __future__ import annotations

import hashlib
import re
import threading
from typing import Protocol

from sabre_desk.engines.answers import AnswerEngine
from sabre_desk.engines.gemini_batch import BatchItem, BatchState

#: What OpenAI and Anthropic accept as a request's id within a job.
_SAFE_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class BatchClient(Protocol):
    kind: str
    model: str

    def unavailable_reason(self) -> str | None: ...

    def answerer(self) -> AnswerEngine:
        """The provider's question-answering engine for the same model: how a request is
        configured (output limit, thinking) is its ``config_for``."""
        ...

    def submit(
        self, items: list[BatchItem], display_name: str, cancel: threading.Event
    ) -> tuple[str, str]:
        """Create a job; returns (its name, how the requests went: "inline" or "file")."""
        ...

    def poll(self, name: str, cancel: threading.Event, keys: list[str] | None = None) -> BatchState:
        """The job's state; when done, its answers by the keys the items were sent with
        (*keys*: those keys, for a service whose request ids cannot hold every key)."""
        ...

    def cancel(self, name: str, cancel: threading.Event) -> None: ...


def request_id(key: str) -> str:
    """*key* as a request id OpenAI and Anthropic accept: itself when it can be, else a
    digest of it (``poll`` maps digests back through the keys it is given)."""
    if _SAFE_ID.match(key):
        return key
    return "k" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:63]


__all__ = ["BatchClient", "BatchItem", "BatchState", "request_id"]
