"""Whether the reviewer is moving from case to case, for the loops over a whole project
that run on the window's threads (reading the index behind the first screenful, the first
look of the live poll, the adjudicator's queue): they wait while the reviewer moves.

Those loops are Python, and a thread running Python holds the interpreter lock the window
needs for every event it handles: with two such loops over 100,000 cases running, each key
press of a reviewer flipping through cases waited 20–50 ms for the lock
(``benchmarks/case_switch.py``). Their results can wait a second; the reviewer cannot.
"""

from __future__ import annotations

import math
import time

#: the reviewer counts as moving this long after a case opened
STILL_AFTER_S = 0.5
#: no wait is longer than this, so that a reviewer who never stops still gets the results
LONGEST_WAIT_S = 5.0


class ReviewerPace:
    def __init__(self, still_after_s: float = STILL_AFTER_S) -> None:
        self._moved_at = -math.inf
        self._still_after_s = still_after_s

    def moved(self) -> None:
        """A case opened (the workbench says so at each switch)."""
        self._moved_at = time.monotonic()

    @property
    def moving(self) -> bool:
        return time.monotonic() - self._moved_at < self._still_after_s

    def wait_until_still(self, longest_s: float = LONGEST_WAIT_S) -> None:
        """On a worker: return once the reviewer has stayed on a case for a moment (at
        once if they have), or after *longest_s* at most."""
        give_up = time.monotonic() + longest_s
        while (left := self._moved_at + self._still_after_s - time.monotonic()) > 0:
            if time.monotonic() >= give_up:
                return
            time.sleep(min(left, 0.05))
