"""Polls that back off: what an idle window polls, it polls less and less often.

A poll that finds nothing doubles its wait, up to a slowest pace; one that finds a change
(or a reviewer's move) is back at its quick pace. An idle window then wakes a few times a
minute instead of several times a second, and a change is still seen within the slowest
wait.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer


def backed_off(timer: QTimer, changed: bool, quick: int, slowest: int) -> None:
    """Set *timer*'s next wait: *quick* after a change, else twice its last one, at most
    *slowest* (milliseconds)."""
    wait = quick if changed else min(slowest, 2 * timer.interval())
    if wait != timer.interval():
        timer.setInterval(wait)
