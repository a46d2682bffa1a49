"""`generate images --batch`: the images made through the Gemini Batch API (half the price,
within a day), resumable across crashes and restarts.

A paired case needs two rounds, since its Edited image is made from its Base: each round
sends, as one job, the next missing image of every waiting case, waits for the job and
keeps what came back exactly as a direct call's image is kept (its shape checked, saved in
the staging folder, the case written when complete). A job's state is saved in
``generation/batch-jobs/<job>.json`` before the first poll, so the next run (after Ctrl+C,
a crash, a closed laptop) collects it rather than paying for it again.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sabre_desk.core.case.image_settings import ImageSettings
from sabre_desk.core.case.review import utc_now
from sabre_desk.core.jobs.ledger import Ledger
from sabre_desk.core.making.image_maker import (
    STAGE,
    CaseFailedError,
    CaseJob,
    ImageRunReport,
    case_jobs,
    fail,
    finish_case,
    keep_image,
    next_image,
)
from sabre_desk.core.making.incoming import staging_dir
from sabre_desk.engines.gemini_batch import GeminiBatchClient, RawItem, RawState
from sabre_desk.engines.gemini_call import CallCancelledError, CallFailedError, api_key, usage_of
from sabre_desk.engines.gemini_image import NoImageError, reply_image, reply_text
from sabre_desk.engines.gemini_make import Made
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.storage import atomic_write_json, read_json
from sabre_desk.imaging.io import load_image

JOBS_DIR = "batch-jobs"
Notify = Callable[[str], None]


def image_request(
    prompt: str, source_png: bytes | None, aspect_ratio: str, image_size: str
) -> dict[str, Any]:
    """One image request in the REST shape a batch line carries."""
    parts: list[dict[str, Any]] = []
    if source_png is not None:
        data = base64.b64encode(source_png).decode("ascii")
        parts.append({"inlineData": {"mimeType": "image/png", "data": data}})
    parts.append({"text": prompt})
    return {
        "contents": [{"role": "user", "parts": parts}],
        "generationConfig": {
            "responseModalities": ["IMAGE", "TEXT"],
            "imageConfig": {"aspectRatio": aspect_ratio, "imageSize": image_size},
        },
    }


def _jobs(root: Path) -> list[tuple[Path, dict[str, Any]]]:
    folder = staging_dir(root) / JOBS_DIR
    found = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data, _ = read_json(path, "image record", ProjectError)
        except ProjectError:
            continue
        if isinstance(data, dict) and not data.get("collected_at"):
            found.append((path, data))
    return found


def batch_images(
    root: Path,
    client: GeminiBatchClient,
    cancel: threading.Event,
    notify: Notify,
    *,
    cases: list[str] | None = None,
    override: ImageSettings | None = None,
    interval_s: float = 30.0,
) -> ImageRunReport:
    """Collect pending jobs, then send a round for what is missing, until nothing is."""
    report = ImageRunReport()
    ledger = Ledger.of_project(root)
    while not cancel.is_set():
        for path, data in _jobs(root):
            state = _wait(client, path, data, notify, cancel, interval_s, report)
            if state is None:
                report.cancelled = cancel.is_set()
                return report
            _collect(root, path, data, state, override, ledger, report)
        if not _submit(root, client, cases, override, cancel, report):
            break
    report.cancelled = report.cancelled or cancel.is_set()
    report.imaged.sort()
    return report


def _submit(
    root: Path,
    client: GeminiBatchClient,
    cases: list[str] | None,
    override: ImageSettings | None,
    cancel: threading.Event,
    report: ImageRunReport,
) -> bool:
    """Send the next missing image of every waiting case as one job (False: none left)."""
    items: list[RawItem] = []
    owners: dict[str, dict[str, str]] = {}
    failed_now = {case_id for case_id, _ in report.failed}  # tried again by the next run
    for job in case_jobs(root, cases, override, ImageRunReport()):
        if job.staged.case_id in failed_now:
            continue
        step = next_image(job)
        if step is None:
            continue
        role, prompt, source_role = step
        source = (job.staged.made or {}).get(source_role) if source_role else None
        png = source.read_bytes() if source is not None else None
        key = f"{job.staged.case_id}:{role}"
        items.append(RawItem(key, image_request(prompt, png, job.aspect_ratio, job.image_size)))
        owners[key] = {"case_id": job.staged.case_id, "role": role, "prompt": prompt}
    if not items:
        return False
    try:
        name, mode = client.submit_raw(items, f"sabre-desk images {utc_now()}", cancel)
    except (CallFailedError, CallCancelledError) as exc:
        why = f"the batch job was not created: {getattr(exc, 'reason', 'cancelled')}"
        report.failed += [(o["case_id"], why) for o in owners.values()]
        return False
    folder = staging_dir(root) / JOBS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    data = {
        "name": name,
        "model": client.model,
        "mode": mode,
        "created_at": utc_now(),
        "state": "JOB_STATE_PENDING",
        "requests": owners,
    }
    atomic_write_json(folder / f"{name.rsplit('/', 1)[-1]}.json", data)
    return True


def _wait(
    client: GeminiBatchClient,
    path: Path,
    data: dict[str, Any],
    notify: Notify,
    cancel: threading.Event,
    interval_s: float,
    report: ImageRunReport,
) -> RawState | None:
    while not cancel.is_set():
        try:
            state = client.poll_raw(str(data["name"]), cancel)
        except CallCancelledError:
            return None
        except CallFailedError as exc:
            notify(f"batch {data['name']}: cannot ask for its state ({exc.reason}); kept")
            return None
        if state.state != data.get("state"):
            data["state"] = state.state
            atomic_write_json(path, data)
        notify(f"batch {data['name']}: {state.words} ({len(data['requests'])} images)")
        if state.done:
            return state
        if cancel.wait(interval_s):
            break
    return None


def _collect(
    root: Path,
    path: Path,
    data: dict[str, Any],
    state: RawState,
    override: ImageSettings | None,
    ledger: Ledger,
    report: ImageRunReport,
) -> None:
    jobs = {j.staged.case_id: j for j in case_jobs(root, None, override, ImageRunReport())}
    lock = threading.Lock()
    model = str(data["model"])
    key_text = api_key() or ""
    for key, owner in data["requests"].items():
        job: CaseJob | None = jobs.get(owner["case_id"])
        if job is None:
            continue  # finished or removed since
        response, error = state.replies.get(key, (None, None))
        if response is not None:
            ledger.add(STAGE, "gemini", model, usage_of(response), owner["case_id"], batch=True)
        try:
            if response is None:
                missing = f"the batch job ended without this image: {state.words}"
                raise CaseFailedError(error or missing)
            try:
                pixels = reply_image(response, key_text)
            except NoImageError as exc:
                raise CaseFailedError(exc.reason) from None
            role = owner["role"]
            source_path = (job.staged.made or {}).get("base") if role == "edited" else None
            source = load_image(source_path) if source_path is not None else None
            made = Made(pixels, usage_of(response), model, reply_text(response, key_text))
            keep_image(job, role, owner["prompt"], source, made)
            if next_image(job) is None:
                finish_case(root, job)
                report.imaged.append(job.staged.case_id)
        except CaseFailedError as exc:
            fail(job.staged, exc.reason, report, lock)
        except (ProjectError, StorageError) as exc:
            fail(job.staged, exc.message, report, lock)
    data["collected_at"] = utc_now()
    atomic_write_json(path, data)
