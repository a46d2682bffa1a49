"""What sabre-desk reads from its own installation besides its code: one list that the
installed package, the checkout and the standalone bundle's spec (packaging/sabre-desk.spec)
all take, so that moving a file cannot leave the bundle naming one that no longer exists."""

from __future__ import annotations

from pathlib import Path

#: Folders at the top of the checkout that the package carries as sabre_desk/<name>.
DATA_FOLDERS = ("resources", "primers")

#: Modules whose source text is read at run time: a release's lmms-eval ``utils.py`` is
#: assembled from them. A frozen bundle keeps only compiled code, so it carries these as files.
SOURCE_MODULES = (
    "sabre_desk.core.case.answer_rules",
    "sabre_desk.core.release.lmms_eval_hooks",
)


def module_source_path(root: Path, module: str) -> Path:
    """Where *module*'s source lies under the checkout *root*."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def bundle_data(root: Path) -> list[tuple[str, str]]:
    """(source, destination folder) of each data file or folder the bundle carries, from the
    checkout *root*; raises FileNotFoundError naming any that is missing."""
    entries = [(root / name, f"sabre_desk/{name}") for name in DATA_FOLDERS]
    for module in SOURCE_MODULES:
        source = module_source_path(root, module)
        entries.append((source, source.parent.relative_to(root).as_posix()))
    missing = [str(source) for source, _ in entries if not source.exists()]
    if missing:
        raise FileNotFoundError(f"files the bundle carries are missing: {', '.join(missing)}")
    return [(str(source), dest) for source, dest in entries]
