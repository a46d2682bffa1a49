"""A local stand-in for the Gemini API's generateContent endpoint, on 127.0.0.1 only.

It speaks the REST shape the real google-genai client uses, so the engine is tested with the
real client end to end. Each request takes the next scripted behaviour; every request is
recorded (path, headers, body) so tests can check what was sent.

Besides answers it can misbehave the way a bad network or server does: answer late
(``delay_s``), trickle the reply one byte at a time (``trickle_s``), or take the request and
never answer (``hang``). Every wait in a handler ends when the client hangs up or the server
is closed, and each handler records how it ended (``outcomes``), so tests can check that the
client really dropped the connection and that no server thread is left behind.

For text answers (screening, predict) ``answer`` decides the reply to each generateContent
request from what was asked (``text_reply`` for a word, ``finish_reply`` for a safety stop
…); ``in_flight``/``max_in_flight`` count the requests being handled at once. The batch
endpoints the SDK calls are here too (``batch.py`` beside this file): create (inline requests
or an uploaded JSONL file), get, cancel, the resumable file upload and the download of a
results file.
"""

from __future__ import annotations

import base64
import io
import json
import select
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from PIL import Image


def png_b64(width: int, height: int, color: tuple[int, int, int] = (30, 160, 60)) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | None = None
    #: Silence before the reply.
    delay_s: float = 0.0
    #: Send the reply one byte every trickle_s seconds, from the status line or from the
    #: first byte of the body (the headers then arrive at once).
    trickle_s: float = 0.0
    trickle_from: Literal["status", "body"] = "status"
    #: Read the request, then never answer.
    hang: bool = False
    #: Extra response headers (Retry-After, X-Goog-Upload-*).
    headers: dict[str, str] = field(default_factory=dict)
    #: A body that is not JSON (a downloaded file).
    raw: bytes | None = None


def trickle_reply(every_s: float, start: Literal["status", "body"] = "status") -> Reply:
    """An image reply sent one byte every *every_s* seconds: it never falls silent for long,
    so only a limit on the total time of a request can end it."""
    reply = image_reply(8, 8)
    reply.trickle_s, reply.trickle_from = every_s, start
    return reply


def hang_reply() -> Reply:
    return Reply(hang=True)


def image_reply(width: int = 640, height: int = 480, mime: str = "image/png") -> Reply:
    return Reply(
        body={
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [
                            {"text": "Here is the edited image."},
                            {"inlineData": {"mimeType": mime, "data": png_b64(width, height)}},
                        ],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )


def text_reply(text: str = "I cannot edit this image.", usage: bool = True) -> Reply:
    body: dict[str, Any] = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ]
    }
    if usage:
        body["usageMetadata"] = USAGE
    return Reply(body=body)


#: The token use every text reply reports (an image of 258 tokens, as Gemini counts one).
USAGE = {
    "promptTokenCount": 270,
    "candidatesTokenCount": 2,
    "thoughtsTokenCount": 5,
    "totalTokenCount": 277,
    "promptTokensDetails": [
        {"modality": "IMAGE", "tokenCount": 258},
        {"modality": "TEXT", "tokenCount": 12},
    ],
}


def asked_text(body: dict[str, Any]) -> str:
    """The text parts of a generateContent request body (the prompt)."""
    parts = [p for c in body.get("contents", []) for p in c.get("parts", [])]
    return "\n".join(p["text"] for p in parts if "text" in p)


def blocked_reply(reason: str = "SAFETY") -> Reply:
    """The prompt itself was blocked: no candidates at all."""
    return Reply(body={"promptFeedback": {"blockReason": reason}, "usageMetadata": USAGE})


def retry_reply(seconds: float, status: int = 429) -> Reply:
    """A 429 that names its retry delay, the way Gemini does (google.rpc.RetryInfo)."""
    reply = error_reply(status, "quota exceeded")
    assert reply.body is not None
    reply.body["error"]["details"] = [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{seconds:g}s"}
    ]
    return reply


def finish_reply(reason: str = "IMAGE_SAFETY") -> Reply:
    return Reply(body={"candidates": [{"finishReason": reason}]})


def corrupt_reply() -> Reply:
    junk = base64.b64encode(b"\x89PNG\r\n\x1a\nthis is not really a png").decode()
    return Reply(
        body={
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"inlineData": {"mimeType": "image/png", "data": junk}}],
                    },
                    "finishReason": "STOP",
                }
            ]
        }
    )


def error_reply(status: int, message: str = "error") -> Reply:
    status_name = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 400: "INVALID_ARGUMENT"}
    return Reply(
        status=status,
        body={
            "error": {
                "code": status,
                "message": message,
                "status": status_name.get(status, "UNKNOWN"),
            }
        },
    )


