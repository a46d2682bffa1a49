"""One line describing a repair outcome, for status bars and the command line."""

from __future__ import annotations

from typing import Any


def outcome_summary(outcome: Any) -> str:
    parts = [f"seam score {outcome.seam:.2f}"]
    if outcome.warnings:
        parts.append("; ".join(outcome.warnings))
    return ", ".join(parts)
