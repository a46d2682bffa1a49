"""`sabre-desk --install-desktop` puts the launcher, the icons and the project file type where
freedesktop.org desktops look, in a temporary HOME; the bundle's icons come from the same
drawing; the app says its version and desktop file name."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from factories import run_cli
from PIL import Image

from sabre_desk import __version__
from sabre_desk.gui.app import make_app
from sabre_desk.gui.desktop_install import ICON_SIZES, MIME_TYPE, install_desktop, render_icon_set


def install(
    home: Path, xdg: Path | None, program: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_DATA_HOME"}
    env.update(HOME=str(home), SABRE_DESK_CONFIG_DIR=str(home / "config"))
    if xdg is not None:
        env["XDG_DATA_HOME"] = str(xdg)
    return subprocess.run(
        [*(program or [sys.executable, "-m", "sabre_desk"]), "--install-desktop"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def test_install_desktop_writes_launcher_icons_and_mime_type(tmp_path: Path) -> None:
    share = tmp_path / "xdg-data"
    result = install(tmp_path, share)
    assert result.returncode == 0, result.stderr
    desktop = (share / "applications" / "sabre-desk.desktop").read_text()
    assert f"MimeType={MIME_TYPE};" in desktop and "inode/directory" not in desktop
    assert f"Exec={sys.executable} -m sabre_desk open %f" in desktop
    assert "Icon=sabre-desk" in desktop
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(
            ["desktop-file-validate", str(share / "applications" / "sabre-desk.desktop")],
            capture_output=True,
            text=True,
        )
        assert check.returncode == 0, check.stdout
    for size in ICON_SIZES:
        with Image.open(
            share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "sabre-desk.png"
        ) as icon:
            assert icon.size == (size, size) and icon.mode == "RGBA"
            assert icon.getextrema()[3][1] == 255  # drawn, not an empty square
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / "sabre-desk.svg").is_file()
    mime = ET.parse(share / "mime" / "packages" / "sabre-desk.xml").getroot()
    ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
    kind = mime.find("m:mime-type", ns)
    assert kind is not None and kind.get("type") == MIME_TYPE
    assert [g.get("pattern") for g in kind.findall("m:glob", ns)] == ["sabre-project.json"]
    if shutil.which("update-mime-database"):  # the tool accepted the file and indexed it
        assert (share / "mime" / "application" / f"{MIME_TYPE.split('/')[1]}.xml").is_file()
    assert f"installed {share / 'applications' / 'sabre-desk.desktop'}" in result.stdout


def exec_line(launcher: Path) -> list[str]:
    """The launcher's Exec command as a desktop splits it (quotes, then the field codes)."""
    line = next(x for x in launcher.read_text().splitlines() if x.startswith("Exec="))
    return [part for part in shlex.split(line.removeprefix("Exec=")) if not part.startswith("%")]


@pytest.mark.parametrize("started_as", ["script", "module"])
def test_the_launcher_runs_the_program_it_was_installed_from(
    tmp_path: Path, started_as: str
) -> None:
    """After the README's install into a virtual environment, whose bin folder is on no
    desktop's PATH: the launcher's program (and its TryExec) are absolute and start."""
    script = Path(sys.executable).parent / "sabre-desk"
    if started_as == "script" and not script.is_file():
        pytest.skip(f"no installed sabre-desk script beside {sys.executable}")
    program = [str(script)] if started_as == "script" else None
    share = tmp_path / "share"
    assert install(tmp_path, share, program).returncode == 0
    launcher = share / "applications" / "sabre-desk.desktop"
    command = exec_line(launcher)
    assert Path(command[0]).is_absolute() and command[-1] == "open"
    try_exec = next(x for x in launcher.read_text().splitlines() if x.startswith("TryExec="))
    assert try_exec == f"TryExec={command[0]}"
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env["PATH"] = "/usr/bin:/bin"  # a desktop session's PATH: no venv, no pipx
    ran = subprocess.run(
        [*command[:-1], "--version"], capture_output=True, text=True, timeout=120, env=env
    )
    assert ran.returncode == 0, ran.stderr
    assert __version__ in ran.stdout


def test_without_xdg_data_home_it_goes_to_the_home_folder(tmp_path: Path) -> None:
    assert install(tmp_path, None).returncode == 0
    assert (tmp_path / ".local" / "share" / "applications" / "sabre-desk.desktop").is_file()


def test_from_the_bundle_the_launcher_runs_the_bundle_program(
    qtbot, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The standalone bundle is on no PATH: its launcher names the program itself, quoted
    where the folder's name has a space."""
    program = tmp_path / "My Apps" / "sabre-desk" / "sabre-desk"
    program.parent.mkdir(parents=True)
    program.write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)  # as in the bundle
    monkeypatch.setattr(sys, "executable", str(program))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    install_desktop()
    launcher = tmp_path / "share" / "applications" / "sabre-desk.desktop"
    text = launcher.read_text()
    assert f'\nExec="{program}" open %f\n' in text
    assert f"\nTryExec={program}\n" in text
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(
            ["desktop-file-validate", str(launcher)], capture_output=True, text=True
        )
        assert check.returncode == 0, check.stdout


def test_the_bundle_icons_ico_and_icns(tmp_path: Path) -> None:
    written = render_icon_set(tmp_path)
    assert {p.name for p in written} >= {"sabre-desk.ico", "sabre-desk.icns", "sabre-desk-512.png"}
    with Image.open(tmp_path / "sabre-desk.ico") as ico:
        assert {(16, 16), (32, 32), (256, 256)} <= set(ico.info["sizes"])
    with Image.open(tmp_path / "sabre-desk.icns") as icns:
        assert (512, 512) in {s[:2] for s in icns.info["sizes"]} or icns.size == (512, 512)


def test_a_project_opens_from_its_manifest_file(demo_project: Path, tmp_path: Path) -> None:
    """What the desktop runs for a double-click on sabre-project.json."""
    shot = tmp_path / "shot.png"
    manifest = str(demo_project / "sabre-project.json")
    result = run_cli("open", manifest, "--screenshot", str(shot), home=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert shot.is_file()


def test_the_application_names_its_version_and_desktop_file(qtbot: pytest.FixtureRequest) -> None:
    app = make_app()
    assert app.applicationVersion() == __version__
    assert app.desktopFileName() == "sabre-desk"
