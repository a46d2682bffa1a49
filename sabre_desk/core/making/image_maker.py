"""`generate images`: the images of every specification waiting for them (paper §3.1).

A paired case's Base is made from ``base_prompt`` (text to image), and its Edited image by
editing that Base with ``edit_prompt``; a single-image case's image from ``image_prompt``.
Each image is checked before it is kept: the aspect ratio asked for (an image of another
shape is a failure, not stretched), and an Edited image the size of its Base (resized when
only the resolution differs, refused when the shape does). Each is kept in the staging
folder as soon as it is made, so a killed or failed run, run again, pays only for what is
missing; when the last one is there the case is written into ``cases/`` whole, with what
made each image in its ``generation`` record, ready for screening.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from PIL import Image
from pydantic import ValidationError

from sabre_desk.core.case.image_settings import ImageSettings, resolve
from sabre_desk.core.case.manifest import read_manifest
from sabre_desk.core.case.primers import PrimerLibrary
from sabre_desk.core.case.project import CASES_DIR
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.case.spec import GenerationMode, SampleSpec
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.jobs.run_guard import RunGuard
from sabre_desk.core.making.importing import write_case
from sabre_desk.core.making.incoming import (
    Staged,
    mark_failed,
    save_made_image,
    staged_cases,
    staged_spec,
)
from sabre_desk.engines.gemini_image import ratio_of
from sabre_desk.engines.gemini_make import Made, MakeCancelledError, MakeFailedError, png_bytes
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.storage import atomic_write_json, read_json
from sabre_desk.ground.validation_messages import describe_validation_error
from sabre_desk.imaging.io import load_image

STAGE = "images"
RECORD_NAME = "images.json"
#: How far (relative) an image's width/height may be from the ratio asked for: models round
#: sizes to multiples of 8 or 16 (1:1 at 1K is 1024², 4:3 is 1184×864 …).
RATIO_TOLERANCE = 0.03


class ImageMaker(Protocol):
    """What makes one image (``GeminiImageMaker``)."""

    model: str

    def make(
        self,
        prompt: str,
        cancel: threading.Event,
        *,
        source: np.ndarray | None = None,
        aspect_ratio: str | None = None,
        image_size: str | None = None,
    ) -> Made: ...


@dataclass
class ImageRunReport:
    imaged: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (case, reason)
    calls: int = 0
    cancelled: bool = False
    #: cases left as they were (the run was stopped or cancelled before them)
    not_done: list[str] = field(default_factory=list)


class CaseFailedError(Exception):
    """This case cannot be finished as it is (the reason is kept for the user)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def shape_problem(pixels: np.ndarray, aspect_ratio: str, what: str) -> str | None:
    """Why an image is not of the shape asked for, or None."""
    h, w = pixels.shape[:2]
    if abs((w / h) / ratio_of(aspect_ratio) - 1) > RATIO_TOLERANCE:
        return f"{what} came back {w}×{h}, not {aspect_ratio} as asked"
    return None


def fit_to(pixels: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, str | None]:
    """The Edited image at the Base's size: resized when only the resolution differs
    (with a note), a CaseFailedError when the shape does."""
    bh, bw = base.shape[:2]
    h, w = pixels.shape[:2]
    if (h, w) == (bh, bw):
        return pixels, None
    if abs((w / h) / (bw / bh) - 1) > RATIO_TOLERANCE:
        raise CaseFailedError(f"the Edited image came back {w}×{h}, the Base is {bw}×{bh}")
    resized = np.asarray(Image.fromarray(pixels).resize((bw, bh), Image.Resampling.LANCZOS))
    return resized, f"the Edited image came back {w}×{h}; resized to the Base's {bw}×{bh}"


@dataclass
class CaseJob:
    """One staged case's run: what to ask for, and where what is made goes."""

    staged: Staged
    spec: SampleSpec
    raw: dict[str, Any]
    aspect_ratio: str
    image_size: str


def _records(folder: Path) -> dict[str, Any]:
    if not (folder / RECORD_NAME).is_file():
        return {}
    try:
        data, _ = read_json(folder / RECORD_NAME, "image record", ProjectError)
    except ProjectError:
        return {}
    return data if isinstance(data, dict) else {}


def case_jobs(
    root: Path, cases: list[str] | None, override: ImageSettings | None, report: ImageRunReport
) -> list[CaseJob]:
    """A job for each specification waiting for images (all, or *cases*), with the shape its
    images are asked in; those that cannot start are failed in *report*."""
    waiting = staged_cases(root)
    if cases is not None:
        for case_id in sorted(set(cases) - {s.case_id for s in waiting}):
            imaged = (root / CASES_DIR / case_id).is_dir()
            why = "already has its images" if imaged else "no specification waits for images"
            report.failed.append((case_id, why))
        waiting = [s for s in waiting if s.case_id in set(cases)]
    manifest = read_manifest(root)
    library = PrimerLibrary.for_project(root)
    jobs: list[CaseJob] = []
    lock = threading.Lock()
    for staged in waiting:
        try:
            raw = staged_spec(staged.folder)
            spec = SampleSpec.model_validate(raw)
        except ProjectError as exc:
            fail(staged, exc.reason, report, lock)
            continue
        except ValidationError as exc:
            why = f"the specification is not valid: {describe_validation_error(exc)}"
            fail(staged, why, report, lock)
            continue
        primer, _ = library.for_spec(spec, manifest.primer)
        ratio, size = resolve(override, primer.header.image if primer else None, manifest.images)
        jobs.append(CaseJob(staged, spec, raw, ratio, size))
    return jobs


