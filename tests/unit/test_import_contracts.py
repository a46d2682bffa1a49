"""The core's modules import one another in one direction: the contract in pyproject.toml
holds on the real package, and it reports a circle however it is hidden (a function-level
import, a type-only import) in a package made for the purpose."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CORE = "sabre_desk.core"


def _core_contract() -> dict[str, Any]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    found = [c for c in contracts if CORE in c.get("ancestors", [])]
    assert len(found) == 1, "pyproject.toml has one contract keeping the core acyclic"
    assert found[0]["type"] == "acyclic_siblings"
    return dict(found[0])


def _lint(tmp_path: Path, root_package: str, contract: dict[str, Any], path: Path) -> str:
    """Run lint-imports with only *contract* on *root_package* found on *path*; the report,
    or raise with it when the contract is broken."""
    lines = [
        "[tool.importlinter]",
        f"root_package = {json.dumps(root_package)}",
        "",
        "[[tool.importlinter.contracts]]",
        *(f"{key} = {json.dumps(value)}" for key, value in contract.items()),
    ]
    config = tmp_path / "contracts.toml"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
            "--config",
            str(config),
            "--no-cache",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(path), "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if run.returncode != 0:
        raise AssertionError(run.stdout + run.stderr)
    return run.stdout


def _toy(tmp_path: Path, modules: dict[str, str]) -> Path:
    """A package ``toy`` with a ``core`` of *modules* (name → source)."""
    core = tmp_path / "src" / "toy" / "core"
    core.mkdir(parents=True)
    (core.parent / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    for name, source in modules.items():
        (core / f"{name}.py").write_text(source)
    return tmp_path / "src"


def _toy_contract() -> dict[str, Any]:
    return {**_core_contract(), "ancestors": ["toy.core"]}


def test_the_core_has_no_import_circle(tmp_path: Path) -> None:
    report = _lint(tmp_path, "sabre_desk", _core_contract(), ROOT)
    assert "KEPT" in report


def test_a_core_in_one_direction_keeps_the_contract(tmp_path: Path) -> None:
    src = _toy(
        tmp_path,
        {
            "project": "from toy.core import screening\n",
            "screening": "from toy.core import review\n",
            "review": "",
        },
    )
    assert "KEPT" in _lint(tmp_path, "toy", _toy_contract(), src)


def test_a_circle_dodged_inside_a_function_breaks_the_contract(tmp_path: Path) -> None:
    src = _toy(
        tmp_path,
        {
            "project": "from toy.core import screening\n",
            "screening": "def status():\n    from toy.core import repairs\n",
            "repairs": "from toy.core import project\n",
        },
    )
    try:
        _lint(tmp_path, "toy", _toy_contract(), src)
    except AssertionError as broken:
        report = str(broken)
    else:
        raise AssertionError("the circle project → screening → repairs → project was kept")
    assert "No cycles are allowed in toy.core" in report
    assert any(f".{a} -> .{b}" in report for a, b in _edges("project screening repairs"))


def test_a_type_only_circle_breaks_the_contract(tmp_path: Path) -> None:
    src = _toy(
        tmp_path,
        {
            "project": "from toy.core import screening\n",
            "screening": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    from toy.core.project import Case\n"
            ),
        },
    )
    try:
        _lint(tmp_path, "toy", _toy_contract(), src)
    except AssertionError as broken:
        report = str(broken)
    else:
        raise AssertionError("the circle project → screening → project was kept")
    assert any(f".{a} -> .{b}" in report for a, b in _edges("project screening"))


def _edges(cycle: str) -> list[tuple[str, str]]:
    names = cycle.split()
    return list(zip(names, [*names[1:], names[0]], strict=True))


def test_every_module_of_the_shell_is_out_of_the_rooms_reach() -> None:
    """The contract names the shell's modules one by one: a module added at gui/'s top level
    and left off the list could be imported by a room unseen."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["name"] == "The rooms never reach up into the shell"
    )
    shell = {
        f"sabre_desk.gui.{path.stem}"
        for path in (ROOT / "sabre_desk" / "gui").glob("*.py")
        if path.stem != "__init__"
    }
    assert shell == set(contract["forbidden_modules"])
