"""The request cache: an identical question is never sent to a model twice.

A request is identified by the SHA-256 of its canonical description: the engine kind, the
model, the prompt set's version, the whole prompt text as sent (question and options in the
template), the SHA-256 of the image bytes and the configuration (temperature, output limit,
thinking). Only answers are kept (a failed call is asked again next time). Each entry is a
small JSON file ``cache/requests/<first two hex digits>/<key>.json`` in the project, written
atomically as soon as the answer arrives, so a killed run loses nothing and a rerun, a
re-screen after an answer edit or a revert costs no call. ``--no-cache`` bypasses it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from sabre_desk.core.case.review import utc_now
from sabre_desk.core.screening.answer_limit import bounded
from sabre_desk.engines.answers import Answer, AnswerConfig, Usage
from sabre_desk.ground.errors import StorageError
from sabre_desk.ground.reading import LIMITS
from sabre_desk.ground.storage import atomic_write_json, remove_orphan_temps

CACHE_DIR = "cache"
REQUESTS_DIR = "requests"
MAX_ENTRY = LIMITS["request cache entry"]


def request_key(
    engine: str,
    model: str,
    prompt_version: str,
    prompt: str,
    image_sha256: str,
    config: AnswerConfig,
) -> str:
    description = {
        "engine": engine,
        "model": model,
        "prompt_version": prompt_version,
        "prompt": prompt,
        "image_sha256": image_sha256,
        "config": config.to_json(),
    }
    canonical = json.dumps(description, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class RequestCache:
    def __init__(self, root: Path):
        self.folder = root / CACHE_DIR / REQUESTS_DIR

    @classmethod
    def of_project(cls, project_root: Path) -> RequestCache:
        return cls(project_root)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Answer | None:
        """The cached answer for *key*, or None (absent or unreadable: asked again)."""
        path = self._path(key)
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_ENTRY + 1)
            data: Any = json.loads(raw) if len(raw) <= MAX_ENTRY else None
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("key") != key:
            return None
        text = data.get("text")
        if not isinstance(text, str):
            return None
        return Answer(text, Usage.from_json(data.get("usage")), None, data.get("finish"))

    def put(self, key: str, answer: Answer, model: str) -> None:
        """Keep an answer (failures are not kept). A cache that cannot be written is not an
        error of the run: the answer is still recorded in screening.json. An answer over the
        length any answer may have is a failure too (``answer_limit``), never kept."""
        if answer.text is None or bounded(answer).failed:
            return
        path = self._path(key)
        entry = {
            "key": key,
            "model": model,
            "text": answer.text,
            "finish": answer.finish,
            "usage": answer.usage.to_json() if answer.usage else None,
            "at": utc_now(),
        }
        try:
            os.makedirs(path.parent, exist_ok=True)  # noqa: PTH103
            # A killed writer's temp file of this entry goes; a concurrent writer of the
            # same key that loses its temp here writes nothing, and the entry is the same.
            remove_orphan_temps(path.parent, path.name)
            atomic_write_json(path, entry, kind="request cache entry")
        except (OSError, StorageError):
            pass
