"""The core never imports Qt: it runs in CLI tools, worker threads and servers."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import sabre_desk

QT_FREE = ("core", "imaging", "engines", "demo")


def _modules() -> list[str]:
    names = ["sabre_desk.settings", "sabre_desk.cli", "sabre_desk.ground.paths"]
    for pkg in QT_FREE:
        path = [str(sabre_desk.__path__[0] + "/" + pkg)]
        names.append(f"sabre_desk.{pkg}")
        names += [f"sabre_desk.{pkg}.{m.name}" for m in pkgutil.iter_modules(path)]
    return names


def test_core_packages_import_with_pyside6_blocked() -> None:
    code = (
        "import sys, importlib\n"
        "sys.modules['PySide6'] = None\n"
        f"for name in {_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print('ok', len([m for m in sys.modules if m.startswith('sabre_desk')]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok")
