"""A local stand-in for the Gemini API's generateContent endpoint, on 127.0.0.1.

It speaks the REST shape the real google-genai client uses, so the engine is tested with the
real client end to end. Each request takes the next scripted behaviour; every request is
recorded (path, headers, body) so tests can check what was sent.
"""

from __future__ import annotations

import base64
import io
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image


def png_b64(width: int, height: int, color: tuple[int, int, int] = (30, 160, 60)) -> str:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


@dataclass
class Reply:
    status: int = 200
    body: dict[str, Any] | None = None
    delay_s: float = 0.0


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


def text_reply(text: str = "I cannot edit this image.") -> Reply:
    return Reply(
        body={
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
            ]
        }
    )


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

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                fake.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body}
                )
                reply = fake.script.pop(0) if fake.script else fake.default
                if reply.delay_s:
                    time.sleep(reply.delay_s)
                payload = json.dumps(reply.body or {}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
