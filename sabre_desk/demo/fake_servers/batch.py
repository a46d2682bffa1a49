"""The Gemini Batch API as the fake server plays it: the REST shapes google-genai's
``client.batches`` and ``client.files`` send and read.

A job is created from inline requests or from an uploaded JSONL file; each request is
answered at once by the same rule as a generateContent call (``reply_for``), but the
results are shown only once the job has been polled ``polls_until_done`` times. Knobs:
``expire`` (the job ends EXPIRED with no results), ``fail_keys`` (those requests come back
as per-request errors), ``results_as_file`` (inline jobs deliver a results file as well).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from sabre_desk.demo.fake_servers.gemini_server import Reply, error_reply

PENDING, RUNNING = "BATCH_STATE_PENDING", "BATCH_STATE_RUNNING"
SUCCEEDED, EXPIRED = "BATCH_STATE_SUCCEEDED", "BATCH_STATE_EXPIRED"
CANCELLED = "BATCH_STATE_CANCELLED"
TERMINAL = {SUCCEEDED, EXPIRED, CANCELLED, "BATCH_STATE_FAILED"}


class FakeBatches:
    def __init__(self, base_url: Callable[[], str]):
        self._base_url = base_url
        self._lock = threading.Lock()
        self.jobs: dict[str, dict[str, Any]] = {}
        self.files: dict[str, bytes] = {}
        self._uploads: dict[str, bytearray] = {}
        self.polls_until_done = 1
        self.expire = False
        self.fail_keys: set[str] = set()
        self.created: list[dict[str, Any]] = []  # one per job: mode, keys
        self.cancelled: list[str] = []

    # --- jobs -----------------------------------------------------------------------

    def create(
        self, path: str, body: dict[str, Any], reply_for: Callable[[dict[str, Any]], Reply]
    ) -> Reply:
        model = path.split("/models/", 1)[1].split(":", 1)[0]
        source = body.get("batch", {}).get("inputConfig", {})
        if "requests" in source:
            mode = "inline"
            items = [
                ((r.get("metadata") or {}).get("key"), r["request"])
                for r in source["requests"]["requests"]
            ]
        else:
            mode = "file"
            name = source["fileName"]
            lines = self.files[name].decode().splitlines()
            items = [(row["key"], row["request"]) for row in map(json.loads, filter(None, lines))]
        results: list[tuple[Any, dict[str, Any]]] = []
        for key, request in items:
            if key in self.fail_keys:
                results.append((key, {"error": {"code": 13, "message": "internal error"}}))
            else:
                results.append((key, {"response": reply_for(request).body}))
        with self._lock:
            number = len(self.jobs) + 1
            name = f"batches/job{number}"
            self.jobs[name] = {
                "name": name,
                "model": f"models/{model}",
                "display": body.get("batch", {}).get("displayName"),
                "mode": mode,
                "results": results,
                "state": PENDING,
                "gets": 0,
            }
            self.created.append({"mode": mode, "keys": [k for k, _ in items]})
        return Reply(body=self._job_json(self.jobs[name]))

    def _job_json(self, job: dict[str, Any]) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "@type": "type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch",
            "model": job["model"],
            "displayName": job["display"],
            "state": job["state"],
            "createTime": "2026-11-29T15:00:00Z",
        }
        if job["state"] == SUCCEEDED:
            if job["mode"] == "inline":
                metadata["output"] = {
                    "inlinedResponses": {
                        "inlinedResponses": [
                            {**result, "metadata": {"key": key}} for key, result in job["results"]
                        ]
                    }
                }
            else:
                file = f"files/results-{job['name'].split('/')[-1]}"
                lines = [json.dumps({"key": key, **result}) for key, result in job["results"]]
                self.files[file] = ("\n".join(lines) + "\n").encode()
                metadata["output"] = {"responsesFile": file}
        return {"name": job["name"], "metadata": metadata, "done": job["state"] in TERMINAL}

    def get(self, path: str) -> Reply:
        route = path.split("?", 1)[0]
        if route.endswith(":download"):
            name = "files/" + route.split("/files/", 1)[1].removesuffix(":download")
            data = self.files.get(name)
            if data is None:
                return error_reply(404, f"no file {name}")
            return Reply(raw=data, headers={"Content-Type": "application/octet-stream"})
        name = "batches/" + route.split("/batches/", 1)[-1]
        with self._lock:
            job = self.jobs.get(name)
            if job is None:
                return error_reply(404, f"no batch {name}")
            if job["state"] not in TERMINAL:
                job["gets"] += 1
                job["state"] = RUNNING
                if job["gets"] > self.polls_until_done:
                    job["state"] = EXPIRED if self.expire else SUCCEEDED
            return Reply(body=self._job_json(job))

    def cancel(self, path: str) -> Reply:
        name = "batches/" + path.split("/batches/", 1)[1].split(":", 1)[0]
        with self._lock:
            job = self.jobs.get(name)
            if job is None:
                return error_reply(404, f"no batch {name}")
            if job["state"] not in TERMINAL:
                job["state"] = CANCELLED
            self.cancelled.append(name)
        return Reply(body={})

    # --- the resumable upload -----------------------------------------------------------

    def upload(self, path: str, headers: dict[str, str], raw: bytes) -> Reply:
        lowered = {k.lower(): v for k, v in headers.items()}
        command = lowered.get("x-goog-upload-command", "")
        with self._lock:
            if command == "start":
                upload_id = f"u{len(self._uploads) + 1}"
                self._uploads[upload_id] = bytearray()
                url = f"{self._base_url()}/uploads/{upload_id}"
                return Reply(headers={"X-Goog-Upload-URL": url, "X-Goog-Upload-Status": "active"})
            upload_id = path.rsplit("/", 1)[-1]
            buffer = self._uploads[upload_id]
            buffer.extend(raw)
            if "finalize" not in command:
                return Reply(headers={"X-Goog-Upload-Status": "active"})
            name = f"files/upload-{upload_id}"
            self.files[name] = bytes(buffer)
        body = {
            "file": {
                "name": name,
                "mimeType": "application/jsonl",
                "sizeBytes": str(len(buffer)),
                "state": "ACTIVE",
                "uri": f"{self._base_url()}/v1beta/{name}",
            }
        }
        return Reply(body=body, headers={"X-Goog-Upload-Status": "final"})
