"""The cost ledger: ``ledger.jsonl`` in the project, one line per model call.

Every call that reached a model appends its token use as the service reported it (the SDK's
usage metadata): input (images included), output, image and thinking tokens, with its stage
(``specs``, ``images``, ``screen``, ``predict``, ``repair``), model and case. Lines are
appended under the file's lock, flushed and fsynced; a torn last line (a killed process) is
skipped when read. A request answered from the request cache costs nothing and is not listed.

``summarize`` sums per stage and model and per 100 candidates (the paper's Table 9), pricing
each model from a table the user edits (settings ``prices``, US dollars per million tokens).
A model missing from the table is priced as **unknown**, never as zero.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sabre_desk.core.case.review import utc_now
from sabre_desk.engines.answers import Usage
from sabre_desk.engines.models import Provider, qualified_name
from sabre_desk.ground.storage import append_history, file_lock, read_history

LEDGER_NAME = "ledger.jsonl"
#: the pipeline's order: specifications, images, screening, evaluation, repair
STAGES = ("specs", "images", "screen", "predict", "repair")


class ModelPrice(BaseModel):
    """What a model costs, in US dollars per million tokens (the provider's price list)."""

    model_config = ConfigDict(extra="ignore")

    input: float = Field(ge=0)  # every prompt token, images included
    output: float = Field(ge=0)  # answer and thinking tokens
    #: the share of the price a Batch API request costs (Gemini's, OpenAI's and Anthropic's
    #: batch services are half price)
    batch_factor: float = Field(default=0.5, ge=0, le=1)


class Ledger:
    """Appends to one ledger file; safe from many threads and processes at once."""

    def __init__(self, path: Path):
        self.path = path
        self._lock = threading.Lock()

    @classmethod
    def of_project(cls, root: Path) -> Ledger:
        return cls(root / LEDGER_NAME)

    def add(
        self,
        stage: str,
        engine: str,
        model: str,
        usage: Usage | None,
        case_id: str | None = None,
        probe_id: str | None = None,
        batch: bool = False,
    ) -> None:
        line: dict[str, Any] = {"at": utc_now(), "stage": stage, "engine": engine, "model": model}
        if case_id is not None:
            line["case_id"] = case_id
        if probe_id is not None:
            line["probe_id"] = probe_id
        if batch:
            line["batch"] = True
        line["usage"] = usage.to_json() if usage is not None else None
        with self._lock, file_lock(self.path):
            append_history(self.path, line)


@dataclass
class StageCost:
    stage: str
    model: str  # as recorded: ``provider:model``, or a bare name for Gemini
    provider: str = "gemini"
    calls: int = 0
    input: int = 0
    output: int = 0
    image: int = 0
    thoughts: int = 0
    unreported: int = 0  # calls whose usage the service did not report
    cases: set[str] = field(default_factory=set)
    usd: float | None = 0.0  # None: the model has no price

    @property
    def per_100_candidates(self) -> float | None:
        if self.usd is None or not self.cases:
            return None
        return self.usd / len(self.cases) * 100

    def to_json(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "provider": self.provider,
            "model": self.model,
            "calls": self.calls,
            "input_tokens": self.input,
            "output_tokens": self.output,
            "image_tokens": self.image,
            "thinking_tokens": self.thoughts,
            "calls_without_usage": self.unreported,
            "cases": len(self.cases),
            "usd": None if self.usd is None else round(self.usd, 6),
            "usd_per_100_candidates": (
                None if self.per_100_candidates is None else round(self.per_100_candidates, 6)
            ),
            "price": "unknown" if self.usd is None else "known",
        }


@dataclass
class CostSummary:
    rows: list[StageCost]
    problems: list[str]

    @property
    def total_usd(self) -> float | None:
        """The sum, or None when any row's model has no price (unknown, not zero)."""
        if any(r.usd is None for r in self.rows):
            return None
        return sum(r.usd or 0.0 for r in self.rows)

    def to_json(self) -> dict[str, Any]:
        total = self.total_usd
        return {
            "rows": [r.to_json() for r in self.rows],
            "total_usd": None if total is None else round(total, 6),
            "total": "unknown" if total is None else "known",
            "problems": self.problems,
        }


def _price(prices: Mapping[str, ModelPrice], model: str, provider: str) -> ModelPrice | None:
    """The price of *model*, keyed in the settings as ``provider:model`` or (for Gemini,
    whose name may be bare) by the bare name."""
    bare = model.removeprefix(f"{provider}:").removeprefix("models/")
    found = prices.get(model) or prices.get(f"{provider}:{bare}")
    if found is None and provider == Provider.GEMINI:
        found = prices.get(bare)
    return found


def summarize(path: Path, prices: Mapping[str, ModelPrice]) -> CostSummary:
    """Sum the ledger at *path* per stage and model, priced from *prices*."""
    history = read_history(path)
    rows: dict[tuple[str, str], StageCost] = {}
    for line in history.entries:
        stage, model = str(line.get("stage", "?")), str(line.get("model", "?"))
        provider = qualified_name(str(line.get("engine") or "gemini"), model).partition(":")[0]
        row = rows.setdefault((stage, model), StageCost(stage, model, provider))
        row.calls += 1
        if isinstance(line.get("case_id"), str):
            row.cases.add(line["case_id"])
        usage = Usage.from_json(line.get("usage"))
        if usage is None or usage.input is None:
            row.unreported += 1
            row.usd = None  # a call of unknown size has an unknown cost
            continue
        row.input += usage.input or 0
        row.output += usage.output or 0
        row.image += usage.image or 0
        row.thoughts += usage.thoughts or 0
        price = _price(prices, model, provider)
        if price is None or row.usd is None:
            row.usd = None
            continue
        factor = price.batch_factor if line.get("batch") else 1.0
        out_tokens = (usage.output or 0) + (usage.thoughts or 0)
        row.usd += factor * (usage.input * price.input + out_tokens * price.output) / 1e6
    ordered = sorted(rows.values(), key=lambda r: (_stage_order(r.stage), r.model))
    return CostSummary(ordered, history.problems)


def _stage_order(stage: str) -> int:
    return STAGES.index(stage) if stage in STAGES else len(STAGES)
