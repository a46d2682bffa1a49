"""``sabre-desk --install-desktop``: the app as a desktop citizen on Linux (freedesktop.org).

Writes, under ``$XDG_DATA_HOME`` (default ``~/.local/share``):

- ``applications/sabre-desk.desktop``: the launcher, opening ``sabre-project.json`` files;
- ``icons/hicolor/<N>x<N>/apps/sabre-desk.png`` for N in ICON_SIZES, and the SVG as
  ``scalable``: rendered from ``resources/icons/sabre-desk.svg`` by Qt's SVG renderer, so
  the small sizes are drawn at their size, not scaled down from a large bitmap;
- ``mime/packages/sabre-desk.xml``: the project MIME type, matched by the file name
  ``sabre-project.json`` (a launcher for ``inode/directory`` would offer itself for every
  folder).

Then it refreshes the MIME, desktop and icon caches where their tools are installed. The
same renderer makes ``sabre-desk.ico`` (Windows) and ``sabre-desk.icns`` (macOS) for the
standalone bundle (``render_icon_set``). Every file is written atomically.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from sabre_desk.ground.paths import resource_path
from sabre_desk.ground.storage import atomic_write_bytes

APP_ID = "sabre-desk"
MIME_TYPE = "application/x-sabre-desk-project"
ICON_SIZES = (16, 22, 24, 32, 48, 64, 128, 256, 512)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512)

#: Characters that make an Exec argument need quotes (freedesktop.org Desktop Entry spec).
EXEC_RESERVED = frozenset(" \t\n\"'\\><~|&;$*?#()`")

MIME_XML = f"""<?xml version="1.0" encoding="UTF-8"?>
<mime-info xmlns="http://www.freedesktop.org/standards/shared-mime-info">
  <mime-type type="{MIME_TYPE}">
    <comment>sabre-desk project</comment>
    <sub-class-of type="application/json"/>
    <icon name="{APP_ID}"/>
    <glob pattern="sabre-project.json" weight="100"/>
  </mime-type>
</mime-info>
"""


def data_home() -> Path:
    """$XDG_DATA_HOME when it is an absolute path (the spec says to ignore others)."""
    xdg = Path(os.environ.get("XDG_DATA_HOME", "") or "relative")
    return xdg if xdg.is_absolute() else Path.home() / ".local" / "share"


def render_png(size: int) -> bytes:
    """The app icon drawn at *size*×*size* pixels, as PNG bytes."""
    renderer = QSvgRenderer(str(resource_path("icons", f"{APP_ID}.svg")))
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes; Qt a str
    return bytes(data.data())


def render_icon_set(folder: Path) -> list[Path]:
    """PNGs of every size plus ``.ico`` and ``.icns`` in *folder* (for the bundle)."""
    folder.mkdir(parents=True, exist_ok=True)
    pngs = {size: render_png(size) for size in ICON_SIZES}
    images = {size: Image.open(io.BytesIO(data)) for size, data in pngs.items()}
    written = []
    for size, data in pngs.items():
        path = folder / f"{APP_ID}-{size}.png"
        atomic_write_bytes(path, data)
        written.append(path)
    for suffix, fmt, sizes in (("ico", "ICO", ICO_SIZES), ("icns", "ICNS", ICNS_SIZES)):
        out = io.BytesIO()
        largest = images[max(sizes)]
        extra = [images[s] for s in sizes if s != max(sizes)]
        largest.save(out, fmt, sizes=[(s, s) for s in sizes], append_images=extra)
        path = folder / f"{APP_ID}.{suffix}"
        atomic_write_bytes(path, out.getvalue())
        written.append(path)
    return written


def launcher_program() -> list[str]:
    """The program this run was started as, as an absolute command: a desktop's launcher
    runs without the virtual environment's ``bin`` (or pipx's) on its PATH, so a bare
    ``sabre-desk`` would be hidden (TryExec fails) or do nothing.

    The standalone bundle is its executable; ``python -m sabre_desk`` is that interpreter
    with ``-m sabre_desk``; the installed script (a venv, pipx, ``pip install --user``) is
    its own path; else the script installed beside the interpreter, else the bare name."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).absolute())]
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if started is not None and started.name == "__main__.py":
        return [str(Path(sys.executable).absolute()), "-m", "sabre_desk"]
    if started is not None and started.name.startswith(APP_ID) and started.is_file():
        return [str(started.absolute())]
    beside = Path(sys.executable).absolute().parent / APP_ID
    return [str(beside)] if beside.is_file() else [APP_ID]


def _desktop_entry() -> bytes:
    """The launcher, naming the program it was installed from (``launcher_program``)."""
    text = resource_path(f"{APP_ID}.desktop").read_text(encoding="utf-8")
    program = launcher_program()
    command = " ".join(_exec_argument(part) for part in program)
    text = text.replace(f"TryExec={APP_ID}\n", f"TryExec={_string_value(program[0])}\n")
    text = text.replace(f"Exec={APP_ID} ", f"Exec={command} ")
    return text.encode("utf-8")


def _string_value(text: str) -> str:
    """*text* as a desktop entry string value (backslash is its escape character)."""
    return text.replace("\\", "\\\\")


def _exec_argument(text: str) -> str:
    """*text* as one argument of a desktop entry's Exec key: quoted if it holds a reserved
    character, with ", `, $ and \\ escaped inside the quotes, then escaped as a string."""
    if not any(c in EXEC_RESERVED for c in text):
        return _string_value(text)
    quoted = "".join(f"\\{c}" if c in '"`$\\' else c for c in text)
    return _string_value(f'"{quoted}"')


def install_desktop() -> list[Path]:
    """Install the launcher, icons and MIME type for this user; returns the files written."""
    home = data_home()
    written: list[Path] = []

    def put(path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)
        written.append(path)

    put(home / "applications" / f"{APP_ID}.desktop", _desktop_entry())
    icons = home / "icons" / "hicolor"
    for size in ICON_SIZES:
        put(icons / f"{size}x{size}" / "apps" / f"{APP_ID}.png", render_png(size))
    svg = resource_path("icons", f"{APP_ID}.svg").read_bytes()
    put(icons / "scalable" / "apps" / f"{APP_ID}.svg", svg)
    put(home / "mime" / "packages" / f"{APP_ID}.xml", MIME_XML.encode("utf-8"))
    for tool, target in (
        ("update-mime-database", home / "mime"),
        ("update-desktop-database", home / "applications"),
        ("gtk-update-icon-cache", icons),
    ):
        if shutil.which(tool):
            args = (
                [tool, "-f", "-t", str(target)] if tool.startswith("gtk") else [tool, str(target)]
            )
            subprocess.run(args, capture_output=True, timeout=60, check=False)
    return written
