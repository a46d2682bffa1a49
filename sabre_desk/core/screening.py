"""screening.json: what the filtering VLM answered, run by run (append-only)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ProbeResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    response: str
    correct: bool | None = None


class ScreeningRun(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    at: str
    results: dict[str, ProbeResult] = Field(default_factory=dict)
    note: str | None = None


class ScreeningRecord(BaseModel):
    """All screening runs of one case; the last one is what the probe table shows."""

    model_config = ConfigDict(extra="allow")

    runs: list[ScreeningRun] = Field(default_factory=list)

    @property
    def latest(self) -> ScreeningRun | None:
        return self.runs[-1] if self.runs else None
