"""Screening in a child process, for the window.

``run_screening`` on a worker thread shares the interpreter with the window: encoding a
megabyte image per request in eight threads at once costs the window's thread stalls of
tens of milliseconds on a laptop. Here the whole run (plan, calls, writes) happens in a
child process started with ``spawn`` (never ``fork``: the parent may run Qt); its progress
events come back through a pipe and are handed to a callback on a reader thread (a GUI
forwards them with a queued signal), and ``cancel`` stops it as Ctrl+C stops the command.

Usage (Qt-free)::

    job = ScreenProcess(project.root, "alice", case_ids=["ctx01"], model="gemini-3.5-flash")
    job.start(on_progress, on_done)   # both called on the reader thread
    job.cancel()                      # any time; on_done still comes, with cancelled=True
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from sabre_desk.core.screen_run import ScreenProgress, ScreenReport


@dataclass(frozen=True)
class ScreenOrder:
    """Everything the child needs, picklable."""

    root: Path
    reviewer: str
    case_ids: list[str] | None = None
    stale_only: bool = False
    model: str = "gemini-3.5-flash"
    concurrency: int = 8
    use_cache: bool = True
    local_url: str | None = None  # an OpenAI-compatible server instead of Gemini
    env: dict[str, str] = field(default_factory=dict)  # e.g. GOOGLE_GEMINI_BASE_URL


def _child(order: ScreenOrder, pipe: Connection, cancel: Any) -> None:
    """The child process: run the screening, send ("progress", event) and ("done", report)."""
    import os

    os.environ.update(order.env)
    stop = threading.Event()

    def watch() -> None:
        cancel.wait()
        stop.set()

    threading.Thread(target=watch, daemon=True).start()
    try:
        from sabre_desk.core.ledger import Ledger
        from sabre_desk.core.project import Project
        from sabre_desk.core.prompts import shipped_prompts
        from sabre_desk.core.request_cache import RequestCache
        from sabre_desk.core.screen_run import plan_screening, run_screening
        from sabre_desk.engines.answers import AnswerEngine
        from sabre_desk.engines.gemini_qa import GeminiAnswerer
        from sabre_desk.engines.local_qa import LocalAnswerer

        engine: AnswerEngine = (
            LocalAnswerer(order.model, order.local_url)
            if order.local_url
            else GeminiAnswerer(order.model)
        )
        reason = engine.unavailable_reason()
        if reason:
            pipe.send(("error", reason))
            return
        project = Project.open(order.root, order.reviewer)
        plan = plan_screening(
            project, engine, shipped_prompts(), order.case_ids, order.stale_only, stop
        )
        report = run_screening(
            project,
            plan,
            engine,
            order.concurrency,
            RequestCache.of_project(project.root),
            Ledger.of_project(project.root),
            lambda event: pipe.send(("progress", event)),
            stop,
            order.use_cache,
        )
        report.errors += plan.skipped
        pipe.send(("done", report))
    except Exception as exc:  # reported to the window, never a silent death
        pipe.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        pipe.close()


Done = Callable[[ScreenReport | None, str | None], None]


class ScreenProcess:
    def __init__(self, order: ScreenOrder) -> None:
        self.order = order
        self._context = multiprocessing.get_context("spawn")
        self._cancel = self._context.Event()
        self._process: Any = None
        self._reader: threading.Thread | None = None

    def start(self, on_progress: Callable[[ScreenProgress], None], on_done: Done) -> None:
        """Start the child and a reader thread; returns at once."""
        parent, child = self._context.Pipe(duplex=False)
        self._process = self._context.Process(
            target=_child, args=(self.order, child, self._cancel), daemon=True
        )
        self._process.start()
        child.close()
        self._reader = threading.Thread(
            target=self._read, args=(parent, on_progress, on_done), daemon=True
        )
        self._reader.start()

    def _read(
        self, pipe: Connection, on_progress: Callable[[ScreenProgress], None], on_done: Done
    ) -> None:
        report: ScreenReport | None = None
        error: str | None = None
        try:
            while True:
                kind, payload = pipe.recv()
                if kind == "progress":
                    on_progress(payload)
                elif kind == "done":
                    report = payload
                else:
                    error = str(payload)
        except EOFError:
            pass
        finally:
            pipe.close()
        self._process.join()
        if report is None and error is None and not self._cancel.is_set():
            error = f"the screening process ended unexpectedly (exit {self._process.exitcode})"
        on_done(report, error)

    def cancel(self) -> None:
        """Stop the run: calls under way end within a fraction of a second; every answer
        received is kept in the request cache."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the child has ended and on_done has been called (tests, scripts)."""
        if self._reader is None:
            return True
        self._reader.join(timeout)
        return not self._reader.is_alive()
