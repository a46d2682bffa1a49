"""screening.json: what the filtering VLM answered, run by run (append-only).

A run records the model, the time, the prompt set's version, the configuration, the SHA-256
(and size and modification time) of every image it saw, and per probe: the question as
asked, the reference answer it was graded against, the raw response, the parsed answer,
whether it was correct, or why the call failed, and the tokens it used. Runs written by
older tools (only ``response`` and ``correct``) are read as they are.

Beside it, ``screening.brief.json`` holds the latest run in brief (per probe: question,
parsed answer, correct, failed; the images seen) and the size and modification time of the
``screening.json`` it was taken from: the case index reads only it, so a project of 100,000
screened cases opens without parsing every run of every case. A brief that does not match
its ``screening.json`` (another tool appended a run) is ignored and the run read instead.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from sabre_desk.core.case.gate import (
    CurrentProbe,
    GateRule,
    ScreenStatus,
    Verdict,
    current_probes,
    judge,
)
from sabre_desk.core.case.review import Review, repaired_since
from sabre_desk.core.case.spec import SampleSpec
from sabre_desk.ground import limits
from sabre_desk.ground.errors import ScreeningError
from sabre_desk.ground.hashing import file_sha256
from sabre_desk.ground.reading import LIMITS
from sabre_desk.ground.storage import (
    atomic_write_bytes,
    atomic_write_json,
    check_size,
    dumps_json,
    file_lock,
    read_json,
    remove_orphan_temps,
)
from sabre_desk.ground.validation_messages import describe_validation_error

SCREENING_NAME = "screening.json"
BRIEF_NAME = "screening.brief.json"
BRIEF_LIMIT = LIMITS["screening brief"]


class ImageSeen(BaseModel):
    """An image a run saw: its file in the case folder and its content hash."""

    model_config = ConfigDict(extra="allow")

    file: str
    sha256: str
    size: int | None = None
    mtime_ns: int | None = None


class ProbeResult(BaseModel):
    model_config = ConfigDict(extra="allow")

    #: "" for a call that failed (older readers expect a string here)
    response: Annotated[str, StringConstraints(max_length=limits.MODEL_ANSWER.most)] = ""
    correct: bool | None = None
    parsed: str | None = None
    question: str | None = None
    answer: str | None = None
    eval_type: str | None = None
    failed: str | None = None
    usage: dict[str, int] | None = None
    cached: bool | None = None


class ScreeningRun(BaseModel):
    model_config = ConfigDict(extra="allow")

    model: str
    at: str
    results: dict[str, ProbeResult] = Field(default_factory=dict)
    note: str | None = None
    engine: str | None = None
    prompt_version: str | None = None
    config: dict[str, Any] | None = None
    images: dict[str, ImageSeen] = Field(default_factory=dict)
    #: the gate's outcome when the run was written (the live status is recomputed)
    gate: str | None = None
    reviewer: str | None = None
    #: the Batch API job that answered it (screen --batch)
    batch: str | None = None


class ScreeningRecord(BaseModel):
    """All screening runs of one case; the last one is what the probe table shows."""

    model_config = ConfigDict(extra="allow")

    runs: list[ScreeningRun] = Field(default_factory=list)

    @property
    def latest(self) -> ScreeningRun | None:
        return self.runs[-1] if self.runs else None


def read_record(folder: Path, case_id: str | None = None) -> ScreeningRecord | None:
    """The case's screening.json (None when it has none); ScreeningError when unreadable."""
    path = folder / SCREENING_NAME
    if not os.path.lexists(path):
        return None
    data, _ = read_json(path, "screening", ScreeningError)
    try:
        return ScreeningRecord.model_validate(data)
    except ValidationError as exc:
        raise ScreeningError(describe_validation_error(exc), path, case_id) from exc


def append_run(folder: Path, run: ScreeningRun, case_id: str | None = None) -> ScreeningRecord:
    """Append *run* to the case's screening.json atomically (earlier runs untouched) and
    refresh the brief. Holds the file's lock, so concurrent screeners never lose a run.
    A screening.json that cannot be read is left as it is (ScreeningError): the run's
    answers are in the request cache, so screening again once it is fixed costs nothing."""
    path = folder / SCREENING_NAME
    with file_lock(path):
        remove_orphan_temps(folder, SCREENING_NAME)
        remove_orphan_temps(folder, BRIEF_NAME)
        try:
            record = read_record(folder, case_id) or ScreeningRecord()
        except ScreeningError as exc:
            raise ScreeningError(
                f"{exc.reason}; it is left as it is and the run was not added "
                "(fix or move the file, then screen again: answers come from the cache)",
                path,
                case_id,
            ) from exc
        record.runs.append(run)
        atomic_write_bytes(path, bounded_payload(record, path))
        write_brief(folder, run)
    return record


