"""Time limits of the Gemini engine: the real google-genai client against a fake server that
trickles or never answers.

The SDK's own timeout only counts silence between bytes, so these servers are the cases it
cannot end. Limits here are a second or two; the assertions on elapsed time are generous
upper bounds (ten times the limit) that only prove the call did not hang, and each test
also checks that the client really dropped the connection (the fake saw it hang up).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Literal

import pytest
from factories import rgb_array
from fakes.gemini_server import (
    FakeGemini,
    error_reply,
    hang_reply,
    image_reply,
    serving,
    trickle_reply,
)

from sabre_desk.engines.base import RepairCancelledError
from sabre_desk.engines.gemini import GeminiEngine
from sabre_desk.engines.pipeline import RepairOrder, run_repair
from sabre_desk.ground.errors import RepairError

KEY = "deadline-key-" + "q" * 24
BOX = (0.4, 0.4, 0.6, 0.6)


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with serving(monkeypatch, KEY) as server:
        yield server


def engine(**kw: Any) -> GeminiEngine:
    kw.setdefault("initial_delay_s", 0.05)
    return GeminiEngine(model="gemini-3.1-flash-image", **kw)


def repair(gemini: GeminiEngine, cancel: threading.Event | None = None) -> tuple[str, float]:
    """The failure message of a repair that must fail, and how long it took."""
    began = time.monotonic()
    with pytest.raises(RepairError) as info:
        run_repair(rgb_array(200, 200), RepairOrder(BOX, "remove", "x"), gemini, cancel=cancel)
    return info.value.message, time.monotonic() - began


@pytest.mark.parametrize("start", ["status", "body"])
def test_a_trickling_reply_is_cut_off_at_the_request_limit(
    fake: FakeGemini, start: Literal["status", "body"]
) -> None:
    """One byte every 0.1 s never leaves the client silent for its 1 s, so only a limit on
    the whole request ends it, in the headers as well as in the body."""
    fake.script = [trickle_reply(0.1, start)]
    message, took = repair(engine(timeout_s=1.0, attempts=1))
    assert "did not finish answering within 1 s, the limit per attempt" in message
    assert "(1 attempt, at most 300 s in all)" in message  # per attempt and in total
    assert took < 10
    assert fake.wait_for_outcomes(1) == ["client hung up"]


def test_a_trickle_on_every_attempt_ends_at_the_overall_deadline(fake: FakeGemini) -> None:
    """Retries do not multiply the time: 4 s in all, whatever 4 attempts of 2 s could take.
    The second attempt starts after ~2 s and has ~2 s to reach the server even on a busy
    machine (with 1 s and 1.6 s a loaded runner spent the whole deadline on the first)."""
    fake.default = trickle_reply(0.1)
    message, took = repair(engine(timeout_s=2.0, deadline_s=4.0, attempts=4))
    match = re.search(
        r"within 4 s, the limit for the whole repair \((\d+) attempts? of up to 2 s each\)",
        message,
    )
    assert match, message
    assert int(match[1]) == len(fake.requests) == 2  # the true count, not the 4 allowed
    assert took < 40
    assert fake.wait_for_outcomes(2) == ["client hung up"] * 2


def test_a_server_that_never_answers_fails_at_the_overall_deadline(fake: FakeGemini) -> None:
    fake.default = hang_reply()
    # as above: the second attempt starts after ~2 s and has ~2 s to reach the server
    message, took = repair(engine(timeout_s=2.0, deadline_s=4.0, attempts=4))
    assert message.endswith(
        "within 4 s, the limit for the whole repair (2 attempts of up to 2 s each)"
    ), message
    assert len(fake.requests) == 2
    assert took < 40
    assert fake.wait_for_outcomes(2) == ["client hung up"] * 2


def test_a_request_longer_than_the_deadline_is_cut_at_the_deadline(fake: FakeGemini) -> None:
    """The overall deadline also bounds a single request allowed more time than that."""
    fake.default = hang_reply()
    message, took = repair(engine(timeout_s=20.0, deadline_s=1.5, attempts=3))
    assert message.endswith(
        "within 1.5 s, the limit for the whole repair (1 attempt of up to 20 s each)"
    ), message
    assert took < 15
    assert fake.wait_for_outcomes(1) == ["client hung up"]


def test_the_default_deadline_allows_one_full_request() -> None:
    assert engine().deadline_s == 300 and engine().timeout_s == 180
    assert engine(timeout_s=600).deadline_s == 600


def cancel_once(happened: Callable[[], bool]) -> tuple[threading.Event, threading.Thread]:
    """A cancel event set as soon as *happened* (polled), not after a fixed time: on a busy
    machine a fixed delay can fire before the request is even sent."""
    cancel = threading.Event()

    def watch() -> None:
        for _ in range(2000):
            if happened():
                break
            time.sleep(0.01)
        cancel.set()

    timer = threading.Thread(target=watch, daemon=True)
    timer.start()
    return cancel, timer


def test_a_cancel_stops_a_request_that_is_waiting(fake: FakeGemini) -> None:
    fake.default = hang_reply()
    cancel, timer = cancel_once(lambda: bool(fake.requests))
    try:
        began = time.monotonic()
        with pytest.raises(RepairCancelledError):
            run_repair(
                rgb_array(200, 200),
                RepairOrder(BOX, "remove", "x"),
                engine(timeout_s=20.0, attempts=1),
                cancel=cancel,
            )
        assert time.monotonic() - began < 30
    finally:
        timer.join()
    assert fake.wait_for_outcomes(1) == ["client hung up"]


def test_a_cancel_during_the_pause_before_a_retry_is_prompt(fake: FakeGemini) -> None:
    fake.script = [error_reply(503, "busy"), image_reply()]
    cancel, timer = cancel_once(lambda: bool(fake.outcomes))  # the 503 is answered
    try:
        began = time.monotonic()
        with pytest.raises(RepairCancelledError):
            run_repair(
                rgb_array(200, 200),
                RepairOrder(BOX, "remove", "x"),
                engine(initial_delay_s=20.0),
                cancel=cancel,
            )
        assert time.monotonic() - began < 15  # not the 20 s pause
    finally:
        timer.join()
    assert len(fake.requests) == 1  # no retry after the cancel


def test_no_time_left_for_a_retry_is_said_so(fake: FakeGemini) -> None:
    """A backoff pause that would end past the deadline is not slept through."""
    fake.script = [error_reply(503, "busy"), image_reply()]
    message, took = repair(engine(initial_delay_s=30.0, deadline_s=10.0))
    assert message.startswith("Gemini answered 503: busy (1 attempt, at most 10 s in all); no time")
    assert "within 10 s" in message
    assert took < 10
    assert len(fake.requests) == 1


def test_an_environment_proxy_is_still_used(
    fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The time-limited transport replaces httpx2's own, which honours HTTP(S)_PROXY; so must
    it (the fake plays the proxy: it gets the absolute URL of a host that does not exist)."""
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy", "http_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", fake.url)
    outcome = run_repair(
        rgb_array(200, 200),
        RepairOrder(BOX, "remove", "x"),
        GeminiEngine(base_url="http://gemini.invalid"),
    )
    assert outcome.model == "gemini-3.1-flash-image"
    assert fake.requests[0]["path"].startswith("http://gemini.invalid/")
