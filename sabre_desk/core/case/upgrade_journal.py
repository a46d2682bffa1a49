"""The mark of an upgrade under way: ``.sabre-desk/upgrade-journal.json``.

`sabre-desk upgrade` prepares every new file aside, then writes this journal, then puts
the new files in place one rename at a time, and removes the journal last. While the
journal is there the project may be part old and part new, so nothing opens it: every
command and the window refuse it in one line that says to run `sabre-desk upgrade`, which
completes the switch from the prepared files (core/upgrade/upgrade_switch.py). Without the
journal a project is wholly old or wholly new.

It lives here, at the bottom of the core, because opening a project checks for it (one
``lstat``, no read).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from sabre_desk.ground.errors import ProjectError

#: the folder of sabre-desk's own records in a project (backups, the journal)
RECORDS_DIR = ".sabre-desk"
JOURNAL_NAME = "upgrade-journal.json"
#: the journal, relative to the project
JOURNAL_REL = f"{RECORDS_DIR}/{JOURNAL_NAME}"


class UpgradeUnderWayError(ProjectError):
    """An upgrade stopped part-way (killed, or its roll-back failed): the project's files may
    be part old, part new until `sabre-desk upgrade` runs again."""


def journal_path(root: Path) -> Path:
    return Path(root) / RECORDS_DIR / JOURNAL_NAME


def upgrade_under_way(root: Path) -> bool:
    """Whether an upgrade's journal is in *root* (a link or anything else counts: only
    `upgrade` may decide what it is)."""
    return os.path.lexists(journal_path(root))


def under_way_line(root: Path) -> str:
    """The one line every command and the window say about such a project."""
    command = f"sabre-desk upgrade {shlex.quote(str(root))}"
    return (
        f"an upgrade of this project stopped part-way ({JOURNAL_REL} is still there), so "
        f"some of its files may be new and others old; run `{command}` to finish it"
    )


def refuse_unfinished_upgrade(root: Path) -> None:
    """Raise UpgradeUnderWayError when an upgrade's journal is in *root*."""
    if upgrade_under_way(root):
        raise UpgradeUnderWayError(under_way_line(root), root)
