"""`sabre-desk cache info|clear PROJECT`: the project's preview cache, looked at or emptied.

The previews are only a shortcut (the window makes them again as needed), so clearing them
never loses anything; `info` says where they are and how much room they take.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from sabre_desk.cli.common import EXIT_OK, open_project, reviewer_name
from sabre_desk.core.case.preview_cache import PreviewStore
from sabre_desk.ground.reading import human_size
from sabre_desk.settings import load_settings


def register(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser(
        "cache",
        help="the preview cache of a project (info, clear)",
        description="Previews of every image, stored so that any case opens at once. "
        "They live in PROJECT/.sabre-desk-cache (for a read-only project, in your user "
        "cache folder) and are never part of a release.",
    )
    actions = p.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    for name, text in (
        ("info", "where the previews are, how many, how much room they take"),
        ("clear", "remove every preview (they are made again as needed)"),
    ):
        q = actions.add_parser(name, parents=[common], help=text, description=text)
        q.add_argument("project", type=Path, help="project folder")
        q.set_defaults(run=run_cache)


def run_cache(args: argparse.Namespace) -> int:
    project = open_project(args.project, reviewer_name(args), index=False)
    settings, _ = load_settings()
    store = PreviewStore.for_project(
        project.root, project.read_only, settings.preview_cache_mb * 1024**2
    )
    if args.cache_command == "clear":
        removed = store.clear()
        print(f"removed {removed} preview(s) from {store.folder}")
        return EXIT_OK
    info = store.info()
    print(f"folder   {info.folder}")
    print(f"previews {info.files}")
    print(f"size     {human_size(info.bytes)} of at most {human_size(info.limit_bytes)}")
    return EXIT_OK
