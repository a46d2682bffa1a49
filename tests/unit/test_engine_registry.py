"""Engines registered once: the command line offers every engine in the registry, with
its label, its values and why it cannot run here, and no code knows an engine by name."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fakes.engines import TintEngine, UnpluggedEngine
from PIL import Image

import sabre_desk
from sabre_desk.cli import main
from sabre_desk.engines import registry
from sabre_desk.engines.gemini import DEFAULT_MODEL
from sabre_desk.engines.registry import ENGINES, MissingValueError, make_engine
from sabre_desk.ground.errors import EngineUnavailableError
from sabre_desk.settings import Settings

CASE = "ctx03_wrench_banana"
BOX = "0.345,0.595,0.41,0.69"
ME = ["--reviewer", "alice"]


def words(text: str) -> str:
    """argparse wraps help at the terminal's width; compare with the lines joined."""
    return " ".join(text.split())


def repair_help(capsys: pytest.CaptureFixture[str], *command: str) -> str:
    with pytest.raises(SystemExit):
        main([*command, "--help"])
    return words(capsys.readouterr().out)


def test_every_registered_engine_is_a_choice_of_repair_with_its_label() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "sabre_desk", "repair", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0
    text = words(result.stdout)
    assert "--engine {" + ",".join(ENGINES) + "}" in text
    for cls in ENGINES.values():
        assert f"{cls.name}: {cls.label}" in text
        for param in cls.params:
            assert f"{param.flag} {param.metavar}" in text
    assert "the repair engine (default: patchmatch)" in text
    assert "file: An image made in another editor (needs --file IMAGE)" in text


def test_a_study_offers_only_the_engines_that_need_no_value_of_their_own(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = repair_help(capsys, "study", "new")
    offered = [cls.name for cls in ENGINES.values() if not any(p.required for p in cls.params)]
    assert "--engine {" + ",".join(offered) + "}" in text
    assert "file" not in offered and "--file" not in text


def test_an_engine_added_to_the_registry_is_on_the_command_line_with_its_value(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    demo_project: Path,
) -> None:
    monkeypatch.setitem(ENGINES, TintEngine.name, TintEngine)
    text = repair_help(capsys, "repair")
    assert f"tint: {TintEngine.label}" in text
    assert "--colour R,G,B the colour to paint, as R,G,B, for --engine tint" in text

    code = main(
        [
            "repair",
            str(demo_project),
            CASE,
            *ME,
            "--box",
            BOX,
            "--engine",
            "tint",
            "--colour",
            "10,20,30",
        ]
    )
    assert code == 0, capsys.readouterr().err
    folder = demo_project / "cases" / CASE
    (record,) = json.loads((folder / "reviews" / "alice.json").read_text())["repairs"]
    assert record["engine"] == "tint"
    preview = np.asarray(Image.open(folder / record["preview"]).convert("RGB"))
    h, w = preview.shape[:2]
    assert tuple(preview[int(0.64 * h), int(0.38 * w)]) == (10, 20, 30)  # the box's middle


def test_an_engine_that_cannot_run_here_says_why_in_help_and_when_chosen(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    demo_project: Path,
) -> None:
    monkeypatch.setitem(ENGINES, UnpluggedEngine.name, UnpluggedEngine)
    text = repair_help(capsys, "repair")
    assert (
        f"unplugged: {UnpluggedEngine.label} (unavailable here: {UnpluggedEngine.REASON})" in text
    )

    code = main(["repair", str(demo_project), CASE, *ME, "--box", BOX, "--engine", "unplugged"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--engine unplugged: {UnpluggedEngine.REASON}" in err
    review = demo_project / "cases" / CASE / "reviews" / "alice.json"
    assert not review.exists() or not json.loads(review.read_text())["repairs"]


def test_the_default_is_the_first_offline_engine_that_runs_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert registry.default_engine() == "patchmatch"
    # an engine that cannot run here is passed over, however early it is registered
    monkeypatch.setattr(
        registry, "ENGINES", {UnpluggedEngine.name: UnpluggedEngine, **ENGINES}, raising=True
    )
    assert registry.default_engine() == "patchmatch"


def test_the_model_comes_from_the_flag_else_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "k" * 32)
    made = [
        make_engine("gemini", settings=Settings(gemini_model="gemini-from-settings")),
        make_engine("gemini", settings=Settings(), model="gemini-from-flag"),
        make_engine("gemini"),
    ]
    try:
        assert [getattr(e, "model", None) for e in made] == [
            "gemini-from-settings",
            "gemini-from-flag",
            DEFAULT_MODEL,
        ]
    finally:
        for engine in made:
            engine.close()


def test_an_engine_is_not_made_without_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingValueError) as missing:
        make_engine("file")
    assert missing.value.param.flag == "--file"
    assert missing.value.reason == "choose the image file to use"
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(EngineUnavailableError, match="GEMINI_API_KEY"):
        make_engine("gemini")
    with pytest.raises(EngineUnavailableError, match="unknown engine 'lama'; choose one of"):
        make_engine("lama")


def _name_comparisons(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines that compare something to an engine's name written out, test it against a
    collection of them, match on one, or list two or more."""

    def named(node: ast.AST) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            members = [
                elt
                for operand in operands
                if isinstance(operand, ast.Tuple | ast.List | ast.Set)
                for elt in operand.elts
            ]
            if any(named(n) for n in operands + members):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and named(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.Tuple | ast.List | ast.Set | ast.Dict):
            elts = node.keys if isinstance(node, ast.Dict) else node.elts
            if sum(1 for e in elts if e is not None and named(e)) >= 2:
                lines.append(node.lineno)
    return lines


def test_no_code_compares_an_engine_name_to_a_string() -> None:
    """What an engine can do is an attribute of its class; code that tests for one
    engine's name breaks silently when an engine is added or renamed."""
    package = Path(sabre_desk.__file__).parent
    names = set(ENGINES)
    found = [
        f"{path.relative_to(package.parent)}:{line}"
        for path in sorted(package.rglob("*.py"))
        for line in _name_comparisons(ast.parse(path.read_text(encoding="utf-8")), names)
    ]
    assert not found, "engine names compared or listed as strings at " + ", ".join(found)


def test_the_scan_finds_the_comparisons_it_is_for() -> None:
    names = set(ENGINES)
    code = (
        'if engine == "file": pass\n'
        'x = "gemini" != name\n'
        'y = name in ("opencv-ns", "other")\n'
        'match name:\n    case "file": pass\n'
        'LABELS = {"opencv-fsr": "a", "opencv-telea": "b"}\n'
        'ok = seen["file"]; kind = "gemini"\n'
    )
    assert sorted(_name_comparisons(ast.parse(code), names)) == [1, 2, 3, 5, 6]
