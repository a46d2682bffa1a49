"""The standalone bundle names only files that exist: its data list is the one the code
reads (sabre_desk/ground/shipped.py), checked with every test run, where a full build
(.ci/bundle) takes minutes."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sabre_desk.core.release import lmms_eval_task
from sabre_desk.ground.shipped import SOURCE_MODULES, bundle_data, module_source_path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "sabre-desk.spec"


def test_every_file_the_bundle_carries_exists() -> None:
    for source, dest in bundle_data(ROOT):
        assert Path(source).exists(), source
        assert not Path(dest).is_absolute() and dest.startswith("sabre_desk")


def test_a_moved_source_is_named_at_once(tmp_path: Path) -> None:
    (tmp_path / "resources").mkdir()
    (tmp_path / "primers").mkdir()
    with pytest.raises(FileNotFoundError, match=r"answer_rules\.py"):
        bundle_data(tmp_path)


def test_the_spec_lists_no_file_of_its_own() -> None:
    """Every path into the package that the spec's Analysis carries comes from bundle_data."""
    tree = ast.parse(SPEC.read_text(encoding="utf-8"))
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)]
    assert not [s for s in strings if isinstance(s, str) and s.endswith(".py") and "/" in s]
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert "bundle_data" in names


def test_the_lmms_eval_task_is_built_from_the_listed_sources() -> None:
    """The modules whose source a release's utils.py holds are the ones the bundle carries."""
    source = lmms_eval_task.utils_source()
    for module in SOURCE_MODULES:
        text = module_source_path(ROOT, module).read_text(encoding="utf-8")
        first = next(line for line in text.splitlines() if line.startswith("def "))
        assert first in source, module
    imported = {
        f"{node.module}.{alias.name}"
        for node in ast.walk(ast.parse(Path(lmms_eval_task.__file__).read_text()))
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }
    read = {m for m in imported if m.endswith(("answer_rules", "lmms_eval_hooks"))}
    assert read == set(SOURCE_MODULES)
