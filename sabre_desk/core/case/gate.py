"""The filter gate (SABRE paper §3.4): which cases the Filtering VLM solved, which stay for
people to review, and which screening results no longer describe the case.

A case's status comes from the latest screening run, judged against the case as it is now:

* **stale** when an image the run saw is no longer the image on disk (an accepted repair, a
  revert, a regenerated file: its SHA-256 differs), or a probe's question was edited after
  the run asked it, or the run did not ask a probe the case has. A stale result is never
  shown as current; the case is screened again (``screen --stale``).
* otherwise the gate's rule decides, per probe correct / wrong / failed (a call that gave no
  answer is *failed*, never wrong). A reference answer edited since the run is re-graded from
  the parsed answer the run recorded, with the same rule ``score`` uses (no call needed).

The rule is a project setting (``sabre-project.json``, ``"screening": {"gate": {...}}``):
``per_probe`` for cases scored question by question, ``paired`` for Context/Texture cases
scored as a whole (see docs/PROJECT_FORMAT.md). Defaults: a case is kept when at least one
probe is answered wrongly (``any_wrong``), which for the paired subsets is exactly "not All4".

Everything here works on plain JSON data so that the case index can use it on the raw
files it reads, without building models (it must stay fast at 100,000 cases).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from sabre_desk.core.case.scoring import CASE_SCORED, grade, parse


class ScreenStatus(StrEnum):
    SOLVED = "solved"  # the filter answered correctly: out of the review queue
    KEPT = "kept"  # the filter failed on it: people review it
    NOT_SCREENED = "not_screened"
    STALE = "stale"  # the latest run was about another image or question
    FAILED = "failed"  # calls failed and the answered probes do not decide the gate

    @property
    def label(self) -> str:
        return STATUS_LABELS[self]


STATUS_LABELS = {
    ScreenStatus.SOLVED: "Solved by the filter",
    ScreenStatus.KEPT: "Kept by the filter",
    ScreenStatus.NOT_SCREENED: "Not screened",
    ScreenStatus.STALE: "Screening stale",
    ScreenStatus.FAILED: "Screening failed",
}

PerProbeRule = Literal["any_wrong", "all_wrong"]
PairedRule = Literal["all4", "edit2", "any_wrong", "all_wrong"]


class GateRule(BaseModel):
    """``"screening": {"gate": {"per_probe": "any_wrong", "paired": "all4"}}``.

    per_probe: ``any_wrong`` keeps a case when at least one probe is wrong; ``all_wrong``
    only when every probe is. paired (Context/Texture, four probes): ``all4`` keeps it unless
    all four are right; ``edit2`` unless both Edited-image probes are right; or either
    per-probe rule."""

    model_config = ConfigDict(extra="ignore")

    per_probe: PerProbeRule = "any_wrong"
    paired: PairedRule = "all4"


class ScreeningSettings(BaseModel):
    """``"screening"`` in sabre-project.json: the filter gate's rule."""

    model_config = ConfigDict(extra="allow")

    gate: GateRule = Field(default_factory=GateRule)


@dataclass(frozen=True)
class CurrentProbe:
    """A probe as the case has it now (the reviewer's question edits applied)."""

    probe_id: str
    image_role: str
    prompt: str
    answer: str
    eval_type: str


@dataclass(frozen=True)
class ProbeView:
    """One probe's filter result as the probe table shows it."""

    probe_id: str
    response: str | None = None
    parsed: str | None = None
    correct: bool | None = None  # None: failed, missing or stale
    failed: str | None = None  # why the call gave no answer
    stale: str | None = None  # why the result is not about the probe as it is now
    regraded: bool = False  # the reference answer changed since the run; graded again


@dataclass(frozen=True)
class Verdict:
    status: ScreenStatus
    probes: dict[str, ProbeView] = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)  # reasons, one per stale probe or image
    #: what the gate says on the run's own terms (staleness aside), for "was solved" hints
    outcome: ScreenStatus | None = None


