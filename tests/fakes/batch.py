"""The Gemini Batch API as the fake server plays it: shipped in the package
(``sabre_desk.demo.fake_servers.batch``)."""

from sabre_desk.demo.fake_servers.batch import (
    CANCELLED,
    EXPIRED,
    PENDING,
    RUNNING,
    SUCCEEDED,
    TERMINAL,
    FakeBatches,
)

__all__ = ["CANCELLED", "EXPIRED", "PENDING", "RUNNING", "SUCCEEDED", "TERMINAL", "FakeBatches"]