@dataclass
class FakeGemini:
    script: list[Reply] = field(default_factory=list)
    default: Reply = field(default_factory=image_reply)
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: How each handled request ended: "answered", "client hung up" or "server closed".
    outcomes: list[str] = field(default_factory=list)
    #: The reply to a generateContent request when the script is used up (None: default).
    answer: Callable[[dict[str, Any]], Reply] | None = None
    #: Silence before every generateContent reply (a benchmark's latency).
    latency_s: float = 0.0
    #: False: record each request without its body (a benchmark sends gigabytes)
    keep_bodies: bool = True
    in_flight: int = 0
    max_in_flight: int = 0
    #: 0: any free port
    port: int = 0

    def reply_for(self, body: dict[str, Any]) -> Reply:
        """The reply to one generateContent body when no script step is left."""
        return self.answer(body) if self.answer is not None else self.default

    def __post_init__(self) -> None:
        from sabre_desk.demo.fake_servers.batch import FakeBatches

        fake = self
        #: the batch jobs and files this server holds (knobs for expiry, failures …)
        self.batches = FakeBatches(lambda: self.url)
        self.stopping = threading.Event()
        self.handlers: list[threading.Thread] = []
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            timeout = 30  # a client that neither sends nor hangs up cannot pin a thread

            def setup(self) -> None:
                super().setup()
                with fake._lock:
                    fake.handlers.append(threading.current_thread())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                raw = self.rfile.read(length)
                path = self.path
                if path.startswith("/upload/") or "/uploads/" in path:
                    return self._reply_now(fake.batches.upload(path, dict(self.headers), raw))
                lean = not fake.keep_bodies and fake.answer is None and ":generateContent" in path
                body = {} if lean else json.loads(raw or b"{}")  # a benchmark's server: no parse
                kept = body if fake.keep_bodies else {}
                fake.requests.append({"path": path, "headers": dict(self.headers), "body": kept})
                if ":batchGenerateContent" in path:
                    return self._reply_now(fake.batches.create(path, body, fake.reply_for))
                if path.rstrip("/").endswith(":cancel"):
                    return self._reply_now(fake.batches.cancel(path))
                with fake._lock:
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                try:
                    reply = fake.script.pop(0) if fake.script else fake.reply_for(body)
                    if fake.latency_s and not reply.delay_s and not reply.hang:
                        reply = replace(reply, delay_s=fake.latency_s)
                    fake.outcomes.append(self._answer(reply))
                finally:
                    with fake._lock:
                        fake.in_flight -= 1
                self.close_connection = True  # one request per connection keeps it simple

            def do_GET(self) -> None:
                if self.path == "/__stats":  # for a benchmark running the fake elsewhere
                    stats = {"requests": len(fake.requests), "max_in_flight": fake.max_in_flight}
                    return self._reply_now(Reply(body=stats))
                fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": {}})
                self._reply_now(fake.batches.get(self.path))

            def _reply_now(self, reply: Reply) -> None:
                fake.outcomes.append(self._answer(reply))
                self.close_connection = True

            def _answer(self, reply: Reply) -> str:
                if reply.hang:
                    return self._idle(None)
                if reply.delay_s and (outcome := self._idle(reply.delay_s)):
                    return outcome
                payload = (
                    reply.raw if reply.raw is not None else json.dumps(reply.body or {}).encode()
                )
                extra = "".join(f"{k}: {v}\r\n" for k, v in reply.headers.items())
                head = (
                    f"HTTP/1.1 {reply.status} {HTTPStatus(reply.status).phrase}\r\n"
                    "Content-Type: application/json\r\n"
                    f"{extra}"
                    f"Content-Length: {len(payload)}\r\n"
                    "Connection: close\r\n\r\n"
                ).encode()
                if not reply.trickle_s:
                    return self._send(head + payload) or "answered"
                if reply.trickle_from == "body":
                    if outcome := self._send(head):
                        return outcome
                    head = b""
                for byte in head + payload:
                    if outcome := self._send(bytes([byte])):
                        return outcome
                    if outcome := self._idle(reply.trickle_s):
                        return outcome
                return "answered"

            def _send(self, data: bytes) -> str:
                """Send *data*; "" when sent, else how the connection ended."""
                try:
                    self.wfile.write(data)
                    return ""
                except (BrokenPipeError, ConnectionResetError):
                    return "client hung up"

            def _idle(self, seconds: float | None) -> str:
                """Wait *seconds* (None: for ever); "" when waited out, else how it ended."""
                end = None if seconds is None else time.monotonic() + seconds
                while not fake.stopping.is_set():
                    left = 0.05 if end is None else min(0.05, end - time.monotonic())
                    if left <= 0:
                        return ""
                    readable, _, _ = select.select([self.connection], [], [], left)
                    if readable and self._client_gone():
                        return "client hung up"
                return "server closed"

            def _client_gone(self) -> bool:
                try:
                    return bool(self.connection.recv(1, socket.MSG_PEEK) == b"")
                except OSError:
                    return True

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True  # never hold up the interpreter; close() joins them
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        assert isinstance(host, str)
        return f"http://{host}:{port}"

    def wait_for_outcomes(self, count: int, timeout_s: float = 5.0) -> list[str]:
        """The outcomes once *count* handlers have ended (or whatever there is by then)."""
        end = time.monotonic() + timeout_s
        while len(self.outcomes) < count and time.monotonic() < end:
            time.sleep(0.02)
        return list(self.outcomes)

    def close(self) -> list[threading.Thread]:
        """Stop serving and end every handler; returns the handler threads still alive
        (none, unless a handler is stuck)."""
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
        with self._lock:
            handlers = list(self.handlers)
        for thread in handlers:
            thread.join(timeout=5)
        self.thread.join(timeout=5)
        return [t for t in handlers if t.is_alive()]