#: What a run whose raw answers were dropped to keep screening.json bounded says about it.
COMPACTED_NOTE = "raw answers dropped to keep screening.json under its size limit"


def bounded_payload(record: ScreeningRecord, path: Path) -> bytes:
    """*record* as the bytes of screening.json, within the limit its reader applies.

    Runs only ever get appended, so a case screened again and again would one day have a
    file too large to read, and every run in it would be lost to the reader. When the
    record is over the limit, the earlier runs lose their raw answers first (each keeps its
    verdicts: parsed answer, correct, failed), then the oldest runs go, half of what is
    left at a time; the latest run is always kept whole. ``check_size`` refuses what is
    still over (a single run over the limit)."""
    limit = LIMITS["screening"]
    data = record.model_dump(mode="json", exclude_none=True)
    try:  # fields are assigned without validation on the way here: checked as read
        ScreeningRecord.model_validate(data)
    except ValidationError as exc:
        reason = describe_validation_error(exc)
        raise ScreeningError(
            f"not written: {reason}; the previous version is unchanged", path
        ) from exc
    payload = dumps_json(data)
    if len(payload) > limit:
        for older in record.runs[:-1]:
            if any(r.response for r in older.results.values()):
                for result in older.results.values():
                    result.response = ""
                older.note = older.note or COMPACTED_NOTE
        payload = dumps_json(record.model_dump(mode="json", exclude_none=True))
    while len(payload) > limit and len(record.runs) > 1:
        del record.runs[: max(1, (len(record.runs) - 1) // 2)]
        payload = dumps_json(record.model_dump(mode="json", exclude_none=True))
    check_size(path, payload, "screening")
    return payload


# --- the brief (what the case index reads) ---------------------------------------------


def brief_of(run: ScreeningRun | Mapping[str, Any]) -> dict[str, Any]:
    data = run.model_dump(mode="json") if isinstance(run, ScreeningRun) else run
    results = data.get("results") or {}
    keep = ("question", "answer", "parsed", "correct", "failed", "response")
    probes = {
        pid: {k: r[k] for k in keep if isinstance(r, dict) and r.get(k) is not None}
        for pid, r in results.items()
    }
    for probe in probes.values():  # the response only where the parse must be redone
        if "parsed" in probe or "failed" in probe:
            probe.pop("response", None)
    return {
        "model": data.get("model"),
        "at": data.get("at"),
        "images": data.get("images") or {},
        "results": probes,
    }


def _stat_key(path: Path) -> dict[str, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def write_brief(folder: Path, run: ScreeningRun | Mapping[str, Any]) -> None:
    brief = {"screening": _stat_key(folder / SCREENING_NAME), "run": brief_of(run)}
    atomic_write_json(folder / BRIEF_NAME, brief, kind="screening brief")


# --- the status of a case ----------------------------------------------------------------


@dataclass(frozen=True)
class CaseScreening:
    """The screening of a loaded case, for the window's Screening panel and probe table."""

    verdict: Verdict
    run: ScreeningRun | None
    record: ScreeningRecord | None

    @property
    def status(self) -> ScreenStatus:
        return self.verdict.status


def image_change(folder: str | Path, role: str, seen: Mapping[str, Any] | None) -> str | None:
    """Why the image a run saw as *role* is not the one on disk now, or None when it is.

    ``stat`` first (size and modification time as the run recorded them); only when they
    differ is the file hashed, so a file that was merely copied or touched is not stale."""
    if not isinstance(seen, Mapping) or not isinstance(seen.get("file"), str):
        return None  # an older run that recorded no image: nothing to compare
    name = seen["file"]
    if "/" in name or "\\" in name or name.startswith("."):
        return f"the run names an odd image file {name!r}"
    path = os.path.join(folder, name)  # noqa: PTH118 - the index's hot path
    try:
        st = os.stat(path)  # noqa: PTH116
    except OSError:
        return f"the {role} image the run saw ({name}) is gone (replaced by a repair?)"
    if st.st_size == seen.get("size") and st.st_mtime_ns == seen.get("mtime_ns"):
        return None
    try:
        digest = file_sha256(Path(path))
    except OSError:
        return f"the {role} image cannot be read"
    if digest == seen.get("sha256"):
        return None
    return f"computed on the previous {role} image (it changed since the run)"


def case_verdict(
    folder: str | Path,
    run: Mapping[str, Any] | None,
    probes: list[CurrentProbe],
    subset: str | None,
    rule: GateRule,
    repaired_since: Mapping[str, str | None] | None = None,
) -> Verdict:
    """The status from a run's JSON (a run or its brief). *repaired_since*: for runs that
    recorded no image hashes, the role → reason of an accepted repair after the run."""
    if run is None:
        return judge(None, probes, subset, rule, {})
    images = run.get("images") or {}
    roles = {p.image_role for p in probes}
    stale = {role: image_change(folder, role, images.get(role)) for role in roles}
    for role, reason in (repaired_since or {}).items():
        if stale.get(role) is None and not images.get(role) and reason:
            stale[role] = reason
    results = run.get("results")
    return judge(results if isinstance(results, Mapping) else {}, probes, subset, rule, stale)


def quick_status(
    folder: str,
    spec: Mapping[str, Any],
    review: Mapping[str, Any] | None,
    rule: GateRule,
    read_small_json: Callable[[str, int], Any],
) -> ScreenStatus | None:
    """The case index's status: from the brief (or, when it does not match, the run), the
    spec and this reviewer's review as plain JSON; None when it cannot be told cheaply.
    *read_small_json* is the index's own reader (regular files only, bounded). Opening a
    project writes nothing: an image whose time a copy changed is hashed (once per process,
    ``ground.hashing`` remembers it) until the next run records its new time.

    Raises ScreeningError when screening.json had to be read and cannot be: the case is
    then invalid, in the very words the full check (``validity``) gives."""
    try:  # the hot path of indexing: plain os calls, no Path objects for unscreened cases
        st = os.stat(os.path.join(folder, SCREENING_NAME))  # noqa: PTH116, PTH118
    except OSError:
        return ScreenStatus.NOT_SCREENED
    current = {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
    try:
        brief = read_small_json(os.path.join(folder, BRIEF_NAME), BRIEF_LIMIT)  # noqa: PTH118
    except (OSError, ValueError):
        brief = None
    run = _brief_run(brief, current)
    if run is None:
        record = read_record(Path(folder))  # ScreeningError: for the index to report
        run = record.latest.model_dump(mode="json") if record and record.latest else None
        if run is None:
            return ScreenStatus.NOT_SCREENED
    try:
        probes = current_probes(spec.get("questions") or [], (review or {}).get("question_edits"))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    repaired = _own_repairs_since(review, str(run.get("at") or ""))
    subset = spec.get("pressure_test_type")
    subset = subset if isinstance(subset, str) else None
    return case_verdict(folder, run, probes, subset, rule, repaired).status


def _brief_run(brief: Any, screening: dict[str, int]) -> dict[str, Any] | None:
    if not isinstance(brief, dict) or brief.get("screening") != screening:
        return None
    run = brief.get("run")
    return run if isinstance(run, dict) else None


def _own_repairs_since(review: Mapping[str, Any] | None, at: str) -> dict[str, str | None]:
    """Roles whose image an accepted repair in this review replaced after *at* (for runs
    that recorded no image hashes)."""
    out: dict[str, str | None] = {}
    repairs = (review or {}).get("repairs")
    for r in repairs if isinstance(repairs, list) else []:
        if not isinstance(r, dict):
            continue
        decided, role = r.get("decided_at"), r.get("image_role")
        if r.get("status") == "accepted" and isinstance(decided, str) and decided > at:
            out[str(role)] = f"computed before repair {r.get('id')} replaced the {role} image"
    return out


def case_screening(
    folder: Path,
    spec: SampleSpec,
    review: Review,
    other_reviews: Iterable[Review],
    record: ScreeningRecord | None,
    rule: GateRule,
) -> CaseScreening:
    """The screening status of a loaded case (its folder, spec, this reviewer's review, the
    others' reviews and its screening record), with every probe's result as the probe table
    shows it (stale results say why)."""
    run = record.latest if record is not None else None
    edits = {
        pid: e.model_dump(mode="json", exclude_none=True)
        for pid, e in review.question_edits.items()
    }
    probes = current_probes([q.model_dump(mode="json") for q in spec.questions], edits)
    repaired: dict[str, str | None] = {}
    if run is not None:
        reviews = [review, *other_reviews]
        for role in spec.image_roles:
            repair = repaired_since(reviews, role, run.at)
            if repair is not None:
                repaired[role.value] = (
                    f"computed before repair {repair.id} replaced the {role.value} image"
                )
    data = run.model_dump(mode="json") if run is not None else None
    verdict = case_verdict(folder, data, probes, spec.pressure_test_type, rule, repaired)
    return CaseScreening(verdict, run, record)
