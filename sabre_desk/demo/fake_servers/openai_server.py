"""A stand-in for OpenAI's API (and any OpenAI-compatible server: vLLM, llama.cpp, Ollama)
on 127.0.0.1: ``POST /v1/chat/completions`` answered from a script or a rule, and the Batch
API the official client calls (file upload, create, retrieve, cancel, the output file's
content), every request recorded."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from sabre_desk.demo.fake_servers.http_fake import FakeHttp, Handled


def completion(text: str | None, finish: str = "stop") -> tuple[int, dict[str, Any]]:
    return 200, {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "local-vlm",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 300, "completion_tokens": 1, "total_tokens": 301},
    }


def _multipart(body: bytes, content_type: str) -> dict[str, bytes]:
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + body
    )
    parts: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        parts[str(name)] = payload if isinstance(payload, bytes) else b""
    return parts


@dataclass
class FakeOpenAI(FakeHttp):
    rule: Callable[[dict[str, Any]], Handled] = lambda body: completion("Yes")
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: polls a batch stays "in_progress" before it completes
    batch_polls: int = 0

    @property
    def url(self) -> str:
        return f"{self.root}/v1"

    def scripted(self, path: str) -> bool:
        return path.endswith("/chat/completions")

    def route(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Handled:
        path = path.split("?")[0]
        if path.endswith("/chat/completions"):
            return self.rule(body)
        if path == "/v1/files" and method == "POST":
            parts = _multipart(body, headers.get("content-type", ""))
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = parts.get("file", b"")
            return 200, self._file(file_id)
        if path.startswith("/v1/files/") and path.endswith("/content"):
            return 200, self.files[path.split("/")[3]]
        if path == "/v1/batches" and method == "POST":
            batch_id = f"batch_{len(self.batches) + 1}"
            self.batches[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "input_file_id": body["input_file_id"],
                "completion_window": body["completion_window"],
                "status": "validating",
                "created_at": 0,
                "polls": 0,
            }
            return 200, self._batch(batch_id)
        if path.startswith("/v1/batches/") and path.endswith("/cancel"):
            self.batches[path.split("/")[3]]["status"] = "cancelled"
            return 200, self._batch(path.split("/")[3])
        if path.startswith("/v1/batches/"):
            batch = self.batches[path.split("/")[3]]
            batch["polls"] += 1
            if batch["status"] == "validating" and batch["polls"] > self.batch_polls:
                self._complete(batch)
            return 200, self._batch(batch["id"])
        return 404, {"error": {"message": f"no route {path}"}}

    def _complete(self, batch: dict[str, Any]) -> None:
        lines = []
        for raw in self.files[batch["input_file_id"]].decode().splitlines():
            request = json.loads(raw)
            status, reply = self.rule(request["body"])
            lines.append(
                {
                    "id": f"resp-{request['custom_id']}",
                    "custom_id": request["custom_id"],
                    "response": {"status_code": status, "request_id": "r", "body": reply},
                    "error": None,
                }
            )
        out_id = f"file-{len(self.files) + 1}"
        self.files[out_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
        batch["status"], batch["output_file_id"] = "completed", out_id

    def _file(self, file_id: str) -> dict[str, Any]:
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(self.files[file_id]),
            "created_at": 0,
            "filename": "requests.jsonl",
            "purpose": "batch",
            "status": "processed",
        }

    def _batch(self, batch_id: str) -> dict[str, Any]:
        return {k: v for k, v in self.batches[batch_id].items() if k != "polls"}