def probe_verdict(
    result: Mapping[str, Any] | None, probe: CurrentProbe, image_stale: str | None
) -> ProbeView:
    """One probe of a run, judged against the probe as it is now."""
    if not isinstance(result, Mapping):
        return ProbeView(probe.probe_id, stale="the run did not ask this probe")
    response = result.get("response")
    response = response if isinstance(response, str) else None
    failed = result.get("failed")
    asked = result.get("question")
    stale = image_stale
    if stale is None and isinstance(asked, str) and asked.strip() != probe.prompt.strip():
        stale = "the question was edited after the run asked it"
    if failed:
        return ProbeView(probe.probe_id, response, failed=str(failed), stale=stale)
    parsed = result.get("parsed")
    if not isinstance(parsed, str) and response is not None:
        parsed = parse(probe.eval_type, response)  # an older run: parse it now
    elif not isinstance(parsed, str):
        parsed = None
    recorded = result.get("correct")
    graded_against = result.get("answer")
    correct = grade(probe.eval_type, parsed, probe.answer)
    regraded = isinstance(graded_against, str) and graded_against != probe.answer
    if not isinstance(graded_against, str) and isinstance(recorded, bool) and parsed is None:
        correct = recorded  # an older run whose response this parser cannot read
    return ProbeView(probe.probe_id, response, parsed, correct, None, stale, regraded)


def judge(
    results: Mapping[str, Any] | None,
    probes: list[CurrentProbe],
    subset: str | None,
    rule: GateRule,
    image_stale: Mapping[str, str | None],
) -> Verdict:
    """The case's status from a run's ``results`` (None: never screened)."""
    if results is None:
        return Verdict(ScreenStatus.NOT_SCREENED)
    views = {
        p.probe_id: probe_verdict(results.get(p.probe_id), p, image_stale.get(p.image_role))
        for p in probes
    }
    outcome = _gate(views, probes, subset, rule)
    stale = [f"{pid}: {v.stale}" for pid, v in views.items() if v.stale]
    if stale:
        return Verdict(ScreenStatus.STALE, views, stale, outcome)
    return Verdict(outcome, views, [], outcome)


def _gate(
    views: dict[str, ProbeView], probes: list[CurrentProbe], subset: str | None, rule: GateRule
) -> ScreenStatus:
    paired = subset in CASE_SCORED
    how: str = rule.paired if paired else rule.per_probe
    considered = [views[p.probe_id] for p in probes]
    if how == "edit2":
        considered = [views[p.probe_id] for p in probes if p.image_role == "edited"]
    if how in ("all4", "edit2"):
        how = "any_wrong"
    answered = [v.correct for v in considered if v.correct is not None]
    unknown = len(answered) < len(considered)
    if how == "all_wrong":
        if any(answered):
            return ScreenStatus.SOLVED
        return ScreenStatus.FAILED if unknown else ScreenStatus.KEPT
    if not all(answered):
        return ScreenStatus.KEPT
    return ScreenStatus.FAILED if unknown or not considered else ScreenStatus.SOLVED


def current_probes(
    questions: list[Mapping[str, Any]], edits: Mapping[str, Any] | None
) -> list[CurrentProbe]:
    """The probes from a spec's ``questions`` and a review's ``question_edits`` (plain JSON,
    as the index reads them; raises ValueError on a malformed question)."""
    out = []
    for q in questions:
        probe_id = q["probe_id"]
        edit = (edits or {}).get(probe_id) or {}
        prompt = edit.get("prompt") if isinstance(edit.get("prompt"), str) else q["prompt"]
        answer = edit.get("answer") if isinstance(edit.get("answer"), str) else q["answer"]
        role, eval_type = q["image_role"], q["eval_type"]
        values = (probe_id, role, prompt, answer, eval_type)
        if not all(isinstance(v, str) for v in values):
            raise ValueError(f"question {probe_id!r} is malformed")
        out.append(CurrentProbe(str(probe_id), str(role), str(prompt), str(answer), str(eval_type)))
    return out
