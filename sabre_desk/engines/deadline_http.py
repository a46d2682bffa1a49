"""HTTP whose every socket operation obeys a total deadline and a cancel button.

httpx (here its fork httpx2, which google-genai 3 uses) only has per-operation timeouts: a
server that trickles one byte every few seconds never trips them, so a request can last
forever. The transport built here runs httpcore2's own connection pools on a network
backend whose sockets refuse to wait past the current deadline and look at a cancel event
every POLL_S, and it is handed to an official client (``HttpOptions(httpx_client=...)``).
When time is up the request ends with OutOfTimeError and httpcore2 closes the connection
itself: no thread is left blocked, no socket left open.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sabre_desk.ground.reading import human_size

if TYPE_CHECKING:
    import httpx2

#: How often a socket that is waiting looks at the cancel event.
POLL_S = 0.2
WRITE_CHUNK = 64 * 1024
#: httpx2's own client limits (httpcore2's pool alone allows 10 connections, which would cap
#: one shared client at 10 calls in flight).
MAX_CONNECTIONS, MAX_KEEPALIVE = 100, 20


class StopRequestError(Exception):
    """Raised from a socket operation to end the request. Not an httpcore2/httpx2 error, so
    nothing in the HTTP stack maps it or retries it; the stack still closes the connection."""


class RequestCancelledError(StopRequestError):
    """The reviewer cancelled the repair while a request was under way."""


class OutOfTimeError(StopRequestError):
    """The current attempt (or the whole repair) has used up its time."""


@dataclass(frozen=True)
class ReplyLimit:
    """The most bytes a reply may have on the wire, and what it is the limit for, in the
    words of a message ("an answer of 16 tokens"); see ``reply_limits``."""

    bytes: int
    what: str


class ReplyTooLargeError(StopRequestError):
    """The reply is over its ReplyLimit: the rest is not read, the connection is closed."""

    def __init__(
        self, limit: ReplyLimit, declared: int | None = None, reason: str | None = None
    ) -> None:
        size = f" ({human_size(declared)} announced)" if declared else ""
        self.reason = reason or (
            f"the reply is larger than {human_size(limit.bytes)}{size}, the limit for "
            f"{limit.what}; it was not read"
        )
        super().__init__(self.reason)


class Budget:
    """The time the current request and the whole repair may still take (monotonic clock,
    so a change of the wall clock neither extends nor cuts it), and the cancel event."""

    def __init__(
        self,
        total_s: float,
        per_request_s: float,
        cancel: threading.Event,
        reply_limit: ReplyLimit | None = None,
    ) -> None:
        self.per_request_s = per_request_s
        self.cancel = cancel
        #: the most a reply to this call may weigh (None: unbounded, for uploads' replies)
        self.reply_limit = reply_limit
        self.end = time.monotonic() + total_s
        self.attempt_end = self.end

    def begin_attempt(self) -> None:
        self.attempt_end = min(self.end, time.monotonic() + self.per_request_s)

    def attempt_was_capped_by_deadline(self) -> bool:
        return self.attempt_end >= self.end

    def overall_left(self) -> float:
        return self.end - time.monotonic()

    def current_limit(self) -> ReplyLimit | None:
        return self.reply_limit

    def left(self) -> float:
        """Seconds the current request may still wait, always > 0; raises instead."""
        if self.cancel.is_set():
            raise RequestCancelledError()
        left = self.attempt_end - time.monotonic()
        if left <= 0:
            raise OutOfTimeError()
        return left


class ThreadBudget(Budget):
    """The budget of whichever call the current thread is making: one transport (and one
    connection pool) serves many threads, each request held to its own call's budget."""

    def __init__(self) -> None:
        super().__init__(0.0, 0.0, threading.Event())
        self._local = threading.local()

    @contextlib.contextmanager
    def applying(self, budget: Budget) -> Iterator[None]:
        self._local.budget = budget
        try:
            yield
        finally:
            self._local.budget = None

    def left(self) -> float:
        budget: Budget | None = getattr(self._local, "budget", None)
        if budget is None:
            raise OutOfTimeError()  # a request outside any call: never waits
        return budget.left()

    def current_limit(self) -> ReplyLimit | None:
        budget: Budget | None = getattr(self._local, "budget", None)
        return None if budget is None else budget.current_limit()


def _cap(timeout: float | None, limit: float) -> float:
    return limit if timeout is None else min(timeout, limit)


