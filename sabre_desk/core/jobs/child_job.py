"""Long model work in a child process, for the window: screening, making images, writing
specifications.

On a worker thread such a run shares the interpreter with the window: encoding megabyte
images in several threads at once costs the window's thread stalls of tens of milliseconds.
Here the run happens in a child process started with ``spawn`` (never ``fork``: the parent
may run Qt); its progress events come back through a pipe and are handed to a callback on a
reader thread (a GUI forwards them with a queued signal), and ``cancel`` stops it as Ctrl+C
stops the command: the run sees its cancel event, calls under way are cut off, and what was
written stays whole.

A run is a module-level function ``target(order, progress, stop) -> result`` (picklable by
reference); it raises ``ChildFailedError`` to end with a reason a person can act on.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any, Generic, TypeVar

from sabre_desk.engines.models import BASE_URL_VARIABLES, KEY_VARIABLES

#: What a child needs from this environment to reach the same model server.
#: every provider's endpoint and key variables (engines/models.py), for a child's calls
PASSED_ENV = (
    *BASE_URL_VARIABLES.values(),
    *(name for names in KEY_VARIABLES.values() for name in names),
)

Order = TypeVar("Order")
Progress = TypeVar("Progress")
Result = TypeVar("Result")


class ChildFailedError(Exception):
    """The run could not go on; ``reason`` is shown as it is."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def require(reason: str | None) -> None:
    """Go on only when nothing is missing (an engine's ``unavailable_reason()``)."""
    if reason:
        raise ChildFailedError(reason)


def passed_env() -> dict[str, str]:
    """The variables of PASSED_ENV this process has, for the child."""
    return {k: os.environ[k] for k in PASSED_ENV if k in os.environ}


def _child(
    target: Callable[[Any, Callable[[Any], None], threading.Event], Any],
    order: Any,
    env: dict[str, str],
    pipe: Connection,
    cancel: Any,
) -> None:
    """The child process: run *target*, send ("progress", event) … then ("done", result) or
    ("error", reason)."""
    os.environ.update(env)
    stop = threading.Event()
    sending = threading.Lock()  # a run may report from several threads

    def watch() -> None:
        cancel.wait()
        stop.set()

    def send(kind: str, payload: object) -> None:
        with sending:
            pipe.send((kind, payload))

    threading.Thread(target=watch, daemon=True).start()
    try:
        send("done", target(order, lambda event: send("progress", event), stop))
    except ChildFailedError as exc:
        send("error", exc.reason)
    except Exception as exc:  # reported to the window, never a silent death
        send("error", f"{type(exc).__name__}: {exc}")
    finally:
        pipe.close()


class ChildJob(Generic[Order, Progress, Result]):
    """One run of *target* with *order* in a spawned child.

    Usage (Qt-free)::

        job = ChildJob(run, order, env, "screening")
        job.start(on_progress, on_done)   # both called on the reader thread
        job.cancel()                      # any time; on_done still comes
    """

    def __init__(
        self,
        target: Callable[[Order, Callable[[Progress], None], threading.Event], Result],
        order: Order,
        env: dict[str, str],
        what: str,
    ) -> None:
        self.target, self.order, self.env = target, order, env
        self.what = what  # in the message when the child dies without a word
        self._context = multiprocessing.get_context("spawn")
        self._cancel = self._context.Event()
        self._process: Any = None
        self._reader: threading.Thread | None = None

    def start(
        self,
        on_progress: Callable[[Progress], None],
        on_done: Callable[[Result | None, str | None], None],
    ) -> None:
        """Start the child and a reader thread; returns at once."""
        parent, child = self._context.Pipe(duplex=False)
        self._process = self._context.Process(
            target=_child,
            args=(self.target, self.order, self.env, child, self._cancel),
            daemon=True,
        )
        self._process.start()
        child.close()
        self._reader = threading.Thread(
            target=self._read, args=(parent, on_progress, on_done), daemon=True
        )
        self._reader.start()

    def _read(
        self,
        pipe: Connection,
        on_progress: Callable[[Progress], None],
        on_done: Callable[[Result | None, str | None], None],
    ) -> None:
        result: Result | None = None
        error: str | None = None
        try:
            while True:
                kind, payload = pipe.recv()
                if kind == "progress":
                    on_progress(payload)
                elif kind == "done":
                    result = payload
                else:
                    error = str(payload)
        except EOFError:
            pass
        finally:
            pipe.close()
        self._process.join()
        if result is None and error is None and not self._cancel.is_set():
            error = f"the {self.what} process ended unexpectedly (exit {self._process.exitcode})"
        on_done(result, error)

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop the run: calls under way end within a fraction of a second; what was
        written stays whole."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the child has ended and on_done has been called (tests, scripts)."""
        if self._reader is None:
            return True
        self._reader.join(timeout)
        return not self._reader.is_alive()
