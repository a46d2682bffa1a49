"""The window never waits for the process pool to start a worker or send it a job: the
pool's lock, which hold, release, submit and cancel take on the GUI thread, is not held
while a job's arguments are pickled and written, nor while a worker process starts."""

from __future__ import annotations

import threading

from sabre_desk.core.jobs.process_pool import ProcessPool

ENTERED = threading.Event()
GATE = threading.Event()


class SlowToSend:
    """Arguments whose pickling waits for the test: the pool is caught mid-send."""

    def __reduce__(self) -> tuple[type[int], tuple[int]]:
        ENTERED.set()
        GATE.wait(20)
        return (int, (7,))


def test_hold_submit_and_cancel_do_not_wait_for_a_job_being_sent() -> None:
    pool = ProcessPool(workers=1)
    results: list[object] = []
    try:
        pool.submit(abs, SlowToSend(), done=lambda result, error: results.append(result))
        assert ENTERED.wait(20)  # the pool's thread is sending the job now
        calls_done = threading.Event()

        def window() -> None:
            pool.hold(0.05)
            pool.release()
            other = pool.submit(abs, -3, done=lambda result, error: None)
            pool.cancel(other)
            calls_done.set()

        threading.Thread(target=window, daemon=True).start()
        assert calls_done.wait(5)  # none of them waited for the send
    finally:
        GATE.set()
    assert pool.wait_idle(60)
    assert results == [7]
    pool.shutdown()
