"""A stand-in for Anthropic's API on 127.0.0.1: ``POST /v1/messages`` answered from a
script or a rule, and the Message Batches the official client calls (create, retrieve,
cancel, results as JSONL), every request recorded."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sabre_desk.demo.fake_servers.http_fake import FakeHttp, Handled

COUNTS = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}


def message(text: str | None, stop: str = "end_turn") -> tuple[int, dict[str, Any]]:
    content = [] if text is None else [{"type": "text", "text": text}]
    return 200, _message(content, stop)


def tool_call(name: str, data: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    block = {"type": "tool_use", "id": "toolu_1", "name": name, "input": data}
    return 200, _message([block], "tool_use")


def _message(content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": 400, "output_tokens": 2},
    }


@dataclass
class FakeAnthropic(FakeHttp):
    rule: Callable[[dict[str, Any]], Handled] = lambda body: message("Yes")
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    batch_polls: int = 0

    @property
    def url(self) -> str:
        return self.root

    def scripted(self, path: str) -> bool:
        return path.split("?")[0] == "/v1/messages"

    def route(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Handled:
        path = path.split("?")[0]
        if path == "/v1/messages":
            return self.rule(body)
        if path == "/v1/messages/batches" and method == "POST":
            batch_id = f"msgbatch_{len(self.batches) + 1}"
            self.batches[batch_id] = {"requests": body["requests"], "status": "in_progress"}
            self.batches[batch_id]["polls"] = 0
            return 200, self._batch(batch_id)
        parts = path.split("/")
        if len(parts) >= 5 and parts[3] == "batches":
            batch_id = parts[4]
            batch = self.batches[batch_id]
            if path.endswith("/cancel"):
                batch["status"] = "canceling"
                return 200, self._batch(batch_id)
            if path.endswith("/results"):
                lines = []
                for request in batch["requests"]:
                    status, reply = self.rule(request["params"])
                    result = (
                        {"type": "succeeded", "message": reply}
                        if status == 200
                        else {"type": "errored", "error": {"type": "error", "error": reply}}
                    )
                    lines.append({"custom_id": request["custom_id"], "result": result})
                return 200, "".join(json.dumps(line) + "\n" for line in lines).encode()
            batch["polls"] += 1
            if batch["status"] == "in_progress" and batch["polls"] > self.batch_polls:
                batch["status"] = "ended"
            return 200, self._batch(batch_id)
        return 404, {"type": "error", "error": {"type": "not_found_error", "message": path}}

    def _batch(self, batch_id: str) -> dict[str, Any]:
        batch = self.batches[batch_id]
        ended = batch["status"] == "ended"
        return {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": batch["status"],
            "request_counts": {**COUNTS, "succeeded": len(batch["requests"]) if ended else 0},
            "created_at": "2026-01-01T00:00:00Z",
            "expires_at": "2026-01-02T00:00:00Z",
            "ended_at": "2026-01-01T00:01:00Z" if ended else None,
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": f"{self.root}/v1/messages/batches/{batch_id}/results" if ended else None,
        }
