"""Where the packaged resources/ and primers/ are, installed or in a checkout.

A wheel carries them inside the package (sabre_desk/resources, sabre_desk/primers); a
source checkout or editable install has them at the top of the repository.
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
