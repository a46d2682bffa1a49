"""What the OpenAI and Anthropic stand-ins share: a threaded HTTP server on 127.0.0.1 that
records every request (path, headers, JSON body) and answers each from a script, then from
a rule; a reply can also be a flood (``Flood``): that many bytes of JSON text, with or
without announcing its length, sent until the client hangs up."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

CHUNK = 1 << 20


@dataclass(frozen=True)
class Flood:
    """A reply of *size* bytes (a JSON string that never ends in time)."""

    size: int
    announce: bool = True


@dataclass(frozen=True)
class Page:
    """A reply body that is not JSON, sent with its own type (a proxy's HTML error page)."""

    body: bytes
    content_type: str = "text/html; charset=utf-8"


Handled = tuple[int, Any]  # (status, JSON body or Flood or Page or raw bytes)


#: What a reply names where an echoing server puts the request's key (``FakeHttp.echo_key``).
ECHO_KEY = "ECHO_KEY"


def _credential(path: str, headers: dict[str, str]) -> bytes:
    """The key a request carried, however its client sends it."""
    bearer = headers.get("authorization", "").removeprefix("Bearer ").strip()
    query = dict(p.partition("=")[::2] for p in path.partition("?")[2].split("&") if p)
    key = bearer or headers.get("x-api-key") or headers.get("x-goog-api-key") or query.get("key")
    return (key or "").encode()


@dataclass
class FakeHttp:
    script: list[Handled] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    #: bytes of a flood actually sent before the client hung up, per flood reply
    flooded: list[int] = field(default_factory=list)
    #: silence before each reply of the model's endpoint (a slow service)
    delay_s: float = 0.0
    #: 0: any free port
    port: int = 0
    #: A debugging proxy's echo: ``ECHO_KEY`` anywhere in a reply becomes the key the request
    #: carried (``Authorization: Bearer``, ``x-api-key``, ``x-goog-api-key`` or ``?key=``).
    echo_key: bool = False

    def route(self, method: str, path: str, body: Any, headers: dict[str, str]) -> Handled:
        raise NotImplementedError

    def __post_init__(self) -> None:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self, method: str) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0) or 0))
                body: Any = raw
                if "json" in (self.headers.get("Content-Type") or "") and raw:
                    body = json.loads(raw)
                headers = {k.lower(): v for k, v in self.headers.items()}
                fake.requests.append(
                    {"method": method, "path": self.path, "headers": headers, "body": body}
                )
                if fake.delay_s and fake.scripted(self.path):
                    time.sleep(fake.delay_s)
                scripted = method == "POST" and fake.script and fake.scripted(self.path)
                status, reply = (
                    fake.script.pop(0) if scripted else fake.route(method, self.path, body, headers)
                )
                if isinstance(reply, Flood):
                    return self._flood(status, reply)
                kind = reply.content_type if isinstance(reply, Page) else "application/json"
                reply = reply.body if isinstance(reply, Page) else reply
                payload = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                if fake.echo_key:
                    payload = payload.replace(ECHO_KEY.encode(), _credential(self.path, headers))
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                self.wfile.write(payload)

            def _flood(self, status: int, flood: Flood) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if flood.announce:
                    self.send_header("Content-Length", str(flood.size))
                self.send_header("Connection", "close")
                self.end_headers()
                sent = 0
                try:
                    self.wfile.write(b'{"choices": "')
                    while sent < flood.size:
                        self.wfile.write(b"a" * CHUNK)
                        sent += CHUNK
                except (BrokenPipeError, ConnectionResetError):
                    pass
                fake.flooded.append(sent)
                self.close_connection = True

            def do_POST(self) -> None:
                self._handle("POST")

            def do_GET(self) -> None:
                self._handle("GET")

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def scripted(self, path: str) -> bool:
        """Whether a POST to *path* takes the next scripted reply (the model's endpoint)."""
        return True

    @property
    def root(self) -> str:
        host, port = self.server.server_address[:2]
        assert isinstance(host, str)
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