def _ssl_context() -> ssl.SSLContext:
    """What the SDK itself would use: SSL_CERT_FILE/SSL_CERT_DIR when set, otherwise the
    operating system's trust store through httpx2. Made once per setting: loading the trust
    store takes ~35 ms and holds the interpreter, and a context serves any number of
    connections and threads."""
    return _ssl_context_for(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _ssl_context_for(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    import httpx2

    if cafile or capath:
        return ssl.create_default_context(cafile=cafile, capath=capath)
    return httpx2.create_ssl_context()


def _environment_proxy(scheme: str, host: str) -> str | None:
    """The HTTP(S)_PROXY / ALL_PROXY for a URL unless NO_PROXY exempts its host, as httpx2
    with trust_env=True would pick it."""
    proxies = urllib.request.getproxies_environment()
    proxy = proxies.get(scheme) or proxies.get("all")
    # proxy_bypass_environment is what getproxies() pairs with on every platform (NO_PROXY);
    # typeshed does not list it.
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]
    if not proxy or bypass(host, proxies):
        return None
    return proxy


@functools.cache
def budget_transport_class() -> Callable[[Budget], httpx2.BaseTransport]:
    """The httpx2 transport whose sockets obey a Budget.

    Built on first use: the classes derive from httpx2 and httpcore2, and importing those
    when this module is imported (the engine registry imports it for every engine, the
    offline ones too) would slow down every start and break them all where httpx2 is missing.
    """
    import httpcore2
    import httpx2

    class BudgetStream(httpcore2.NetworkStream):
        """A socket stream that never waits past the budget. Reads wait in short slices so
        that a cancel is noticed within POLL_S; the per-read timeout httpcore2 asks for still
        holds across the slices."""

        def __init__(self, inner: httpcore2.NetworkStream, budget: Budget) -> None:
            self._inner = inner
            self._budget = budget

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            until = None if timeout is None else time.monotonic() + timeout
            while True:
                wait = min(self._budget.left(), POLL_S)
                if until is not None:
                    rest = until - time.monotonic()
                    if rest <= 0:
                        raise httpcore2.ReadTimeout("timed out")
                    wait = min(wait, rest)
                try:
                    return self._inner.read(max_bytes, wait)
                except httpcore2.ReadTimeout:
                    continue  # one slice of silence: look at the clock and the cancel again

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            # A chunk that times out may be half sent, so chunks are not retried: each gets
            # all the time left, and the cancel is looked at between chunks.
            view = memoryview(buffer)
            for start in range(0, len(view), WRITE_CHUNK):
                chunk = bytes(view[start : start + WRITE_CHUNK])
                self._inner.write(chunk, _cap(timeout, self._budget.left()))

        def close(self) -> None:
            self._inner.close()

        def start_tls(
            self,
            ssl_context: ssl.SSLContext,
            server_hostname: str | None = None,
            timeout: float | None = None,
        ) -> httpcore2.NetworkStream:
            limit = _cap(timeout, self._budget.left())
            return BudgetStream(
                self._inner.start_tls(ssl_context, server_hostname, limit), self._budget
            )

        def get_extra_info(self, info: str) -> Any:
            return self._inner.get_extra_info(info)

    class BudgetBackend(httpcore2.NetworkBackend):
        """httpcore2's own blocking sockets, each wrapped to obey the budget."""

        def __init__(self, budget: Budget) -> None:
            self._inner = httpcore2.SyncBackend()
            self._budget = budget

        def connect_tcp(
            self,
            host: str,
            port: int,
            timeout: float | None = None,
            local_address: str | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.NetworkStream:
            limit = _cap(timeout, self._budget.left())
            stream = self._inner.connect_tcp(host, port, limit, local_address, socket_options)
            return BudgetStream(stream, self._budget)

        def connect_unix_socket(
            self,
            path: str,
            timeout: float | None = None,
            socket_options: Iterable[Any] | None = None,
        ) -> httpcore2.NetworkStream:
            limit = _cap(timeout, self._budget.left())
            stream = self._inner.connect_unix_socket(path, limit, socket_options)
            return BudgetStream(stream, self._budget)

        def sleep(self, seconds: float) -> None:
            self._inner.sleep(min(seconds, self._budget.left()))

    @contextlib.contextmanager
    def httpx_errors() -> Iterator[None]:
        """httpcore2 errors as their httpx2 namesakes, as httpx2's own transport raises
        them (httpx2 is a drop-in fork: each httpcore2 transport error has one)."""
        try:
            yield
        except Exception as exc:
            if not type(exc).__module__.startswith("httpcore2"):
                raise  # our StopRequestError, or a bug: unchanged
            for cls in type(exc).__mro__:
                namesake = getattr(httpx2, cls.__name__, None)
                if isinstance(namesake, type) and issubclass(namesake, httpx2.TransportError):
                    raise namesake(str(exc)) from exc
            raise

    class ResponseStream(httpx2.SyncByteStream):
        """The body as it arrives, stopped the moment it passes the reply limit: a 300 MB
        reply costs one chunk of memory, not 300 MB."""

        def __init__(self, stream: Iterable[bytes], limit: ReplyLimit | None) -> None:
            self._stream = stream
            self._limit = limit

        def __iter__(self) -> Iterator[bytes]:
            total = 0
            with httpx_errors():
                for chunk in self._stream:
                    total += len(chunk)
                    if self._limit is not None and total > self._limit.bytes:
                        raise ReplyTooLargeError(self._limit)
                    yield chunk

        def close(self) -> None:
            close = getattr(self._stream, "close", None)
            if close is not None:
                close()

    class BudgetTransport(httpx2.BaseTransport):
        """httpx2's HTTPTransport in miniature, on connection pools whose sockets come from
        the budget backend: one pool for direct requests, one per environment proxy."""

        def __init__(self, budget: Budget) -> None:
            self._budget = budget
            self._backend = BudgetBackend(budget)
            self._ssl: ssl.SSLContext | None = None
            self._pools: dict[str | None, httpcore2.ConnectionPool] = {}

        def _pool(self, url: httpx2.URL) -> httpcore2.ConnectionPool:
            proxy_url = _environment_proxy(url.scheme, url.host)
            if proxy_url in self._pools:
                return self._pools[proxy_url]
            if self._ssl is None:
                self._ssl = _ssl_context()
            pool: httpcore2.ConnectionPool
            if proxy_url is None:
                pool = httpcore2.ConnectionPool(
                    ssl_context=self._ssl,
                    network_backend=self._backend,
                    max_connections=MAX_CONNECTIONS,
                    max_keepalive_connections=MAX_KEEPALIVE,
                )
            else:
                proxy = httpx2.Proxy(proxy_url)
                if proxy.url.scheme not in ("http", "https"):
                    raise httpx2.UnsupportedProtocol(
                        f"only HTTP(S) proxies are supported, not {proxy.url.scheme}"
                    )
                pool = httpcore2.HTTPProxy(
                    proxy_url=httpcore2.URL(
                        scheme=proxy.url.raw_scheme,
                        host=proxy.url.raw_host,
                        port=proxy.url.port,
                        target=proxy.url.raw_path,
                    ),
                    proxy_auth=proxy.raw_auth,
                    proxy_headers=proxy.headers.raw,
                    ssl_context=self._ssl,
                    network_backend=self._backend,
                    max_connections=MAX_CONNECTIONS,
                    max_keepalive_connections=MAX_KEEPALIVE,
                )
            self._pools[proxy_url] = pool
            return pool

        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            assert isinstance(request.stream, httpx2.SyncByteStream)
            limit = self._budget.current_limit()
            headers = request.headers
            if limit is not None:
                # The limit counts bytes on the wire: a compressed reply could unpack to a
                # thousand times its size, so a bounded call asks for none.
                headers = headers.copy()
                headers["accept-encoding"] = "identity"
            core_request = httpcore2.Request(
                method=request.method,
                url=httpcore2.URL(
                    scheme=request.url.raw_scheme,
                    host=request.url.raw_host,
                    port=request.url.port,
                    target=request.url.raw_path,
                ),
                headers=headers.raw,
                content=request.stream,
                extensions=request.extensions,
            )
            with httpx_errors():
                response = self._pool(request.url).handle_request(core_request)
            assert isinstance(response.stream, Iterable)
            if limit is not None:
                _refuse_oversized(response, limit)
            return httpx2.Response(
                status_code=response.status,
                headers=response.headers,
                stream=ResponseStream(response.stream, limit),
                extensions=response.extensions,
            )

        def close(self) -> None:
            for pool in self._pools.values():
                pool.close()
            self._pools.clear()

    def _refuse_oversized(response: httpcore2.Response, limit: ReplyLimit) -> None:
        """Refuse at the headers what announces itself too large or compressed anyway."""
        fields = {k.lower(): v for k, v in response.headers}
        declared: int | None = None
        with contextlib.suppress(ValueError):
            declared = int(fields.get(b"content-length", b"-1"))
        encoding = fields.get(b"content-encoding", b"identity").strip().lower()
        if declared is not None and declared > limit.bytes:
            response.close()
            raise ReplyTooLargeError(limit, declared)
        if encoding not in (b"", b"identity"):
            response.close()
            name = encoding.decode("ascii", "replace")[:20]
            raise ReplyTooLargeError(
                limit,
                reason=f"the reply came compressed ({name}) though none was asked for; "
                "refused, as its unpacked size cannot be bounded",
            )

    return BudgetTransport
