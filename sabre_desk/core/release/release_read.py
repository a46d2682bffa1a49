"""How anything reads a release: the one definition of a file the release holds and of a
benchmark row, shared by ``verify`` and every reader (``predict``, ``evaluate``, the window),
so a release that ``verify`` passes is one every reader accepts and a reader opens nothing
``verify`` would refuse.

A release is untrusted input (a download, a colleague's folder). A name in it must be a plain
path inside it (``release.unsafe_name``), and no step on the way to the file may be a link:
a release's ``images/`` replaced by a link to another folder would otherwise send that
folder's files to a model. Links are checked with ``lstat`` at every level below the release
folder (the folder itself may be reached through a link the user chose), and the file itself
is then opened without following a link.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PureWindowsPath
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictStr, ValidationError

from sabre_desk.ground.errors import ProjectError
from sabre_desk.ground.reading import describe_kind

LINK = "is a symbolic link; a release holds no links and they are not followed"


def unsafe_name(name: str) -> str | None:
    """Why a manifest may not name *name*, or None: only plain paths inside the release."""
    if not name:
        return "an empty name"
    if "\\" in name:
        return "a name with a backslash"
    if "\x00" in name:
        return "a name with a NUL byte"
    if name.startswith("/") or PureWindowsPath(name).drive:
        return "an absolute path"
    parts = name.split("/")
    if ".." in parts:
        return "a path through '..' (it leads outside the release)"
    if "" in parts or "." in parts:
        return "a path with an empty or '.' component"
    return None


def path_problem(root: Path, name: str) -> str | None:
    """Why the release at *root* may not be read at *name*, or None. A file that is not
    there is no problem here (its reader reports it missing); a link or a special file at
    any level on the way is, named by where it sits."""
    why = unsafe_name(name)
    if why is not None:
        return f"{name!r} is {why}"
    parts = name.split("/")
    for depth in range(1, len(parts) + 1):
        step = "/".join(parts[:depth])
        try:
            mode = os.lstat(root.joinpath(*parts[:depth])).st_mode
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{step}: cannot be read ({exc.strerror or exc})"
        if stat.S_ISLNK(mode):
            return f"{step} {LINK}"
        last = depth == len(parts)
        if not last and not stat.S_ISDIR(mode):
            return None  # a file where a folder should be: the file is missing
        if last and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            return f"{step} is {describe_kind(mode)}, not a regular file"
    return None


def release_file(root: Path, name: str) -> Path:
    """The path of *name* in the release at *root*, or ProjectError (naming the release
    and the reason) when reading it could leave the release."""
    why = path_problem(root, name)
    if why is not None:
        raise ProjectError(f"refused: {why}", root)
    return root.joinpath(*name.split("/"))


class BenchmarkRow(BaseModel):
    """What every reader of ``benchmark.jsonl`` takes from a row; other fields are kept
    for the tools that read them. Types are strict: a number where text belongs is a
    forged or damaged row, not one to coerce."""

    model_config = ConfigDict(extra="allow", frozen=True)

    question_id: StrictStr
    image: StrictStr
    eval_type: StrictStr
    question: StrictStr
    format: StrictStr | None = None
    options: dict[StrictStr, StrictStr] | None = None


def benchmark_row(data: Any) -> BenchmarkRow:
    """*data* (one parsed line) as a BenchmarkRow, or ValueError with one line of reason
    naming the fields that are wrong."""
    if not isinstance(data, dict):
        raise ValueError("it is not a JSON object")
    if "format" in data and not isinstance(data["format"], str):
        raise ValueError("'format' is not text")
    try:
        return BenchmarkRow.model_validate(data)
    except ValidationError as exc:
        wrong = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'row'}: {error['msg'].lower()}"
            for error in exc.errors()[:3]
        )
        raise ValueError(wrong) from None
