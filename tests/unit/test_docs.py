"""The documentation a user and a developer walk: every link leads somewhere, every command
it names exists, and the commands page is the parser's own (the keys and menus are checked
against the real window in tests/gui/test_docs_keys.py)."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote

import pytest
from docs_pages import ROOT, anchors, code, links, name, pages

README = ROOT / "README.md"
GENERATOR = ROOT / "tools" / "gen_commands_doc.py"
#: The README's two commands: the first opens the app on the demo, the second installs and
#: runs the tests.
START = "python3 -m venv .venv && .venv/bin/pip install . && .venv/bin/sabre-desk demo"
TESTS = 'python3 -m venv .venv && .venv/bin/pip install ".[test]" && .venv/bin/python -m pytest'


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_commands_doc", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    return _generator()


@pytest.fixture(scope="module")
def commands(generator: ModuleType) -> set[tuple[str, ...]]:
    return set(generator.command_paths())


def test_the_pages_exist() -> None:
    found = {name(p) for p in pages()}
    for page in (
        "docs/guide/getting-started.md",
        "docs/guide/review.md",
        "docs/guide/repair.md",
        "docs/guide/making-cases.md",
        "docs/guide/screening.md",
        "docs/guide/team.md",
        "docs/guide/release-and-evaluate.md",
        "docs/keys.md",
        "docs/commands.md",
        "docs/PROJECT_FORMAT.md",
        "docs/repair.md",
        "docs/scoring.md",
        "docs/developing.md",
    ):
        assert page in found


def test_every_link_and_image_leads_to_a_file_and_heading_that_exist() -> None:
    broken = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        for target in links(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            path, _, anchor = unquote(target).partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{name(page)}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file.read_text()):
                broken.append(f"{name(page)}: {target} (no heading #{anchor} there)")
    assert not broken, "\n".join(broken)


def test_the_pages_link_nothing_outside_the_project() -> None:
    for page in pages():
        for target in links(page.read_text(encoding="utf-8")):
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                resolved = (page.parent / target.partition("#")[0]).resolve()
                assert resolved.is_relative_to(ROOT), f"{name(page)}: {target}"


def test_every_command_the_pages_name_is_a_real_command(
    commands: set[tuple[str, ...]],
) -> None:
    """`sabre-desk WORD` in code, in any page, is a command of the parser (and, for a
    command with subcommands, so is the word after it)."""
    groups = {path[0] for path in commands if len(path) == 2}
    named, unknown = set(), []
    pattern = re.compile(r"(?<![\w.-])sabre-desk\s+([a-z][a-z-]*)(?:\s+([a-z][a-z-]*))?")
    for page in pages():
        for snippet in code(page.read_text(encoding="utf-8")):
            for first, second in pattern.findall(snippet):
                path = (first, second) if first in groups and second else (first,)
                if path in commands:
                    named.add(path)
                else:
                    unknown.append(f"{name(page)}: sabre-desk {' '.join(path)}")
    assert not unknown, "not commands of sabre-desk:\n" + "\n".join(unknown)
    assert ("open",) in named and ("generate", "specs") in named


def test_the_commands_page_is_generated_from_the_parser(generator: ModuleType) -> None:
    page = ROOT / "docs" / "commands.md"
    assert page.read_text(encoding="utf-8") == generator.render(), (
        "docs/commands.md is out of date with the command line; "
        f"run: python {GENERATOR.relative_to(ROOT)}"
    )


def test_the_commands_page_documents_every_command(
    commands: set[tuple[str, ...]],
) -> None:
    headings = anchors((ROOT / "docs" / "commands.md").read_text(encoding="utf-8"))
    missing = [" ".join(p) for p in commands if "sabre-desk-" + "-".join(p) not in headings]
    assert not missing and len(commands) > 20, missing


def test_the_generator_reports_a_stale_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = _generator()
    monkeypatch.setattr(module, "OUTPUT", tmp_path / "commands.md")
    monkeypatch.setattr(module, "ROOT", tmp_path)
    (tmp_path / "commands.md").write_text("# Commands\n\nold\n")
    assert module.main(["--check"]) == 1
    assert "python tools/gen_commands_doc.py" in capsys.readouterr().err
    assert module.main([]) == 0 and module.main(["--check"]) == 0
    assert "`sabre-desk generate images`" in (tmp_path / "commands.md").read_text()


def test_every_dependency_has_its_reason_written_down() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = list(project["dependencies"])
    for extra in project["optional-dependencies"].values():
        declared += extra
    page = (ROOT / "docs" / "dependencies.md").read_text(encoding="utf-8").lower()
    names = {re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0].lower() for d in declared}
    missing = [
        n for n in sorted(names) if not re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", page)
    ]
    assert not missing, f"docs/dependencies.md does not say why: {', '.join(missing)}"


def test_the_readme_is_short_and_opens_with_its_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250, "the README is the front door: details go in docs/"
    assert START in text and TESTS in text
    for page in ("docs/guide/review.md", "docs/commands.md", "docs/developing.md"):
        assert f"]({page}" in text


def test_no_page_points_at_a_document_the_project_does_not_have() -> None:
    """A docstring or page that names REPAIR.md or SCORING.md names docs/repair.md or
    docs/scoring.md instead, which a reader of the repository can open."""
    stale = []
    files = [
        *pages(),
        *ROOT.joinpath("sabre_desk").rglob("*.py"),
        *ROOT.joinpath("tests").rglob("*.py"),
    ]
    for file in files:
        if file.resolve() == Path(__file__).resolve():
            continue
        for word in ("REPAIR.md", "SCORING.md", "ARCHITECTURE.md"):
            if word in file.read_text(encoding="utf-8"):
                stale.append(f"{file.relative_to(ROOT)}: {word}")
    assert not stale, "\n".join(stale)
