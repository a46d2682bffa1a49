"""The stress runs' killer: processes SIGKILLed at random and started again at once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

K = TypeVar("K")


def kill_at_random(
    start: Callable[[K], subprocess.Popen],
    keys: Sequence[K],
    rng: random.Random,
    seconds: float,
    pause: tuple[float, float] = (0.1, 0.5),
) -> int:
    """Run one process per key; every ``pause`` seconds kill one at random and start it
    again, for ``SABRE_STRESS_SECONDS`` (else ``seconds``). Every process is gone when this
    returns the number of kills."""
    running = {key: start(key) for key in keys}
    kills = 0
    deadline = time.monotonic() + float(os.environ.get("SABRE_STRESS_SECONDS", seconds))
    try:
        while time.monotonic() < deadline:
            time.sleep(rng.uniform(*pause))
            key = rng.choice(list(running))
            running[key].send_signal(signal.SIGKILL)
            running[key].wait()
            kills += 1
            running[key] = start(key)
    finally:
        for process in running.values():
            process.kill()
            process.wait()
    return kills
