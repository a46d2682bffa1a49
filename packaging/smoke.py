"""Run a built sabre-desk bundle the way a user does, and fail loudly on any error.

Usage: python packaging/smoke.py [dist/sabre-desk] (or the folder holding the two programs,
e.g. a virtual environment's bin/; macOS: dist/sabre-desk.app/Contents/MacOS)

Each step runs the bundle's own executables in a fresh temporary folder (settings, logs and
caches in there too, Qt offscreen unless a step says otherwise): the version; a demo project
written, validated, its change map and an OpenCV (xphoto) repair; a Gemini repair through the
real google-genai client in the bundle against the local fake server of the source tree
(sabre_desk.demo.fake_servers); every case kept (reviews as the app writes them), exported
as a release and verified, an evaluation's report.html rendered (its chart naming a model
written with $…$ as written); on Linux
`--install-desktop` (icons drawn, a launcher naming the bundle's program); the window rendered
to a PNG by the windowed program, offscreen and on an X server (Xvfb, where installed); the
window started as from a desktop and left open until its worker processes (started from the
frozen program itself) have made previews, then closed by SIGTERM; on Linux, every bundled
library's dependencies found (a left-out library shows here); a bundle's folder no heavier
than MAX_BUNDLE_MB and without numba or LLVM; the log free of errors. The run needs Pillow
and psutil.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXE = ".exe" if sys.platform == "win32" else ""
#: What a Gemini repair is asked to mend in the demo (tex01_mug_brick's smear).
GEMINI_CASE, GEMINI_BOX = "tex01_mug_brick", "0.3,0.3,0.6,0.6"
WORKERS_TIMEOUT_S = 120
#: what a bundle's folder may weigh, in MB (10^6 bytes of its files: docs/bundle.md)
MAX_BUNDLE_MB = 250
IMAGE_ROLES = ("base", "edited", "image")


class SmokeError(Exception):
    pass


class Bundle:
    def __init__(self, folder: Path, work: Path):
        self.cli = folder / f"sabre-desk{EXE}"
        self.gui = folder / f"sabre-desk-gui{EXE}"
        for program in (self.cli, self.gui):
            if not program.is_file():
                raise SmokeError(f"{program} is missing")
        self.work = work
        self.env = {
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "SABRE_DESK_CONFIG_DIR": str(work / "config"),
            "SABRE_DESK_CACHE_DIR": str(work / "cache"),
            "SABRE_DESK_LOG_DIR": str(work / "logs"),
        }
        for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
            self.env.pop(name, None)

    def run(
        self, *args: str, gui: bool = False, env: dict[str, str] | None = None, timeout: float = 180
    ) -> str:
        """Run one command; its stdout, or SmokeError with everything it printed."""
        program = self.gui if gui else self.cli
        result = subprocess.run(
            [str(program), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**self.env, **(env or {})},
            stdin=subprocess.DEVNULL,
            cwd=self.work,
        )
        if result.returncode != 0:
            raise SmokeError(
                f"{program.name} {' '.join(args)}: exit {result.returncode}\n"
                f"{result.stdout}{result.stderr}"
            )
        return result.stdout


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise SmokeError(what)


def step_version(b: Bundle) -> str:
    init = (ROOT / "sabre_desk" / "__init__.py").read_text(encoding="utf-8")
    wanted = re.search(r'__version__ = "([^"]+)"', init)
    out = b.run("--version").strip()
    expect(wanted is not None and out == f"sabre-desk {wanted.group(1)}", f"--version: {out!r}")
    usage = b.run("--help")
    expect("validate" in usage and "screen" in usage, "--help lists no commands")
    return out


def step_demo(b: Bundle) -> str:
    b.run("demo", "--no-open", "demo")
    out = b.run("validate", "demo")
    expect("all valid" in out, f"validate: {out}")
    return out.strip().splitlines()[-1]


def step_opencv(b: Bundle) -> str:
    b.run("diff", "demo", "ctx02_apple_tennis_ball", "--png", "change-map.png")
    png_size(b.work / "change-map.png")
    box = ("--box", "0.4,0.55,0.52,0.63")
    folder = b.work / "demo" / "cases" / "ctx03_wrench_banana" / "repairs"
    out = b.run("repair", "demo", "ctx03_wrench_banana", *box, "--engine", "opencv-fsr")
    expect(any("opencv-fsr" in p.name for p in folder.glob("*.png")), f"no OpenCV repair: {out}")
    # the default offline engine: its loops, compiled when the bundle was built, must load
    out = b.run("repair", "demo", "ctx03_wrench_banana", *box, "--role", "base")
    expect(any("patchmatch" in p.name for p in folder.glob("*.png")), f"no patch repair: {out}")
    return "change map, an opencv-fsr repair and a patchmatch repair"


def step_gemini(b: Bundle) -> str:
    sys.path.insert(0, str(ROOT))
    from sabre_desk.demo.fake_servers.gemini_server import FakeGemini

    server = FakeGemini()
    try:
        env = {"GEMINI_API_KEY": "smoke-key", "GOOGLE_GEMINI_BASE_URL": server.url}
        out = b.run(
            "repair", "demo", GEMINI_CASE, "--box", GEMINI_BOX, "--engine", "gemini", env=env
        )
    finally:
        stuck = server.close()
    expect(not stuck, "the fake Gemini server's handlers did not finish")
    expect(len(server.requests) >= 1, f"the bundle sent Gemini no request: {out}")
    repairs = (b.work / "demo" / "cases" / GEMINI_CASE / "repairs").glob("*gemini*.png")
    expect(any(repairs), f"no Gemini repair preview: {out}")
    return f"{len(server.requests)} request(s) through google-genai"


def step_release(b: Bundle) -> str:
    """Every demo case kept by one reviewer (reviews as the app writes them), exported as a
    release and verified."""
    sys.path.insert(0, str(ROOT / "tests"))
    from factories import write_review

    cases = sorted(p for p in (b.work / "demo" / "cases").iterdir() if p.is_dir())
    for case in cases:
        write_review(case, "smoke", "keep")
    out = b.run("export", "demo", "release", "--reviewer", "smoke")
    expect(f"exported {len(cases)} cases" in out, f"export: {out}")
    utils = (b.work / "release" / "lmms-eval" / "utils.py").read_text(encoding="utf-8")
    expect("def doc_to_text" in utils, "the release's lmms-eval utils.py lacks its hooks")
    return f"{len(cases)} cases; " + b.run("verify", "release").strip().splitlines()[-1]


def step_report(b: Bundle) -> str:
    """An evaluation's report.html rendered by the bundle (matplotlib's chart, with the
    fonts the bundle keeps) for two models' answers to the release, one named with $…$."""
    rows = [
        json.loads(line)
        for line in (b.work / "release" / "benchmark.jsonl").read_text("utf-8").splitlines()
    ]
    folder = b.work / "evaluation"
    folder.mkdir()
    for model, right in (("gpt-$4$", True), ("plain", False)):
        lines = [
            json.dumps(
                {
                    "question_id": row["question_id"],
                    "response": row["answer"] if right else "no idea",
                }
            )
            for row in rows
        ]
        (folder / f"{model}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = b.run("report", "evaluation", "--release", "release", "--out", "report.html")
    page = (b.work / "report.html").read_text(encoding="utf-8")
    expect(
        "<svg" in page and "gpt-$4$" in page, f"report.html has no chart naming the models: {out}"
    )
    return out.strip().splitlines()[-1]


def step_screenshot(b: Bundle) -> str:
    shot = b.work / "window.png"
    b.run("open", "demo", "--case", "tex01_mug_brick", "--screenshot", str(shot), gui=True)
    width, height, colors = png_size(shot)
    expect(width >= 1000 and height >= 600, f"screenshot is {width}x{height}")
    expect(colors > 1000, f"screenshot has {colors} colours: nothing was painted")
    return f"{width}x{height}, {colors} colours"


def step_desktop(b: Bundle) -> str:
    """Linux: `--install-desktop` from the bundle draws the icons (Qt's SVG renderer in the
    bundle) and writes a launcher that runs this very program (the bundle is on no PATH)."""
    if not sys.platform.startswith("linux"):
        return "skipped (not Linux)"
    share = b.work / "share"
    b.run("--install-desktop", env={"XDG_DATA_HOME": str(share), "HOME": str(b.work)})
    launcher = (share / "applications" / "sabre-desk.desktop").read_text(encoding="utf-8")
    # the launcher names this very program by its whole path: a bundle and a venv are on no PATH
    program = b.cli
    expect(f"Exec={program} open %f" in launcher, f"the launcher runs something else:\n{launcher}")
    width, _, colors = png_size(share / "icons" / "hicolor" / "256x256" / "apps" / "sabre-desk.png")
    expect(width == 256 and colors > 10, "the 256 px icon was not drawn")
    return f"launcher, icons and file type; Exec={program}"


@contextlib.contextmanager
def x_server() -> Iterator[str | None]:
    """A virtual X server's display (Xvfb) for the test's windows; None where there is none
    (not Linux, or Xvfb not installed): the windows then open offscreen."""
    xvfb = shutil.which("Xvfb")
    if not sys.platform.startswith("linux") or xvfb is None:
        yield None
        return
    number = next(n for n in range(90, 200) if not Path(f"/tmp/.X{n}-lock").exists())
    server = subprocess.Popen(
        [xvfb, f":{number}", "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        socket = Path(f"/tmp/.X11-unix/X{number}")
        deadline = time.monotonic() + 15
        while not socket.exists() and time.monotonic() < deadline and server.poll() is None:
            time.sleep(0.1)
        expect(socket.exists(), f"Xvfb :{number} did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def on_screen(display: str | None) -> dict[str, str]:
    """The environment of a window on *display*: Qt picks its platform as on a desktop."""
    return {"DISPLAY": display} if display else {"QT_QPA_PLATFORM": "offscreen"}


def step_x11(b: Bundle) -> str:
    """Linux: the window on a real X server (Xvfb), through Qt's xcb plugin and the X11
    libraries the bundle carries (offscreen uses neither)."""
    with x_server() as display:
        if display is None:
            return "skipped (no Xvfb)"
        shot = b.work / "window-x11.png"
        env = {"QT_QPA_PLATFORM": "xcb", "DISPLAY": display}
        b.run("open", "demo", "--screenshot", str(shot), gui=True, env=env)
    width, height, colors = png_size(shot)
    expect(colors > 1000, f"the X11 screenshot has {colors} colours: nothing was painted")
    return f"{width}x{height} on Xvfb {display}"


def step_workers(b: Bundle) -> str:
    """The window, started as from a desktop (on Xvfb where there is one), opens; its worker
    processes start from the frozen program (multiprocessing's spawn re-runs it) and make
    the previews of the cases not yet shown; SIGTERM closes it cleanly."""
    previews = b.work / "demo" / ".sabre-desk-cache" / "previews"
    shutil.rmtree(previews, ignore_errors=True)
    images = [p for p in (b.work / "demo" / "cases").glob("*/*") if p.stem in IMAGE_ROLES]
    made, workers = 0, set()
    with x_server() as display:
        env = {k: v for k, v in b.env.items() if k != "QT_QPA_PLATFORM"} | on_screen(display)
        window = subprocess.Popen(
            [str(b.gui), "open", "demo"],
            env=env,
            cwd=b.work,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        deadline = time.monotonic() + WORKERS_TIMEOUT_S
        try:
            while time.monotonic() < deadline and window.poll() is None:
                made = sum(1 for _ in previews.rglob("*.preview")) if previews.is_dir() else 0
                workers |= forked_children(window.pid)
                if made >= len(images) and workers:
                    break
                time.sleep(1)
        finally:
            if window.poll() is None:
                window.terminate()  # SIGTERM: the window closes as from its close button
            try:
                out, _ = window.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                window.kill()
                out, _ = window.communicate()
    expect(
        made >= len(images),
        f"{made} previews of {len(images)} images after {WORKERS_TIMEOUT_S} s\n{out}",
    )
    expect(bool(workers), "no worker process was started from the bundle's program")
    if sys.platform != "win32":  # Windows has no SIGTERM: terminate() kills
        expect(window.returncode == 0, f"the window ended with exit {window.returncode}\n{out}")
    where = f"on Xvfb {display}" if display else "offscreen"
    return f"{where}: worker processes {sorted(workers)} made {made} previews; closed cleanly"


def forked_children(pid: int) -> set[int]:
    """The processes multiprocessing started from the bundle's program under *pid*."""
    import psutil

    found = set()
    try:
        for child in psutil.Process(pid).children(recursive=True):
            with contextlib.suppress(psutil.Error):
                if "--multiprocessing-fork" in child.cmdline():
                    found.add(child.pid)
    except psutil.Error:
        pass
    return found


def step_libraries(b: Bundle) -> str:
    """Linux: every bundled shared library finds what it links to (in the bundle or the
    system). A library the spec left out that something still needs shows up here."""
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        return "skipped (not Linux)"
    libraries = [p for p in b.cli.parent.rglob("*.so*") if p.is_file() and not p.is_symlink()]
    missing = []
    for library in libraries:
        out = subprocess.run(["ldd", str(library)], capture_output=True, text=True).stdout
        missing += [
            f"{library.name}: {line.strip()}" for line in out.splitlines() if "not found" in line
        ]
    expect(not missing, "missing libraries:\n" + "\n".join(missing))
    return f"{len(libraries)} libraries, none missing a dependency"


def step_size(b: Bundle) -> str:
    """A bundle's folder weighs at most MAX_BUNDLE_MB and carries no compiler (its loops
    were compiled when it was built); the biggest parts are named when it weighs more."""
    internal = b.cli.parent / "_internal"
    if not internal.is_dir():
        return "skipped (not a bundle's folder)"
    files = [p for p in b.cli.parent.rglob("*") if p.is_file() and not p.is_symlink()]
    megabytes = sum(p.stat().st_size for p in files) / 1e6
    compilers = [name for name in ("numba", "llvmlite") if (internal / name).exists()]
    expect(not compilers, f"the bundle carries a compiler: {', '.join(compilers)}")
    parts: dict[str, int] = {}
    for path in files:
        top = path.relative_to(internal).parts[0] if internal in path.parents else path.name
        parts[top] = parts.get(top, 0) + path.stat().st_size
    biggest = sorted(parts.items(), key=lambda item: -item[1])[:6]
    named = ", ".join(f"{name} {size / 1e6:.0f}" for name, size in biggest)
    expect(megabytes <= MAX_BUNDLE_MB, f"{megabytes:.0f} MB, over {MAX_BUNDLE_MB} MB: {named}")
    return f"{megabytes:.0f} MB of at most {MAX_BUNDLE_MB} (MB: {named})"


def step_log(b: Bundle) -> str:
    log = b.work / "logs" / "sabre-desk.log"
    expect(log.is_file(), f"no log at {log}")
    bad = [
        line
        for line in log.read_text(encoding="utf-8").splitlines()
        if re.search(r" (ERROR|CRITICAL) ", line)
    ]
    expect(not bad, "errors in the log:\n" + "\n".join(bad))
    faults = b.work / "logs" / "faults.log"
    expect(
        not faults.is_file() or not faults.read_text(encoding="utf-8").strip(), f"a crash: {faults}"
    )
    return "no errors"


def png_size(path: Path) -> tuple[int, int, int]:
    from PIL import Image

    expect(path.is_file(), f"{path} was not written")
    with Image.open(path) as image:
        colors = image.convert("RGB").getcolors(maxcolors=2**24) or []
        return image.width, image.height, len(colors)


STEPS: list[tuple[str, Callable[[Bundle], str]]] = [
    ("version", step_version),
    ("demo", step_demo),
    ("opencv", step_opencv),
    ("gemini", step_gemini),
    ("release", step_release),
    ("report", step_report),
    ("desktop", step_desktop),
    ("screenshot", step_screenshot),
    ("x11", step_x11),
    ("workers", step_workers),
    ("libraries", step_libraries),
    ("size", step_size),
    ("log", step_log),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=ROOT / "dist" / "sabre-desk")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sabre-desk-smoke-") as tmp:
        try:
            bundle = Bundle(args.folder.resolve(), Path(tmp))
            for name, step in STEPS:
                started = time.monotonic()
                said = step(bundle)
                print(f"ok   {name:<11}{time.monotonic() - started:6.1f} s  {said}", flush=True)
        except (SmokeError, subprocess.TimeoutExpired) as exc:
            print(f"FAIL {exc}", file=sys.stderr)
            return 1
    print(f"smoke test passed: {args.folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