def make_images(
    root: Path,
    maker: ImageMaker,
    cancel: threading.Event,
    *,
    cases: list[str] | None = None,
    override: ImageSettings | None = None,
    concurrency: int = 4,
    progress: Callable[[int, int, str], None] | None = None,
    guard: RunGuard | None = None,
) -> ImageRunReport:
    """Make the missing images of the waiting specifications (all, or *cases*); *guard* (the
    run's deadline and give-up rule) is told how each case's calls ended."""
    report = ImageRunReport()
    jobs = case_jobs(root, cases, override, report)
    ledger = Ledger.of_project(root)
    lock = threading.Lock()
    done = 0

    def run(job: CaseJob) -> None:
        nonlocal done
        case_id = job.staged.case_id
        try:
            if guard is not None and not guard.check():
                raise MakeCancelledError()
            _make_case(root, job, maker, ledger, cancel, report, lock)
        except MakeCancelledError:
            with lock:
                report.cancelled = True
                report.not_done.append(case_id)
            return
        except (CaseFailedError, MakeFailedError) as exc:
            fail(job.staged, exc.reason, report, lock)
            outcome = f"failed: {exc.reason}"
            if guard is not None and isinstance(exc, MakeFailedError):
                guard.outcome(exc.reason)
        except (ProjectError, StorageError) as exc:
            fail(job.staged, exc.message, report, lock)
            outcome = f"failed: {exc.message}"
        else:
            with lock:
                report.imaged.append(case_id)
            outcome = "imaged"
            if guard is not None:
                guard.succeeded()
        with lock:
            done += 1
            if progress:
                progress(done, len(jobs), f"{case_id}: {outcome}")

    with ThreadPoolExecutor(max(1, concurrency), thread_name_prefix="generate-images") as pool:
        for _ in pool.map(run, jobs):
            pass
    report.imaged.sort()
    return report


def fail(staged: Staged, reason: str, report: ImageRunReport, lock: threading.Lock) -> None:
    """Record why *staged* could not be finished, where `stats` and the next run see it."""
    mark_failed(staged.folder, STAGE, reason)
    with lock:
        report.failed.append((staged.case_id, reason))


def plan_of(spec: SampleSpec) -> list[tuple[str, str, str | None]]:
    """(role, prompt, the role it is edited from) for each image, in the order to make them."""
    if spec.generation_mode is GenerationMode.PAIRED_EDIT:
        return [("base", spec.base_prompt or "", None), ("edited", spec.edit_prompt or "", "base")]
    return [("image", spec.image_prompt or "", None)]


def next_image(job: CaseJob) -> tuple[str, str, str | None] | None:
    """The next image to make (its source made already), or None when all are made."""
    made = job.staged.made or {}
    for role, prompt, source_role in plan_of(job.spec):
        if role not in made:
            return role, prompt, source_role
    return None


def keep_image(
    job: CaseJob, role: str, prompt: str, source: np.ndarray | None, result: Made
) -> None:
    """Check one image made for *job* and keep it (with what made it) in its staging
    folder; CaseFailedError when it is not of the shape asked for."""
    folder = job.staged.folder
    pixels, note = result.pixels, None
    if source is None:
        problem = shape_problem(pixels, job.aspect_ratio, f"the {role.capitalize()} image")
        if problem:
            raise CaseFailedError(problem)
    else:
        pixels, note = fit_to(pixels, source)
    made = job.staged.made if job.staged.made is not None else {}
    made[role] = save_made_image(folder, role, png_bytes(pixels))
    job.staged.made = made
    h, w = pixels.shape[:2]
    records = _records(folder)
    records[role] = {
        "prompt": prompt,
        "model": result.model,
        "aspect_ratio": job.aspect_ratio,
        "image_size": job.image_size,
        "from": "base" if source is not None else None,
        "size": [w, h],
        "at": utc_now(),
        "notes": [*result.notes, *([note] if note else [])],
    }
    atomic_write_json(folder / RECORD_NAME, records, kind="image record")


def finish_case(root: Path, job: CaseJob) -> None:
    """Write the case, whole, into ``cases/`` and clear its staging folder."""
    folder, case_id = job.staged.folder, job.staged.case_id
    made = job.staged.made or {}
    spec_out = json.loads(json.dumps(job.raw))
    generation = spec_out.get("generation")
    generation = generation if isinstance(generation, dict) else {}
    spec_out["generation"] = {**generation, "images": _records(folder)}
    spec_out["provenance"] = {"generated": "generate images", "real_image": False, "at": utc_now()}
    images = {role: made[role] for role, _, _ in plan_of(job.spec)}
    try:
        write_case(root / CASES_DIR, case_id, spec_out, images)
    except OSError as exc:
        raise CaseFailedError(f"could not write the case ({exc.strerror or exc})") from None
    shutil.rmtree(folder, ignore_errors=True)


def _make_case(
    root: Path,
    job: CaseJob,
    maker: ImageMaker,
    ledger: Ledger,
    cancel: threading.Event,
    report: ImageRunReport,
    lock: threading.Lock,
) -> None:
    case_id = job.staged.case_id
    while (step := next_image(job)) is not None:
        role, prompt, source_role = step
        if cancel.is_set():
            raise MakeCancelledError()
        made = job.staged.made or {}
        source = load_image(made[source_role]) if source_role else None
        try:
            result = maker.make(
                prompt,
                cancel,
                source=source,
                aspect_ratio=job.aspect_ratio,
                image_size=job.image_size,
            )
        except MakeFailedError as exc:
            with lock:
                report.calls += 1
            ledger.add(STAGE, "gemini", maker.model, exc.usage, case_id=case_id)
            raise
        with lock:
            report.calls += 1
        ledger.add(STAGE, "gemini", maker.model, result.usage, case_id=case_id)
        keep_image(job, role, prompt, source, result)
    finish_case(root, job)
