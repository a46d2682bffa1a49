"""Every shell command of the user guide (docs/guide/*.md) runs as pasted.

Each page's ```bash / ```sh / ```console blocks run in order, as a reader pastes them into
one terminal: one bash process per page, in a fresh folder, with the installed `sabre-desk`
on PATH and nothing but what the README's install (`pip install .`) brings: the test extras
(pytest, hypothesis, pytest-qt) cannot be imported, nor the optional clients unless the page
says, before its first command, that it needs them (`pip install "sabre-desk[openai]"`).
Every command must exit 0 and print no error; what a page says a command prints, it prints.
The background servers a page starts (`sabre-desk fake-server … &`) run in the page's own
process group, killed when the page ends; the ports a page names are swapped for free ones,
so two runs never collide.

A page starts from an empty folder, or from what it says before its first command:

- commands that name `sabre-desk-demo` without making it run on a copy of the demo project,
  and the page says how it is made (`sabre-desk demo`);
- "with its cases kept": every case of that demo kept, as pressing 1 on each case in the
  window does (through the project API the window saves with).

What cannot run here is named below, each with its reason: the README's install itself (this
test runs in the environment it made), the commands that open a window (run with
`--screenshot`, offscreen, or, for a study session, checked against the parser), and a block
that needs another tool.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from docs_pages import DOCS, ROOT

GUIDE = DOCS / "guide"
SHELLS = {"bash", "sh", "shell", "console"}
#: Longest a page may take before it counts as hung (each takes 2-15 s; under pytest's own
#: limit of 120 s a test, so the page's output is shown).
PAGE_TIMEOUT_S = 100

#: Blocks that need what this test cannot have, keyed by page and the block's first command.
NOT_RUN = {
    ("release-and-evaluate.md", "export LMUData="): (
        "VLMEvalKit's run.py: a checkout of VLMEvalKit (not on PyPI) and a model; its loading "
        "and scoring path is repeated in tests/interop/test_vlmevalkit_path.py"
    ),
}
#: What each page says a command prints (a phrase of the page → what the output holds).
CLAIMS: dict[str, list[tuple[str, str]]] = {
    "making-cases.md": [
        ("`generate specs` writes 5 of 5", r"wrote 5 of 5 specifications"),
        ("`generate images` images the 5 cases", r"imaged 5 cases \(10 calls\), 0 failed"),
        ("`screen` keeps every case", r"screened (\d+) cases \(\1 kept by the filter\)"),
        ("counts 39 model calls", r"model calls: 39\b"),
    ],
    "screening.md": [
        ("asks 31 questions", r"\b31 requests sent"),
        (
            "`screened 13 cases (13 kept by the filter)`",
            r"screened 13 cases \(13 kept by the filter\)",
        ),
    ],
    "primers.md": [("the shipped primers and occlusion", r"occlusion +occlusion")],
    "upgrading.md": [("changes nothing", r"nothing to upgrade")],
    "release-and-evaluate.md": [("with its cases kept", r"exported 13 cases")],
    "evaluating.md": [("with its cases kept", r"exported 13 cases")],
}
#: An error a command may print while exiting 0 (a skipped case, a failed call).
ERRORS = re.compile(r"sabre-desk: error|no such case|Traceback \(most recent call last\)")
#: The optional clients a page may ask for, and the modules each brings.
EXTRAS = {"openai": {"openai"}, "local": {"openai"}, "anthropic": {"anthropic"}}
#: What `pip install ".[test]"` adds and `pip install .` does not.
TEST_ONLY = {"pytest", "_pytest", "pytestqt", "pytest_timeout", "hypothesis"}
KEYS = (
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "SABRE_DESK_LOCAL_API_KEY",
    "SABRE_DESK_LOCAL_BASE_URL",
)


@dataclass(frozen=True)
class Block:
    line: int
    text: str
    prose_before: str  # the page's text before this block


def _readme_install() -> str:
    """The README's first command: the install the guide assumes."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^```bash\n(.+?)\n```", text, re.M)
    assert match, "the README opens with its install command"
    return match.group(1).strip()


