"""One reviewer name, resolved once: ``--reviewer`` before or after the command, then
$SABRE_DESK_REVIEWER, then the settings file, then the login; what a command writes and
says is under that name."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from sabre_desk.cli import main
from sabre_desk.cli.app import build_parser
from sabre_desk.cli.common import reviewer_name
from sabre_desk.settings import Settings, save_settings

BOX = ["--box", "0.3,0.5,0.45,0.7", "--op", "remove", "--engine", "opencv-telea"]
CASE = "ctx01_tape_bagel"


def _commands_with_reviewer() -> list[tuple[list[str], argparse.ArgumentParser]]:
    """Every command (with its sub-command) whose parser takes --reviewer."""
    found: list[tuple[list[str], argparse.ArgumentParser]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    nested = any(isinstance(a, argparse._SubParsersAction) for a in sub._actions)
                    if nested:
                        walk(sub, [*path, name])
                    elif any("--reviewer" in a.option_strings for a in sub._actions):
                        found.append(([*path, name], sub))

    walk(build_parser(), [])
    return found


#: What a value of these options must look like to parse.
VALUES = {"--box": "0.1,0.1,0.2,0.2", "--reviewers": "alice,bob"}


def _rest(parser: argparse.ArgumentParser) -> list[str]:
    """What the command needs besides its name to parse: each positional and each
    required option, with a value of its kind."""
    rest: list[str] = []
    for action in parser._actions:
        value = str(next(iter(action.choices))) if action.choices else "X"
        if not action.option_strings and action.nargs not in ("?", "*"):
            rest.append(value)
        elif action.option_strings and action.required:
            option = action.option_strings[-1]
            rest += [option, VALUES.get(option, value)]
    return rest


def test_every_command_that_acts_as_someone_takes_the_flag_on_either_side() -> None:
    commands = _commands_with_reviewer()
    names = {" ".join(path) for path, _ in commands}
    assert {"open", "repair", "stats", "validate", "assign", "merge"} <= names
    parser = build_parser()
    for command, sub in commands:
        rest = _rest(sub)
        before = parser.parse_args(["--reviewer", "alice", *command, *rest])
        after = parser.parse_args([*command, *rest, "--reviewer", "alice"])
        assert reviewer_name(before) == "alice", command
        assert reviewer_name(after) == "alice", command


def _accept(demo: Path, *argv: str, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


@pytest.mark.parametrize("where", ["before", "after"])
def test_repair_accept_is_written_and_said_under_the_flag_on_either_side(
    where: str, demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = ["repair", str(demo_project), CASE, *BOX, "--accept"]
    argv = (
        ["--reviewer", "alice", *command]
        if where == "before"
        else [*command, "--reviewer", "alice"]
    )
    out = _accept(demo_project, *argv, capsys=capsys)
    assert "accepted r1 as alice:" in out
    reviews = demo_project / "cases" / CASE / "reviews"
    assert sorted(p.name for p in reviews.glob("*.json")) == ["alice.json"]


@pytest.mark.parametrize("where", ["before", "after"])
def test_stats_counts_me_as_the_flag_on_either_side(
    where: str, demo_project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["--reviewer", "alice", "repair", str(demo_project), CASE, *BOX, "--accept"])
    capsys.readouterr()
    command = ["stats", str(demo_project)]
    argv = (
        ["--reviewer", "alice", *command]
        if where == "before"
        else [*command, "--reviewer", "alice"]
    )
    out = _accept(demo_project, *argv, capsys=capsys)
    assert "'me' is alice" in out
    as_json = json.loads(_accept(demo_project, *argv, "--json", capsys=capsys))
    assert as_json["reviewer"] == "alice"


def test_the_environment_names_the_reviewer_when_no_flag_does(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    save_settings(Settings(reviewer="sam"))
    monkeypatch.setenv("SABRE_DESK_REVIEWER", "carol")
    assert "'me' is carol" in _accept(demo_project, "stats", str(demo_project), capsys=capsys)
    out = _accept(demo_project, "stats", str(demo_project), "--reviewer", "dan", capsys=capsys)
    assert "'me' is dan" in out  # the flag still wins


def test_the_settings_name_the_reviewer_when_neither_flag_nor_environment_does(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("SABRE_DESK_REVIEWER", raising=False)
    save_settings(Settings(reviewer="sam"))
    assert "'me' is sam" in _accept(demo_project, "stats", str(demo_project), capsys=capsys)


def test_a_bad_name_in_the_environment_is_refused_naming_it(
    demo_project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SABRE_DESK_REVIEWER", "al ice")
    code = main(["stats", str(demo_project)])
    _, err = capsys.readouterr()
    assert code == 2 and "SABRE_DESK_REVIEWER: invalid reviewer name 'al ice'" in err
