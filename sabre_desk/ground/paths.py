"""Where the packaged resources/ and primers/ are, installed or in a checkout; and whether a
path stays inside a project.

A wheel carries them inside the package (sabre_desk/resources, sabre_desk/primers); a
source checkout or editable install has them at the top of the repository.

A project folder comes from elsewhere (a zip, a synced drive) and may hold symbolic links:
no read or write follows one out of the project (``inside_project``).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent  # sabre_desk/


def _data_dir(name: str) -> Path:
    installed = _PACKAGE / name
    if installed.is_dir():
        return installed
    checkout = _PACKAGE.parent / name
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"sabre-desk's {name}/ folder is missing from {_PACKAGE}; reinstall")


def resources_dir() -> Path:
    return _data_dir("resources")


def primers_dir() -> Path:
    return _data_dir("primers")


def resource_path(*parts: str) -> Path:
    return resources_dir().joinpath(*parts)


def inside_project(root: Path | str, path: Path | str) -> bool:
    """Whether *path*, every link on the way followed, is *root* or inside it (*root*'s own
    links followed too, so a project opened through a link is inside itself)."""
    try:
        real_root = Path(root).resolve()
        return Path(path).resolve().is_relative_to(real_root)
    except (OSError, RuntimeError):  # a loop of links
        return False


def plain_file_name(name: str) -> bool:
    """Whether *name* names a file in a folder itself: not a path, not hidden, not ``..``."""
    return bool(name) and "/" not in name and "\\" not in name and not name.startswith(".")