INSTALL = _readme_install()


def shell_blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    found = []
    fence = re.compile(r"^([ \t]*)```(\w*)[^\n]*\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)
    for match in fence.finditer(text):
        if match.group(2) not in SHELLS:
            continue
        indent = len(match.group(1))
        lines = [
            line[indent:] if line[:indent].isspace() else line
            for line in match.group(3).splitlines()
        ]
        if match.group(2) == "console":  # only the prompted lines are commands
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        line = text.count("\n", 0, match.start()) + 1
        found.append(Block(line, "\n".join(lines), text[: match.start()]))
    return found


def commands(block: str) -> list[str]:
    """The block's commands as a shell reads them: continued lines joined, a here-document
    kept with its command, comments and blank lines dropped."""
    out: list[str] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        command = lines[i]
        i += 1
        while command.endswith("\\") and i < len(lines):
            command += "\n" + lines[i]
            i += 1
        heredoc = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", command)
        if heredoc:
            while i < len(lines):
                command += "\n" + lines[i]
                i += 1
                if lines[i - 1].strip() == heredoc.group(1):
                    break
        if command.strip() and not command.lstrip().startswith("#"):
            out.append(command)
    return out


def guide_pages() -> list[Path]:
    return [page for page in sorted(GUIDE.glob("*.md")) if shell_blocks(page)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


WRAPPER = '''#!{python}
"""sabre-desk as the guide's test runs it: a command that opens a window renders it
offscreen to a PNG instead (or, for a study session, is checked against the parser)."""
import os, subprocess, sys
REAL = {real!r}
SHOTS = {shots!r}
args = sys.argv[1:]
words = [a for i, a in enumerate(args) if not a.startswith("-")
         and not (i and args[i - 1] == "--reviewer")]
command = words[0] if words else ""


def log(line):
    with open(os.path.join(SHOTS, "window-commands.log"), "a") as f:
        f.write(line + "\\n")


def shot():
    return os.path.join(SHOTS, "window-%d.png" % len(os.listdir(SHOTS)))


if command == "open" and "--screenshot" not in args and "-h" not in args:
    png = shot()
    log("open -> --screenshot " + png)
    code = subprocess.call(REAL + args + ["--screenshot", png])
    sys.exit(code or (0 if os.path.getsize(png) > 0 else 1))
if command == "demo" and "--no-open" not in args and "-h" not in args:
    code = subprocess.call(REAL + args + ["--no-open"])
    folder = words[1] if len(words) > 1 else "sabre-desk-demo"
    png = shot()
    log("demo -> --no-open, then open --screenshot " + png)
    sys.exit(code or subprocess.call(REAL + ["open", folder, "--screenshot", png]))
if command == "study" and len(words) > 1 and words[1] == "take":
    from sabre_desk.cli.app import build_parser
    build_parser().parse_args(args)  # exits 2 on a command or option that is not there
    log("study take -> its arguments checked")
    sys.exit(0)
os.execv(REAL[0], REAL + args)
'''

BLOCKER = '''"""The README's install, in this environment: what `pip install .` does not
bring cannot be imported (the guide's test; see tests/unit/test_guide_commands.py)."""
import sys

BLOCKED = {blocked!r}


class _NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, _NotInstalled())
'''


@pytest.fixture(scope="module")
def demo_master(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project as `sabre-desk demo --no-open` writes it."""
    folder = tmp_path_factory.mktemp("guide-demo")
    done = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "demo", "--no-open", str(folder / "demo")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "SABRE_DESK_CONFIG_DIR": str(folder / "config")},
    )
    assert done.returncode == 0, done.stderr
    return folder / "demo"


def _keep_every_case(project: Path) -> None:
    """What pressing 1 (Keep) on every case in the window writes."""
    from sabre_desk.core.case.project import Project
    from sabre_desk.core.case.review import Decision

    opened = Project.open(project, "guide-reader")
    for entry in opened.entries:
        case = opened.load_case(entry.case_id)
        case.review.decision = Decision.KEEP
        opened.save_review(case)


def _real_sabre_desk() -> list[str]:
    found = shutil.which("sabre-desk", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "sabre_desk"]


def _script(page: Path, blocks: list[Block]) -> tuple[str, list[str]]:
    """The page as one bash script, and its commands in order (a failure names its number)."""
    ports = {
        port: _free_port()
        for block in blocks
        for port in re.findall(r"(?:--port |127\.0\.0\.1:)(\d{2,5})\b", block.text)
    }
    lines = [
        "set -u",
        '_failed() { echo "guide: command $1 exited $2" >&2; exit 97; }',
    ]
    run: list[str] = []
    for block in blocks:
        lines.append(f"echo '### {page.name}:{block.line}'")
        found = commands(block.text)
        if not found:
            continue
        reason = next(
            (
                why
                for (name, start), why in NOT_RUN.items()
                if name == page.name and found[0].startswith(start)
            ),
            None,
        )
        if reason:
            lines.append(f"echo {shlex.quote('not run: ' + reason.split(':')[0])}")
            continue
        for command in found:
            if command == INSTALL:  # the install this test runs in; then what it opens
                command = command.rsplit("&& ", 1)[1].replace(".venv/bin/", "")
            for old, new in ports.items():
                command = re.sub(rf"(--port |127\.0\.0\.1:){old}\b", rf"\g<1>{new}", command)
            run.append(command)
            lines += [command, f"_s=$?; [ $_s -eq 0 ] || _failed {len(run)} $_s"]
    lines.append("echo '### the page ran to its end'")
    return "\n".join(lines) + "\n", run


def _environment(work: Path, page: Path, blocks: list[Block]) -> dict[str, str]:
    tools = work.parent / "tools"
    shots = work.parent / "windows"
    for folder in (tools, shots, work.parent / "home", work.parent / "blocker"):
        folder.mkdir(exist_ok=True)
    wrapper = tools / "sabre-desk"
    wrapper.write_text(
        WRAPPER.format(python=sys.executable, real=_real_sabre_desk(), shots=str(shots))
    )
    wrapper.chmod(0o755)
    intro = blocks[0].prose_before
    allowed = {
        module
        for extras in re.findall(r"sabre-desk\[([\w,]+)\]", intro)
        for extra in extras.split(",")
        for module in EXTRAS.get(extra, set())
    }
    blocked = sorted(TEST_ONLY | (set().union(*EXTRAS.values()) - allowed))
    (work.parent / "blocker" / "sitecustomize.py").write_text(BLOCKER.format(blocked=blocked))
    env = {k: v for k, v in os.environ.items() if k not in KEYS and not k.startswith("PYTHON")}
    env.update(
        PATH=os.pathsep.join([str(tools), str(Path(sys.executable).parent), "/usr/bin", "/bin"]),
        HOME=str(work.parent / "home"),
        SABRE_DESK_CONFIG_DIR=str(work.parent / "config"),
        SABRE_DESK_CACHE_DIR=str(work.parent / "cache"),
        QT_QPA_PLATFORM="offscreen",
        PYTHONPATH=str(work.parent / "blocker"),
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _uses_the_demo(blocks: list[Block]) -> bool:
    everything = "\n".join(c for b in blocks for c in commands(b.text))
    before = everything.split("sabre-desk-demo", 1)[0]
    return "sabre-desk-demo" in everything and not re.search(r"sabre-desk demo\b", before)


def _end_the_group(leader: int) -> None:
    """SIGTERM to every process the page left (its servers), SIGKILL to any still there."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(leader, sig)
        except ProcessLookupError:
            return
        for _ in range(50):
            time.sleep(0.1)
            try:
                os.killpg(leader, 0)
            except ProcessLookupError:
                return


@pytest.mark.slow  # a few seconds a page, about a minute for the guide
@pytest.mark.skipif(os.name == "nt", reason="the guide's commands are bash")
@pytest.mark.parametrize("page", guide_pages(), ids=lambda p: p.name)
def test_every_command_of_the_page_runs_as_pasted(
    page: Path, demo_master: Path, tmp_path: Path
) -> None:
    blocks = shell_blocks(page)
    intro = blocks[0].prose_before
    work = tmp_path / "work"
    work.mkdir()
    if _uses_the_demo(blocks):
        assert re.search(r"`sabre-desk demo\b", intro), (
            f"{page.name} runs on the demo project: say before its first command how it is "
            "made (`sabre-desk demo --no-open`)"
        )
        shutil.copytree(demo_master, work / "sabre-desk-demo")
        if "with its cases kept" in intro:
            _keep_every_case(work / "sabre-desk-demo")
    script, run = _script(page, blocks)
    env = _environment(work, page, blocks)
    log = tmp_path / "output.txt"
    with log.open("w") as out:  # a file: the servers left running hold no pipe open
        process = subprocess.Popen(
            ["bash", "-c", script],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # the page's background servers die with it
        )
        try:
            process.wait(timeout=PAGE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{page.name} did not finish in {PAGE_TIMEOUT_S} s:\n{log.read_text()}")
        finally:
            _end_the_group(process.pid)
    output = log.read_text()
    failed = re.search(r"guide: command (\d+) exited (\d+)", output)
    where = f"\n$ {run[int(failed.group(1)) - 1]}\n(exit {failed.group(2)})" if failed else ""
    assert process.returncode == 0 and not failed, (
        f"{page.name}: a command failed as pasted{where}\n{output[-6000:]}"
    )
    assert "### the page ran to its end" in output
    error = ERRORS.search(output)
    assert not error, f"{page.name}: a command said {error.group(0)!r}:\n{output[-6000:]}"
    for phrase, printed in CLAIMS.get(page.name, []):
        said = " ".join(page.read_text(encoding="utf-8").split())
        assert phrase in said, f"{page.name} no longer says {phrase!r}"
        assert re.search(printed, output), f"{page.name} says {phrase!r}; it printed:\n{output}"


def test_every_page_that_is_not_run_in_part_still_has_that_block() -> None:
    firsts = {
        (page.name, commands(block.text)[0])
        for page in guide_pages()
        for block in shell_blocks(page)
        if commands(block.text)
    }
    for name, start in NOT_RUN:
        assert any(n == name and first.startswith(start) for n, first in firsts), (name, start)


def test_the_guide_starts_from_the_readme_install() -> None:
    assert (
        INSTALL == "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/sabre-desk demo"
    )
    started = GUIDE / "getting-started.md"
    assert any(INSTALL in commands(b.text) for b in shell_blocks(started))


def test_the_command_splitter_reads_as_a_shell_does() -> None:
    block = "a \\\n  b  # c\n# only a comment\n\npython - <<'PY' &\nprint(1)\nPY\nexport X=1"
    assert commands(block) == ["a \\\n  b  # c", "python - <<'PY' &\nprint(1)\nPY", "export X=1"]


@pytest.mark.parametrize("kind", ["pipeline", "gemini", "openai", "anthropic"])
def test_the_stand_in_servers_listen_on_this_machine_only(kind: str) -> None:
    from sabre_desk.demo.fake_servers.serve import start

    running = start(kind)
    try:
        assert running.url.startswith("http://127.0.0.1:")
    finally:
        running.close()


def test_a_page_runs_without_what_the_readme_install_does_not_bring(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    for intro, openai_there in (("", False), ('`pip install "sabre-desk[openai]"`', True)):
        page.write_text(f"# A page\n\n{intro}\n\n```bash\nsabre-desk --version\n```\n")
        work = tmp_path / f"work-{openai_there}" / "work"
        work.mkdir(parents=True)
        env = _environment(work, page, shell_blocks(page))
        for module, there in (("pytest", False), ("hypothesis", False), ("openai", openai_there)):
            done = subprocess.run(
                [sys.executable, "-c", f"import {module}"],
                env=env,
                cwd=work,
                capture_output=True,
                text=True,
            )
            assert (done.returncode == 0) == there, (module, intro, done.stderr)
            assert there or f"No module named '{module}'" in done.stderr
