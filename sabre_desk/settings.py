"""User settings: a small versioned JSON file in the user's config folder.

Qt-free so the CLI and tests can use it. ``SABRE_DESK_CONFIG_DIR`` relocates the folder,
which is how tests (and portable installs) keep away from the real user's settings.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from platformdirs import user_config_dir
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sabre_desk.core.jobs.ledger import ModelPrice
from sabre_desk.engines.models import parse_model
from sabre_desk.ground.errors import ProjectError, StorageError
from sabre_desk.ground.ids import id_problem, reviewer_from_login
from sabre_desk.ground.storage import atomic_write_json, read_json

SETTINGS_VERSION = 1
CONFIG_ENV = "SABRE_DESK_CONFIG_DIR"
MAX_RECENT = 10


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    version: int = SETTINGS_VERSION
    reviewer: str | None = None
    recent_projects: list[str] = Field(default_factory=list)
    pool_size: int = Field(default=4, ge=1, le=32)
    #: the preview cache on disk, per project (megabytes); the oldest previews go first
    preview_cache_mb: int = Field(default=2048, ge=16)
    #: decoded images kept in memory: an eighth of the free memory, within these (MB). The
    #: case on screen and its neighbours in full take about 130 MB at 2048² pixels; cases
    #: left behind come back from their stored previews in milliseconds, so more memory
    #: buys little (performance.md: peak memory against labelme)
    image_cache_min_mb: int = Field(default=128, ge=32)
    image_cache_max_mb: int = Field(default=160, ge=32)
    auto_advance: bool = False
    sync_views: bool = True
    #: the image model: repairs, and the images `generate images` makes
    gemini_model: str = "gemini-3.1-flash-image"
    #: the design model that writes Sample Specifications (`generate specs`)
    spec_model: str = "gemini-3.5-flash"
    #: the Filtering VLM (paper §3.4) and the model `predict` uses when none is named;
    #: models are named PROVIDER:MODEL (gemini:, openai:, anthropic:, local:), bare = Gemini
    screening_model: str = "gemini-3.5-flash"
    #: requests in flight at once when screening without --batch
    screening_concurrency: int = Field(default=8, ge=1, le=64)
    #: an OpenAI-compatible server on this machine (vLLM, llama.cpp, Ollama), for --local
    local_base_url: str = "http://127.0.0.1:8000/v1"
    #: an endpoint per provider ("openai", "anthropic", "gemini", "local"); the provider's
    #: own variable (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, GOOGLE_GEMINI_BASE_URL) wins
    provider_base_urls: dict[str, str] = Field(default_factory=dict)
    #: model id → price; a model missing here is reported as "unknown", never as free
    prices: dict[str, ModelPrice] = Field(default_factory=dict)
    #: main window geometry per screen ("<name> <w>x<h>", most recent last) and the dock
    #: layout (Qt's own blobs, base64), restored at start
    window_geometries: dict[str, str] = Field(default_factory=dict)
    window_state: str | None = None

    @field_validator("spec_model", "screening_model")
    @classmethod
    def _valid_model(cls, v: str) -> str:
        parse_model(v)  # a ModelNameError is a ValueError: the field's message
        return v

    @field_validator("reviewer")
    @classmethod
    def _valid_reviewer(cls, v: str | None) -> str | None:
        if v is not None:
            problem = id_problem(v, "reviewer name")
            if problem:
                raise ValueError(problem)
        return v

    def add_recent(self, project: Path) -> None:
        path = str(Path(project).absolute())
        self.recent_projects = [path, *[p for p in self.recent_projects if p != path]][:MAX_RECENT]


def config_dir() -> Path:
    override = os.environ.get(CONFIG_ENV)
    return Path(override) if override else Path(user_config_dir("sabre-desk", appauthor=False))


def settings_path() -> Path:
    return config_dir() / "settings.json"


def load_settings() -> tuple[Settings, str | None]:
    """The saved settings, or defaults plus a warning when the file is unreadable.

    A broken settings file must never stop a reviewer from working; it is reported and
    left in place (``save_settings`` refuses to overwrite it: it may hold the reviewer's
    name, which decides whose review file is written).
    """
    path = settings_path()
    if not os.path.lexists(path):
        return Settings(), None
    try:
        data, _ = read_json(path, "settings")
        return Settings.model_validate(data), None
    except ProjectError as exc:
        return Settings(), f"settings ignored: {exc.message}"
    except ValidationError as exc:
        return Settings(), f"settings ignored: {path}: {exc.errors()[0]['msg']}"


def save_settings(settings: Settings) -> None:
    """Write the settings, unless the file there could not be read: then it is left for
    the reviewer to fix or delete (StorageError says so), and nothing of it is lost."""
    path = settings_path()
    if os.path.lexists(path):
        _, warning = load_settings()
        if warning:
            raise StorageError(
                "not saved: the settings file could not be read and is left as it is; "
                "fix or delete it",
                path,
            )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the folder ({exc.strerror or exc})", path) from exc
    atomic_write_json(path, settings.model_dump(mode="json"))


#: The environment variable that names the reviewer when no ``--reviewer`` is given.
REVIEWER_ENV = "SABRE_DESK_REVIEWER"


def resolve_reviewer(cli_value: str | None, settings: Settings) -> str:
    """The one reviewer name every command and the window act as: --reviewer, else
    $SABRE_DESK_REVIEWER, else the settings file, else the OS login name (made id-safe).
    A name given on purpose (the flag or the variable) that is not a valid id is refused
    with a ValueError naming where it came from, never silently replaced by the login."""
    for given, where in ((cli_value, "--reviewer"), (os.environ.get(REVIEWER_ENV), REVIEWER_ENV)):
        if given:
            problem = id_problem(given, "reviewer name")
            if problem:
                raise ValueError(f"{where}: {problem}")
            return given
    if settings.reviewer:
        return settings.reviewer
    try:
        login = getpass.getuser()
    except (KeyError, OSError):
        login = "reviewer"
    return reviewer_from_login(login)


def write_crash_log(exc: BaseException) -> Path | None:
    """Write the traceback of an unexpected error beside the settings; returns its path.

    The terminal gets one line; the details a bug report needs are kept, not lost.
    """
    import traceback
    from datetime import UTC, datetime

    folder = config_dir() / "crash-logs"
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    path = folder / f"crash-{stamp}.txt"
    text = "".join(traceback.format_exception(exc))
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path
