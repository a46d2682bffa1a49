"""sabre-project.json: what makes a folder a sabre-desk project, and its settings."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from sabre_desk.core.case.gate import ScreeningSettings
from sabre_desk.core.case.image_settings import ImageSettings
from sabre_desk.ground import limits
from sabre_desk.ground.errors import NotAProjectError
from sabre_desk.ground.ids import id_problem
from sabre_desk.ground.reading import folder_problem
from sabre_desk.ground.storage import read_json
from sabre_desk.ground.validation_messages import describe_validation_error

MANIFEST_NAME = "sabre-project.json"
PROJECT_FORMAT = "sabre-desk-project"
#: 2: the team settings (``reviewers``, ``adjudicators``, ``blind``); a version 1 manifest
#: has none and reads as a project without them.
#: 3: ``primers`` records the version and hash of the primers the project's cases follow,
#: written when a project is made and by `sabre-desk upgrade` (core/upgrade.py), which also
#: moves cases made with an earlier version of a primer. Only those two write version 3:
#: another writer keeps the version it found (at least TEAM_VERSION, for the team settings).
PROJECT_VERSION = 3
TEAM_VERSION = 2
SHA256_HEX = r"^[0-9a-f]{64}$"


class PrimerRecord(BaseModel):
    """A primer the project's cases were made with: its version and the SHA-256 of its
    file. A later sabre-desk tells from it which cases an incompatible primer change
    concerns, instead of guessing from their content."""

    model_config = ConfigDict(extra="allow")

    version: int = Field(ge=1)
    sha256: str = Field(pattern=SHA256_HEX)


class Manifest(BaseModel):
    """sabre-project.json."""

    model_config = ConfigDict(extra="allow")

    format: Literal["sabre-desk-project"]
    version: int
    name: str
    created_at: str | None = None
    primer: str | None = None
    #: the team, for assignments and progress (assignments.json may name them too)
    reviewers: list[str] = Field(default_factory=list, max_length=limits.TEAM.most)
    #: who settles disagreements; their decision on a disputed case is an adjudication
    adjudicators: list[str] = Field(default_factory=list, max_length=limits.TEAM.most)
    #: others' decisions, notes and boxes stay hidden until one has decided the case;
    #: None (absent) is on: it matters as soon as a second reviewer writes a review
    blind: bool | None = None

    @field_validator("reviewers", "adjudicators")
    @classmethod
    def _names(cls, v: list[str]) -> list[str]:
        for name in v:
            problem = id_problem(name, "reviewer name")
            if problem:
                raise ValueError(problem)
        return v

    screening: ScreeningSettings = Field(default_factory=lambda: ScreeningSettings())
    #: the shape `generate images` asks for, unless the primer or the command says otherwise
    images: ImageSettings = Field(default_factory=ImageSettings)
    #: primer name → the version the project's cases follow (version 3; empty before)
    primers: dict[str, PrimerRecord] = Field(default_factory=dict)


def read_manifest(root: Path) -> Manifest:
    path = root / MANIFEST_NAME
    problem = folder_problem(root)
    if problem:
        raise NotAProjectError(problem, root)
    if not path.is_file():
        raise NotAProjectError(f"not a sabre-desk project (it has no {MANIFEST_NAME})", root)
    data, _ = read_json(path, "manifest", NotAProjectError)
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise NotAProjectError(describe_validation_error(exc), path) from exc
    if manifest.version > PROJECT_VERSION:
        raise NotAProjectError(
            f"project format version {manifest.version} is newer than this sabre-desk "
            f"understands ({PROJECT_VERSION}); update sabre-desk",
            path,
        )
    return manifest


def project_folder(path: Path) -> Path:
    """The project *path* names: a desktop opens a project by its sabre-project.json (the
    file type the app registers), a person by its folder."""
    return path.parent if path.name == MANIFEST_NAME and path.is_file() else path
