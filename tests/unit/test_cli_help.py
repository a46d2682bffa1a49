"""Every command's `--help` is what users and scripts have read before: the command line's
package layout may change, the text it prints may not (tests/fixtures/help holds each one)."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import pytest

from sabre_desk.cli import build_parser, main

HELP = Path(__file__).parents[1] / "fixtures" / "help"


def _commands(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _commands(child, (*path, name))


def _fixture(path: tuple[str, ...]) -> Path:
    return HELP / f"{'-'.join(path) or 'sabre-desk'}.txt"


COMMANDS = [path for path, _ in _commands(build_parser())]


def test_every_command_has_its_help_on_record() -> None:
    recorded = {p.name for p in HELP.glob("*.txt")}
    assert recorded == {_fixture(path).name for path in COMMANDS}
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "sabre-desk")
def test_help_is_unchanged(
    path: tuple[str, ...], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):  # an engine's help says if it can run
        monkeypatch.delenv(key, raising=False)
    with pytest.raises(SystemExit) as exit_:
        main([*path, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == _fixture(path).read_text()
