"""When a model-backed run stops on its own: a deadline for the whole run and a give-up rule.

Each call already has its own timeout and retries; what they cannot see is the run. Against a
silent server a run of 13 cases would otherwise wait out every call in turn (minutes each),
and a service that refuses every request would be asked once per case. The guard is told
the outcome of every call; once the run's deadline has passed, or the same kind of failure
has come back ``give_up_after`` times in a row, it sets the run's cancel event (so no new
call starts and the ones under way end) and keeps one line saying why and how to resume.
A rate limit that asks for a long wait is not waited for: the call is recorded as
rate-limited and counts towards the give-up rule like any other failure of one kind.

Qt-free and thread-safe: the calls of one run report from a pool of threads.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: Consecutive failures of one kind after which a run stops (the command's --give-up-after).
DEFAULT_GIVE_UP_AFTER = 5
#: A rate limit asking for a longer wait than this is recorded, not waited for.
LONGEST_RATE_LIMIT_WAIT_S = 60.0
#: The kind of failure of a call the service refused for its rate limit.
RATE_LIMITED = "rate-limited"
#: Why a call ended by a long rate-limit wait failed (what its item records).
LONG_WAIT = (
    f"rate-limited: the service asked to wait more than {LONGEST_RATE_LIMIT_WAIT_S:g} s; "
    "not waited for"
)


@dataclass(frozen=True)
class RunLimits:
    """What a run may cost in time and in failures (from the command line or the settings)."""

    deadline_s: float | None = None
    give_up_after: int = DEFAULT_GIVE_UP_AFTER

    def __post_init__(self) -> None:
        if self.deadline_s is not None and self.deadline_s <= 0:
            raise ValueError("the deadline must be a positive number of seconds")
        if self.give_up_after < 1:
            raise ValueError("give up after must be at least 1")


class RunGuard:
    """Watches one run; ``stop_reason`` is None while it may go on."""

    def __init__(
        self,
        limits: RunLimits,
        cancel: threading.Event,
        resume: str,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limits = limits
        self.cancel = cancel
        self._resume = resume
        self._clock = clock
        self._end = None if limits.deadline_s is None else clock() + limits.deadline_s
        self._lock = threading.Lock()
        self._streak_kind: str | None = None
        self._streak = 0
        self.rate_limited = 0
        self.stop_reason: str | None = None
        #: the cancel event of each call under way, and whether a long wait ended it
        self._calls: dict[threading.Event, bool] = {}
        self._ended_by_wait: weakref.WeakSet[threading.Event] = weakref.WeakSet()
        self._waits: Callable[[], float] | None = None

    def seconds_left(self) -> float | None:
        """What remains of the run's deadline (None: no deadline); a call's own timeout is
        never longer than this."""
        if self._end is None:
            return None
        return max(0.0, self._end - self._clock())

    def check(self) -> bool:
        """True while the run may start another call; stops it once the deadline passed."""
        left = self.seconds_left()
        if left is not None and left <= 0:
            self._stop(f"the run's deadline of {self.limits.deadline_s:g} s has passed")
        return self.stop_reason is None and not self.cancel.is_set()

    def succeeded(self) -> None:
        with self._lock:
            self._streak_kind, self._streak = None, 0

    def failed(self, kind: str) -> None:
        """One call failed; *kind* names the failure in a reviewer's words ("timed out",
        "rate-limited", "refused by the service") so the stop line can say it."""
        with self._lock:
            if kind == self._streak_kind:
                self._streak += 1
            else:
                self._streak_kind, self._streak = kind, 1
            streak = self._streak
        if streak >= self.limits.give_up_after:
            self._stop(f"{streak} calls in a row failed ({kind})")

    def rate_limit(self, retry_after_s: float | None) -> bool:
        """A 429: True when the call may wait *retry_after_s* and try again; False when the
        wait is too long (or unknown and the run has a deadline it would outlast), in
        which case the call is recorded as rate-limited and the run moves on."""
        left = self.seconds_left()
        if (
            retry_after_s is not None
            and retry_after_s <= LONGEST_RATE_LIMIT_WAIT_S
            and (left is None or retry_after_s < left)
        ):
            return True
        with self._lock:
            self.rate_limited += 1
        self.failed("rate-limited")
        return False

    def _stop(self, why: str) -> None:
        with self._lock:
            if self.stop_reason is None:
                self.stop_reason = f"stopped: {why}; {self._resume}"
        self.cancel.set()

    def watch_waits(self, waits: Callable[[], float]) -> None:
        """*waits*: how long the service has asked every call to wait now (a client's
        shared cooldown after a 429). A wait longer than LONGEST_RATE_LIMIT_WAIT_S is not
        sat out: the calls waiting are ended and recorded as rate-limited (``call``)."""
        self._waits = waits

    @contextlib.contextmanager
    def call(self) -> Iterator[threading.Event]:
        """The cancel event for one call: set when the run stops, or when the service asks
        for a longer wait than the run sits out (``was_rate_limited`` then says so)."""
        event = threading.Event()
        with self._lock:
            self._calls[event] = False
        if self.cancel.is_set():
            event.set()
        try:
            yield event
        finally:
            with self._lock:
                if self._calls.pop(event, False):
                    self._ended_by_wait.add(event)

    def was_rate_limited(self, event: threading.Event) -> bool:
        """Whether the call of *event* was ended because the service asked for a long wait
        (also after the call is over)."""
        with self._lock:
            return self._calls.get(event, False) or event in self._ended_by_wait

    def _end_calls(self, rate_limited: bool) -> None:
        with self._lock:
            for event in self._calls:
                if not event.is_set():
                    self._calls[event] = rate_limited
                    event.set()

    @contextlib.contextmanager
    def watching(self) -> Iterator[None]:
        """While the run is under way, a thread that stops it the moment its deadline
        passes (the calls under way see the cancel event at once, so a run against a
        silent service ends at its deadline, not when its slowest call gives up) and ends
        the calls a long rate-limit wait would hold (``watch_waits``)."""
        if self._end is None and self._waits is None:
            yield
            return
        finished = threading.Event()

        def watch() -> None:
            while not finished.is_set():
                left = self.seconds_left()
                if left is not None and left <= 0:
                    self.check()
                if self.cancel.is_set():
                    self._end_calls(False)
                    if self._waits is None:
                        return
                elif self._waits is not None and self._waits() > LONGEST_RATE_LIMIT_WAIT_S:
                    self._end_calls(True)
                finished.wait(0.1 if self._waits is not None else min(left or 0.5, 0.5))

        thread = threading.Thread(target=watch, name="run-deadline", daemon=True)
        thread.start()
        try:
            yield
        finally:
            finished.set()
            thread.join()

    def outcome(self, failure: str | None) -> None:
        """Tell the guard how one call ended: *failure* is its reason, None a success."""
        if failure is None:
            self.succeeded()
            return
        kind = failure_kind(failure)
        if kind == RATE_LIMITED:
            self.rate_limit(None)  # the client already waited what it could
        elif kind not in ITEM_KINDS:
            self.failed(kind)
        # A failure of this item's own (a safety stop, a rambling reply) says nothing of
        # the service, and a rerun, asking the failed items first, would meet it again:
        # it neither counts towards giving up nor ends a streak.


_STATUS = re.compile(r"answered (\d{3})")
REPLY_TOO_LONG = "the reply was too long"
OTHER_FAILURE = "the call failed"
#: Kinds of failure that belong to the item asked about, not to the service.
ITEM_KINDS = frozenset({REPLY_TOO_LONG, OTHER_FAILURE})


def failure_kind(reason: str) -> str:
    """The kind of a failed call, from its reason, in the words of the stop line; two
    failures of one kind are the same trouble (a silent service, a refused key)."""
    text = reason.lower()
    # before an excerpt is looked at; refused on the wire (engines) or once read (core)
    if text.startswith("the answer is too long") or "the reply is larger than" in text:
        return REPLY_TOO_LONG
    status = _STATUS.search(text)
    if status:
        code = status.group(1)
        return RATE_LIMITED if code == "429" else f"the service answered {code}"
    if "asked to wait" in text or "rate limit" in text or "rate-limited" in text:
        return RATE_LIMITED
    if "did not finish answering" in text or "timed out" in text or "timeout" in text:
        return "the service did not answer in time"
    if "could not reach" in text:
        return "the service could not be reached"
    return OTHER_FAILURE


def call_cancel(
    guard: RunGuard | None, cancel: threading.Event
) -> contextlib.AbstractContextManager[threading.Event]:
    """The cancel event for one call of a run: the guard's own (``RunGuard.call``), or the
    run's when there is no guard."""
    return guard.call() if guard is not None else contextlib.nullcontext(cancel)
